package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The exit codes the docs quote are {@link ExitCode}'s: the README's table has one row per code
 * with its meaning, docs/check.md's table uses only those codes with the same meanings, and every
 * "usage error (exit code 2)" or "3 environment" in README.md and docs/ pairs a meaning with its
 * code. A renumbered or renamed code, or a doc that pairs a meaning with another code, fails here.
 */
class ExitCodesDocumentedTest {

  /** The word the docs use for each code's meaning. */
  private static String meaning(ExitCode code) {
    return switch (code) {
      case OK -> "done";
      case INVALID_INPUT -> "input";
      default -> code.name().toLowerCase(Locale.ROOT);
    };
  }

  private static ExitCode byCode(int code) {
    return Arrays.stream(ExitCode.values())
        .filter(c -> c.code() == code)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no ExitCode " + code));
  }

  /** Rows {@code | N | text |} of the table under {@code heading}, by code. */
  private static Map<Integer, String> table(Path document, String heading) throws Exception {
    String text = Files.readString(document);
    int start = text.indexOf(heading);
    assertThat(start).as(document + ": " + heading).isNotNegative();
    int end = text.indexOf("\n## ", start + heading.length());
    Map<Integer, String> rows = new LinkedHashMap<>();
    Matcher row =
        Pattern.compile("(?m)^\\| (\\d+) \\| ([^|]*)")
            .matcher(text.substring(start, end < 0 ? text.length() : end));
    while (row.find()) {
      rows.put(Integer.parseInt(row.group(1)), row.group(2).strip());
    }
    return rows;
  }

  @Test
  void readmeTable_hasEveryCode_withItsMeaning() throws Exception {
    Map<Integer, String> rows = table(Path.of("README.md"), "## Exit codes");

    assertThat(rows.keySet())
        .containsExactlyElementsOf(Arrays.stream(ExitCode.values()).map(ExitCode::code).toList());
    rows.forEach(
        (code, text) ->
            assertThat(text).as("README exit code " + code).contains(meaning(byCode(code))));
  }

  @Test
  void checkMdTable_usesTheCodes_withTheirMeanings() throws Exception {
    Map<Integer, String> rows = table(Path.of("docs/check.md"), "## Exit codes");

    assertThat(rows).containsKeys(0, 1, 2, 3, 4, 6);
    rows.forEach(
        (code, text) -> {
          ExitCode exit = byCode(code);
          if (exit != ExitCode.OK && exit != ExitCode.REJECTED) {
            assertThat(text).as("check.md exit code " + code).startsWith(meaning(exit));
          }
        });
  }

  @Test
  void everyMeaningQuotedWithACode_isThatCode() throws Exception {
    List<Path> documents = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    String meanings = "rejected|usage|environment|remote|internal|input";
    // "a usage error (exit code 2)", "an internal error (exit 5)"
    Pattern meaningThenCode =
        Pattern.compile("\\b(" + meanings + ")\\b[^.()]{0,20}\\(exit(?: code)? (\\d+)\\)");
    // "2 usage, 3 environment, ..."
    Pattern codeThenMeaning = Pattern.compile("\\b(\\d+) (" + meanings + ")\\b");
    int pairs = 0;
    for (Path document : documents) {
      String text = Files.readString(document).replace('\n', ' ');
      for (Matcher m = meaningThenCode.matcher(text); m.find(); pairs++) {
        assertPairs(document, m.group(0), m.group(1), m.group(2));
      }
      for (Matcher m = codeThenMeaning.matcher(text); m.find(); pairs++) {
        assertPairs(document, m.group(0), m.group(2), m.group(1));
      }
    }
    assertThat(pairs).isGreaterThanOrEqualTo(10);
  }

  private static void assertPairs(Path document, String quote, String meaning, String code) {
    assertThat(meaning(byCode(Integer.parseInt(code))))
        .as(document + ": \"" + quote + "\"")
        .isEqualTo(meaning.toLowerCase(Locale.ROOT));
  }
}
