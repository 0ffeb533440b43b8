package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.signing.SignReport;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcileReportTest {

  @TempDir Path tmp;

  @Test
  void publish_refusedResult_setsOutputsWarnsAndSummarises() throws Exception {
    StringWriter log = new StringWriter();
    ActionsReporter reporter =
        new ActionsReporter(
            new PrintWriter(log),
            Optional.of(tmp.resolve("out")),
            Optional.of(tmp.resolve("sum")),
            () -> "u");
    ReconcileResult refused =
        new ReconcileResult(
            ReconcileResult.Outcome.REFUSED,
            List.of("signed/a.yaml", "signed/b.yaml"),
            List.of("signed/c.yaml"),
            Optional.of("abc123"),
            "protected branch hook declined\nremote: error: GH006: Protected branch update failed",
            1);

    SignReport.Entry a =
        new SignReport.Entry(
            Path.of("unsigned/a.yaml"),
            Path.of("signed/a.yaml"),
            SignReport.Outcome.SIGNED,
            "sha256:aa",
            Optional.of("https://github.com/o/r/.github/workflows/s.yml@refs/heads/main"),
            Optional.of(1001L),
            Optional.empty());

    ReconcileReport.publish(reporter, refused, Map.of("signed/a.yaml", a));

    assertThat(Files.readString(tmp.resolve("out")))
        .isEqualTo(
            "result=refused\n"
                + "signed-files<<ghadelimiter_u\nsigned/a.yaml\nsigned/b.yaml\nghadelimiter_u\n"
                + "commit-sha=abc123\n");
    assertThat(log.toString())
        .isEqualTo(
            "::warning::The remote refused the push: protected branch hook declined%0Aremote:"
                + " error: GH006: Protected branch update failed\n");
    assertThat(Files.readString(tmp.resolve("sum")))
        .isEqualTo(
            "### countersign: refused\n\n"
                + "protected branch hook declined\n\n"
                + "Commit: `abc123`\n\n"
                + "| manifest | result | message digest | signer | Rekor log index |\n"
                + "| --- | --- | --- | --- | --- |\n"
                + "| signed/a.yaml | signed | sha256:aa |"
                // Identities are text, not autolinks or mentions.
                + " https\\://github.com/o/r/.github/workflows/s.yml\\@refs/heads/main | 1001 |\n"
                + "| signed/b.yaml | signed |  |  |  |\n"
                + "| signed/c.yaml | signature unchanged |  |  |  |\n\n");
  }

  @Test
  void publish_noop_hasEmptyListsAndNoTable() throws Exception {
    ActionsReporter reporter =
        new ActionsReporter(
            new PrintWriter(new StringWriter()),
            Optional.of(tmp.resolve("out")),
            Optional.of(tmp.resolve("sum")),
            () -> "u");

    ReconcileReport.publish(
        reporter,
        new ReconcileResult(
            ReconcileResult.Outcome.NOOP,
            List.of(),
            List.of(),
            Optional.empty(),
            "no manifests under unsigned/ at abc",
            0));

    assertThat(Files.readString(tmp.resolve("out")))
        .isEqualTo("result=noop\nsigned-files=\ncommit-sha=\n");
    assertThat(Files.readString(tmp.resolve("sum")))
        .isEqualTo("### countersign: noop\n\nno manifests under unsigned/ at abc\n\n");
  }

  @Test
  void publish_tenThousandFiles_summaryStaysUnderGithubsLimit_andSaysHowManyMore()
      throws Exception {
    ActionsReporter reporter =
        new ActionsReporter(
            new PrintWriter(new StringWriter()),
            Optional.of(tmp.resolve("out")),
            Optional.of(tmp.resolve("sum")),
            () -> "u");
    List<String> files = new java.util.ArrayList<>();
    Map<String, SignReport.Entry> details = new java.util.HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      String target = String.format("signed/team-%04d/network-policy-%04d.yaml", i, i);
      files.add(target);
      details.put(
          target,
          new SignReport.Entry(
              Path.of("unsigned/x.yaml"),
              Path.of(target),
              SignReport.Outcome.SIGNED,
              "sha256:" + "ab".repeat(32),
              Optional.of(
                  "https://github.com/octo-org/octo-repo/.github/workflows/countersign.yml@refs/heads/main"),
              Optional.of(100_000L + i),
              Optional.empty()));
    }
    ReconcileResult pushed =
        new ReconcileResult(
            ReconcileResult.Outcome.PUSHED,
            files,
            List.of(),
            Optional.of("c0ffee"),
            "signed 10000 manifest(s)",
            1);

    ReconcileReport.publish(reporter, pushed, details);

    String summary = Files.readString(tmp.resolve("sum"));
    long bytes = Files.size(tmp.resolve("sum"));
    assertThat(bytes)
        .isLessThanOrEqualTo(ActionsReporter.MAX_SUMMARY_BYTES)
        .isLessThan(1024 * 1024);
    assertThat(bytes)
        .as("the budget is used, not thrown away")
        .isGreaterThan(ActionsReporter.MAX_SUMMARY_BYTES - 1_000);
    assertThat(summary)
        .contains("Commit: `c0ffee`")
        .contains("| signed/team-0000/network-policy-0000.yaml | signed |");
    long shown = summary.lines().filter(l -> l.startsWith("| signed/")).count();
    java.util.regex.Matcher more =
        java.util.regex.Pattern.compile("and (\\d+) more rows not shown").matcher(summary);
    assertThat(more.find()).as(summary.substring(summary.length() - 300)).isTrue();
    assertThat(shown + Long.parseLong(more.group(1))).isEqualTo(10_000);
    assertThat(summary).endsWith("the job summary stops at 1,000,000 bytes._\n");
    // Every file is still in the step output.
    assertThat(Files.readString(tmp.resolve("out")))
        .contains("signed/team-9999/network-policy-9999.yaml");
  }

  @Test
  void summary_appendedAfterEarlierText_countsWhatIsAlreadyInTheFile() throws Exception {
    Files.writeString(
        tmp.resolve("sum"), "x".repeat(ActionsReporter.MAX_SUMMARY_BYTES - 50) + "\n");
    ActionsReporter reporter =
        new ActionsReporter(
            new PrintWriter(new StringWriter()),
            Optional.of(tmp.resolve("out")),
            Optional.of(tmp.resolve("sum")),
            () -> "u");

    reporter.summary("| a |\n| b |\n");
    assertThat(Files.size(tmp.resolve("sum")))
        .as("fits")
        .isEqualTo(ActionsReporter.MAX_SUMMARY_BYTES - 49 + 12);

    reporter.summary("| row |\n".repeat(100));
    assertThat(Files.size(tmp.resolve("sum")))
        .as("neither the rows nor the note fit")
        .isEqualTo(ActionsReporter.MAX_SUMMARY_BYTES - 37);
  }
}
