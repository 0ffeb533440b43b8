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
  @ValueSource(
      strings = {
        "run", "sign", "verify", "check", "init", "keygen", "promote", "doctor", "publish"
      })
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

  /** The command list shows each command's first description line: it must be a whole sentence. */
  @Test
  void commandSummaries_areWholeSentences() {
    picocli.CommandLine root =
        RootCommand.commandLine(
            Runtime.of(
                dev.countersign.support.Env.empty(),
                java.time.Clock.systemUTC(),
                new java.io.PrintWriter(java.io.Writer.nullWriter()),
                new java.io.PrintWriter(java.io.Writer.nullWriter())));
    root.getSubcommands()
        .forEach(
            (name, sub) -> {
              String[] description = sub.getCommandSpec().usageMessage().description();
              if (!name.equals("help") && description.length > 0) {
                assertThat(description[0]).as(name).endsWith(".");
              }
            });
  }
}
