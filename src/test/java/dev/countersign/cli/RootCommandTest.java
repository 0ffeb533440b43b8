package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

class RootCommandTest {

  @Test
  void subcommandsByName_nameEachCommandAsItsAnnotationDoes() {
    Map<String, Class<?>> byName = RootCommand.subcommandsByName();

    assertThat(byName).hasSize(11);
    byName.forEach(
        (name, type) -> assertThat(type.getAnnotation(Command.class).name()).isEqualTo(name));
  }

  @Test
  void invokedSubcommand_isTheFirstNameAfterStacktraceAndNeverHelp() {
    assertThat(RootCommand.invokedSubcommand("--stacktrace", "run", "--dry-run"))
        .contains(RunCommand.class);
    assertThat(RootCommand.invokedSubcommand("action")).contains(ActionCommand.class);
    assertThat(RootCommand.invokedSubcommand("help", "run")).isEmpty();
    assertThat(RootCommand.invokedSubcommand("--version")).isEmpty();
    assertThat(RootCommand.invokedSubcommand()).isEmpty();
  }
}
