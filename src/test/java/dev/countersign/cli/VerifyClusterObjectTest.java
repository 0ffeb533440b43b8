package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify}: exact for files (as in a repository), Kyverno's tolerances, anchored, only for
 * objects read back from a cluster ({@code --cluster-object}). Real key, real signatures.
 */
class VerifyClusterObjectTest {

  @TempDir Path work;
  @TempDir Path scratch;
  private GateRepository repo;

  @BeforeEach
  void setUp() {
    repo = GateRepository.create(work, scratch);
  }

  private CliRun verify(String... extra) {
    String[] args = new String[extra.length + 4];
    args[0] = "verify";
    args[1] = "--key";
    args[2] = work.resolve(".countersign/cosign.pub").toString();
    System.arraycopy(extra, 0, args, 3, extra.length);
    args[args.length - 1] = work.resolve("signed/app/config.yaml").toString();
    return CliRun.run(Map.of(), args);
  }

  @Test
  void serverSetStatus_failsAsAFile_butPassesAsAClusterObject() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml") + "status:\n  observed: true\n");

    CliRun file = verify();
    CliRun clusterObject = verify("--cluster-object");

    assertThat(file.exitCode()).as(file.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(file.out()).contains("content differs from the signed message at status.observed");
    assertThat(clusterObject.exitCode()).as(clusterObject.all()).isZero();
  }

  @Test
  void configMapKeyContainingStatus_failsEvenAsAClusterObject() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml")
            .replace("  greeting: hello\n", "  greeting: hello\n  status: degraded-on-purpose\n"));

    CliRun clusterObject = verify("--cluster-object");

    assertThat(clusterObject.exitCode())
        .as(clusterObject.all())
        .isEqualTo(ExitCode.REJECTED.code());
    assertThat(clusterObject.out())
        .contains("data.status: signed nothing, found \"degraded-on-purpose\"");
  }

  @Test
  void ignoreFieldWithoutClusterObject_isAUsageError() {
    CliRun run = verify("--ignore-field", "data.greeting");

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("--ignore-field applies only to objects read back from a cluster");
  }

  @Test
  void jsonOutput_namesEachDocumentsFileLineObjectVerdictAndSigners_inThatOrder() throws Exception {
    CliRun run = verify("--output", "json");

    assertThat(run.exitCode()).as(run.all()).isZero();
    JsonNode rows = new ObjectMapper().readTree(run.out());
    assertThat(rows).hasSize(1);
    JsonNode row = rows.get(0);
    assertThat(row.fieldNames())
        .toIterable()
        .containsExactly("file", "document", "line", "object", "verified", "reason", "signers");
    assertThat(row.get("file").asText()).endsWith("config.yaml");
    assertThat(row.get("verified").asBoolean()).isTrue();
    assertThat(row.get("signers")).isNotEmpty();
  }
}
