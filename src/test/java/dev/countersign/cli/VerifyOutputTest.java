package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What {@code verify} prints is one line per document, whatever the documents hold. */
class VerifyOutputTest {

  @TempDir Path work;
  @TempDir Path scratch;
  private GateRepository repo;

  @BeforeEach
  void setUp() {
    repo = GateRepository.create(work, scratch);
  }

  private CliRun verify(String relative) {
    return CliRun.run(
        Map.of(),
        "verify",
        "--key",
        work.resolve(".countersign/cosign.pub").toString(),
        work.resolve(relative).toString());
  }

  @Test
  void plainObjectName_isPrintedAsItIs() {
    CliRun run = verify("signed/app/config.yaml");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).startsWith("PASS ").contains(" ConfigMap/");
  }

  @Test
  void objectNameWithNewlines_cannotForgeAPassLineOrACommand() {
    repo.write(
        "unsigned/app/forged.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n"
            + "  name: \"x\\n::error::pwned\\nPASS signed/app/forged.yaml:4 ConfigMap/x\"\n"
            + "data:\n  a: b\n");

    CliRun run = verify("unsigned/app/forged.yaml");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out().lines())
        .hasSize(2)
        .noneMatch(line -> line.startsWith("PASS") || line.startsWith("::"));
    assertThat(run.out()).contains("ConfigMap/x\\n::error::pwned\\nPASS");
  }

  @Test
  void manyFilesVerifiedInParallel_printWhatEachFileAloneDoes_inPathOrder() {
    int files = 40;
    for (int i = 0; i < files; i++) {
      repo.sign(
          String.format("many/cm-%02d.yaml", i),
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + i + "\ndata:\n  a: b\n");
    }
    for (int i = 0; i < files; i += 7) {
      String edited = String.format("signed/many/cm-%02d.yaml", i);
      repo.write(edited, repo.read(edited).replace("a: b", "a: edited"));
    }

    CliRun together = verify("signed/many");

    assertThat(together.exitCode()).as(together.all()).isEqualTo(ExitCode.REJECTED.code());
    List<String> oneByOne = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      CliRun alone = verify(String.format("signed/many/cm-%02d.yaml", i));
      oneByOne.addAll(alone.out().lines().filter(line -> !line.contains(" verified, ")).toList());
    }
    assertThat(oneByOne).hasSize(files).filteredOn(line -> line.startsWith("FAIL ")).hasSize(6);
    assertThat(together.out().lines().filter(line -> !line.contains(" verified, ")))
        .containsExactlyElementsOf(oneByOne);
    assertThat(together.out()).contains("34 verified, 6 rejected");
  }

  @Test
  void minSigners_asManyAsTheKeysGiven_isAccepted_butMoreCanNeverBeMet_andIsAUsageError() {
    String key = work.resolve(".countersign/cosign.pub").toString();
    String file = work.resolve("signed/app/config.yaml").toString();

    CliRun one = CliRun.run(Map.of(), "verify", "--key", key, "--min-signers", "1", file);
    assertThat(one.exitCode()).as(one.all()).isZero();

    // One key counts once however often it signed: two can never be met, so say so up front.
    CliRun two = CliRun.run(Map.of(), "verify", "--key", key, "--min-signers", "2", file);
    assertThat(two.exitCode()).as(two.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(two.err())
        .contains("--min-signers 2 cannot be met: each --key and the identity count once, and 1")
        .contains("Distinct signers");
  }
}
