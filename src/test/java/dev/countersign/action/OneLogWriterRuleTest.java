package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the log to one writer: no production class reaches the process's standard streams except
 * the composition root (which hands {@link WorkflowLog}s to everything else in Actions mode), and
 * no class but {@link WorkflowCommands} spells a workflow command itself. A scan of src/main, so a
 * new {@code System.out.println(fileName)} fails the build rather than a security review. ({@code
 * printStackTrace} is checked on the bytecode by {@code architecture.PackageRules}.)
 */
class OneLogWriterRuleTest {

  private static final Path SOURCES = Path.of("src/main/java");

  /** What bypasses the log writer, and the only files allowed to use it. */
  private static final Map<Pattern, Set<String>> RULES =
      Map.of(
          Pattern.compile("System\\s*\\.\\s*(out|err)\\b"), Set.of("dev/countersign/cli/Main.java"),
          Pattern.compile("FileDescriptor\\s*\\.\\s*(out|err)\\b"), Set.of(),
          Pattern.compile("System\\s*\\.\\s*console\\s*\\("),
              Set.of("dev/countersign/cli/Main.java"),
          Pattern.compile("\"(::|##\\[)"), Set.of("dev/countersign/action/WorkflowCommands.java"));

  @Test
  void onlyTheCompositionRootTouchesStandardStreams_andOnlyWorkflowCommandsSpellsCommands()
      throws IOException {
    List<String> violations = new ArrayList<>();
    List<Path> files;
    try (Stream<Path> walk = Files.walk(SOURCES)) {
      files = walk.filter(p -> p.toString().endsWith(".java")).toList();
    }
    assertThat(files).as("the scan found the sources").hasSizeGreaterThan(50);
    for (Path file : files) {
      String relative = SOURCES.relativize(file).toString().replace('\\', '/');
      List<String> lines = Files.readAllLines(file);
      for (int i = 0; i < lines.size(); i++) {
        String code = withoutComment(lines.get(i));
        for (Map.Entry<Pattern, Set<String>> rule : RULES.entrySet()) {
          if (rule.getKey().matcher(code).find() && !rule.getValue().contains(relative)) {
            violations.add(relative + ":" + (i + 1) + ": " + lines.get(i).strip());
          }
        }
      }
    }
    assertThat(violations).as("printing that bypasses WorkflowLog").isEmpty();
  }

  @Test
  void theRuleCatchesWhatItIsFor() {
    Pattern systemOut =
        RULES.keySet().stream()
            .filter(p -> p.pattern().startsWith("System\\s*\\.\\s*(out"))
            .findFirst()
            .orElseThrow();
    assertThat(systemOut.matcher(withoutComment("    System.out.println(name);")).find()).isTrue();
    assertThat(systemOut.matcher(withoutComment("    // System.out is the log")).find()).isFalse();
  }

  /** The line without a trailing {@code //} comment or a Javadoc/block comment line. */
  private static String withoutComment(String line) {
    String s = line.strip();
    if (s.startsWith("*") || s.startsWith("/*") || s.startsWith("//")) {
      return "";
    }
    int comment = s.indexOf("//");
    return comment >= 0 && !s.substring(0, comment).contains("\"") ? s.substring(0, comment) : s;
  }
}
