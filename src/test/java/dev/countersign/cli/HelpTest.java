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

  private static picocli.CommandLine commandLine(String... args) {
    return RootCommand.commandLine(
        Runtime.of(
            dev.countersign.support.Env.empty(),
            java.time.Clock.systemUTC(),
            new java.io.PrintWriter(java.io.Writer.nullWriter()),
            new java.io.PrintWriter(java.io.Writer.nullWriter())),
        args);
  }

  /**
   * A start builds only the invoked subcommand's model; what it prints and accepts must be what the
   * full tree (no arguments) has for that subcommand, inherited {@code --stacktrace} included.
   */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "run", "action", "sign", "verify", "check", "init", "keygen", "promote", "doctor", "publish"
      })
  void invokedCommandAlone_hasTheFullTreesModel(String command) {
    picocli.CommandLine lean = commandLine("--stacktrace", command, "--help");
    assertThat(lean.getSubcommands()).containsOnlyKeys(command);
    picocli.CommandLine full = commandLine().getSubcommands().get(command);
    picocli.CommandLine alone = lean.getSubcommands().get(command);
    assertThat(alone.getUsageMessage()).isEqualTo(full.getUsageMessage());
    assertThat(alone.getCommandSpec().findOption("--stacktrace")).isNotNull();
    assertThat(alone.getCommandSpec().options()).hasSameSizeAs(full.getCommandSpec().options());
  }

  /** Help, an unknown command or option and no arguments list every command. */
  @ParameterizedTest
  @ValueSource(strings = {"help", "no-such-command", "--no-such-option", "--help", "@args"})
  void anythingButAKnownCommand_getsTheFullTree(String first) {
    assertThat(commandLine(first, "run").getSubcommands()).hasSize(11).containsKey("help");
    assertThat(commandLine().getSubcommands()).hasSize(11);
  }

  @Test
  void versionAlone_needsNoSubcommand() {
    assertThat(commandLine("--version").getSubcommands()).isEmpty();
    assertThat(commandLine("--version", "run").getSubcommands()).hasSize(11);
  }

  /** A misspelt command is suggested from the full tree. */
  @Test
  void misspeltCommand_isAUsageErrorSuggestingTheCommand() {
    CliRun run = CliRun.run(Map.of(), "chek", "--base", "main");
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Unmatched argument").contains("countersign check");
  }
}
