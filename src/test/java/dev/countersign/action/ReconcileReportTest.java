package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.pipeline.ReconcileResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcileReportTest {

  @TempDir Path tmp;

  @Test
  void publish_refusedResult_setsOutputsWarnsAndSummarises() throws Exception {
    StringWriter log = new StringWriter();
    ActionsReporter reporter =
        new ActionsReporter(new PrintWriter(log), Optional.of(tmp.resolve("out")), Optional.of(tmp.resolve("sum")), () -> "u");
    ReconcileResult refused =
        new ReconcileResult(
            ReconcileResult.Outcome.REFUSED, List.of("signed/a.yaml", "signed/b.yaml"), List.of("signed/c.yaml"),
            Optional.of("abc123"), "protected branch hook declined\nremote: error: GH006: Protected branch update failed", 1);

    ReconcileReport.publish(reporter, refused);

    assertThat(Files.readString(tmp.resolve("out")))
        .isEqualTo("result=refused\n"
            + "signed<<ghadelimiter_u\nsigned/a.yaml\nsigned/b.yaml\nghadelimiter_u\n"
            + "commit_sha=abc123\n");
    assertThat(log.toString())
        .isEqualTo("::warning::The remote refused the push: protected branch hook declined%0Aremote: error: GH006:"
            + " Protected branch update failed\n");
    assertThat(Files.readString(tmp.resolve("sum")))
        .isEqualTo("### countersign: refused\n\nprotected branch hook declined\n\n"
            + "| manifest | result |\n| --- | --- |\n| signed/a.yaml | signed |\n| signed/b.yaml | signed |\n"
            + "| signed/c.yaml | signature unchanged |\n\nCommit: `abc123`\n");
  }

  @Test
  void publish_noop_hasEmptyListsAndNoTable() throws Exception {
    ActionsReporter reporter =
        new ActionsReporter(new PrintWriter(new StringWriter()), Optional.of(tmp.resolve("out")), Optional.of(tmp.resolve("sum")), () -> "u");

    ReconcileReport.publish(reporter, new ReconcileResult(ReconcileResult.Outcome.NOOP, List.of(), List.of(), Optional.empty(), "no manifests under unsigned/ at abc", 0));

    assertThat(Files.readString(tmp.resolve("out"))).isEqualTo("result=noop\nsigned=\ncommit_sha=\n");
    assertThat(Files.readString(tmp.resolve("sum"))).isEqualTo("### countersign: noop\n\nno manifests under unsigned/ at abc\n\n");
  }
}
