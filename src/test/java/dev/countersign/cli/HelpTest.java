package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class HelpTest {

  @Test
  void version_printsTheProjectVersion() {
    CliRun run = CliRun.run(Map.of(), "--version");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).matches("countersign \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?\\R");
  }

  @ParameterizedTest
  @ValueSource(strings = {"run", "sign", "verify", "check", "init", "keygen", "promote", "publish"})
  void everyCommand_hasHelp(String command) {
    CliRun run = CliRun.run(Map.of(), command, "--help");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("Usage: countersign " + command);
  }

  @Test
  void unknownOption_isAUsageError() {
    CliRun run = CliRun.run(Map.of(), "sign", "--no-such-option", "x");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unknown option: '--no-such-option'");
  }
}
