package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.pipeline.ReconcileResult;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import dev.countersign.signing.SignReport;
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

    SignReport.Entry a = new SignReport.Entry(Path.of("unsigned/a.yaml"), Path.of("signed/a.yaml"),
        SignReport.Outcome.SIGNED, "sha256:aa", Optional.of("https://github.com/o/r/.github/workflows/s.yml@refs/heads/main"),
        Optional.of(1001L), Optional.empty());

    ReconcileReport.publish(reporter, refused, Map.of("signed/a.yaml", a));

    assertThat(Files.readString(tmp.resolve("out")))
        .isEqualTo("result=refused\n"
            + "signed-files<<ghadelimiter_u\nsigned/a.yaml\nsigned/b.yaml\nghadelimiter_u\n"
            + "commit-sha=abc123\n");
    assertThat(log.toString())
        .isEqualTo("::warning::The remote refused the push: protected branch hook declined%0Aremote: error: GH006:"
            + " Protected branch update failed\n");
    assertThat(Files.readString(tmp.resolve("sum")))
        .isEqualTo("### countersign: refused\n\nprotected branch hook declined\n\n"
            + "| manifest | result | message digest | signer | Rekor log index |\n| --- | --- | --- | --- | --- |\n"
            + "| signed/a.yaml | signed | sha256:aa | https://github.com/o/r/.github/workflows/s.yml@refs/heads/main | 1001 |\n"
            + "| signed/b.yaml | signed |  |  |  |\n"
            + "| signed/c.yaml | signature unchanged |  |  |  |\n\nCommit: `abc123`\n");
  }

  @Test
  void publish_noop_hasEmptyListsAndNoTable() throws Exception {
    ActionsReporter reporter =
        new ActionsReporter(new PrintWriter(new StringWriter()), Optional.of(tmp.resolve("out")), Optional.of(tmp.resolve("sum")), () -> "u");

    ReconcileReport.publish(reporter, new ReconcileResult(ReconcileResult.Outcome.NOOP, List.of(), List.of(), Optional.empty(), "no manifests under unsigned/ at abc", 0));

    assertThat(Files.readString(tmp.resolve("out"))).isEqualTo("result=noop\nsigned-files=\ncommit-sha=\n");
    assertThat(Files.readString(tmp.resolve("sum"))).isEqualTo("### countersign: noop\n\nno manifests under unsigned/ at abc\n\n");
  }
}
