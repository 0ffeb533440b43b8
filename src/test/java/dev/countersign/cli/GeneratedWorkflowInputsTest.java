package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.action.ActionInputs;
import dev.countersign.init.InitOptions;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.support.Env;
import dev.countersign.workflow.WorkflowFile;
import dev.countersign.workflow.Workflows;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every countersign step in the generated workflows and in workflows-examples/ becomes, through the
 * Action's input mapping, a command line the command accepts: no missing required option (the old
 * promote.yml had no --from/--to), no input the command ignores, no option that does not exist.
 */
class GeneratedWorkflowInputsTest {

  @Test
  void everyCountersignStep_parsesAsItsCommand() throws Exception {
    List<WorkflowFile> workflows = new ArrayList<>();
    for (Map.Entry<Path, String> file :
        new RepositoryInitializer()
            .render(InitOptions.of("acme", "deploy", "main").withPromotion(true))
            .entrySet()) {
      if (file.getKey().startsWith(Workflows.DIRECTORY)) {
        workflows.add(Workflows.parse(file.getValue(), file.getKey()));
      }
    }
    try (Stream<Path> examples = Files.list(Path.of("workflows-examples"))) {
      for (Path path : examples.filter(p -> p.toString().endsWith(".yml")).sorted().toList()) {
        workflows.add(Workflows.parse(Files.readString(path), path));
      }
    }
    workflows.addAll(documentedWorkflows());
    assertThat(workflows)
        .extracting(WorkflowFile::fileName)
        .contains("promote.yml", "sign-and-publish-oci.yml", "README.md", "github-token.md");

    int steps = 0;
    for (WorkflowFile workflow : workflows) {
      for (WorkflowFile.CountersignStep step : workflow.countersignSteps()) {
        steps++;
        Map<String, String> env = new HashMap<>();
        step.with()
            .forEach(
                (name, value) ->
                    env.put(
                        "INPUT_" + name.toUpperCase(Locale.ROOT),
                        value.contains("${{") ? "expression-value" : value));
        CommandLine root =
            RootCommand.commandLine(
                Runtime.of(
                    Env.of(env),
                    Clock.systemUTC(),
                    new PrintWriter(Writer.nullWriter()),
                    new PrintWriter(Writer.nullWriter())));
        CommandLine command = root.getSubcommands().get(step.command());
        assertThat(command).as(workflow.file() + ": command " + step.command()).isNotNull();
        var spec = command.getCommandSpec();
        List<String> ignored =
            ActionInputs.ignoredInputs(Env.of(env), option -> spec.findOption(option) != null)
                .stream()
                .filter(name -> !name.equals(ActionInputs.COMMAND))
                .toList();
        assertThat(ignored)
            .as(workflow.file() + ":" + step.line() + " inputs the command ignores")
            .isEmpty();
        List<String> args =
            ActionInputs.arguments(
                Env.of(env), step.command(), option -> spec.findOption(option) != null);
        // Throws on a missing required option or an unknown one.
        root.parseArgs(args.toArray(String[]::new));
      }
    }
    assertThat(steps).isGreaterThanOrEqualTo(10);
  }

  /** The workflow snippets in README.md and docs/*.md that use the Action, one per YAML block. */
  private static List<WorkflowFile> documentedWorkflows() throws Exception {
    List<Path> documents = new ArrayList<>(List.of(Path.of("README.md")));
    try (Stream<Path> docs = Files.list(Path.of("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    List<WorkflowFile> workflows = new ArrayList<>();
    Matcher block = Pattern.compile("(?s)```yaml\n(.*?)```").matcher("");
    for (Path document : documents) {
      block.reset(Files.readString(document));
      while (block.find()) {
        if (block.group(1).contains("uses: countersign/countersign@")) {
          workflows.add(Workflows.parse(block.group(1), document));
        }
      }
    }
    return workflows;
  }

  /**
   * Every row of the input table sets an option that some command the Action runs has, taking what
   * the row's kind gives it: a flag takes no value, a list input one value per line to a repeatable
   * option, a value input exactly one. A row with a mistyped option would otherwise be dropped as
   * "ignored".
   */
  @Test
  void everyInput_setsAnOptionOfItsKind() {
    CommandLine root =
        RootCommand.commandLine(
            Runtime.of(
                Env.empty(),
                Clock.systemUTC(),
                new PrintWriter(Writer.nullWriter()),
                new PrintWriter(Writer.nullWriter())));
    for (ActionInputs.Input input : ActionInputs.all()) {
      List<CommandLine.Model.OptionSpec> options =
          ActionCommand.COMMANDS.stream()
              .map(name -> root.getSubcommands().get(name).getCommandSpec())
              .map(command -> command.findOption(input.option()))
              .filter(java.util.Objects::nonNull)
              .toList();
      assertThat(options).as(input.name() + " sets " + input.option()).isNotEmpty();
      for (CommandLine.Model.OptionSpec option : options) {
        String what = input.name() + " sets " + option.longestName() + " of " + option.command();
        switch (input.kind()) {
          case FLAG -> assertThat(option.arity().max()).as(what).isZero();
          // One line each; where a command takes one value, a second line is its usage error.
          case LINES -> assertThat(option.arity().min()).as(what).isEqualTo(1);
          case VALUE, TEXT -> {
            assertThat(option.arity().min()).as(what).isEqualTo(1);
            assertThat(option.isMultiValue()).as(what).isFalse();
          }
        }
      }
      if (input.kind() == ActionInputs.Kind.LINES) {
        assertThat(options)
            .as(input.name() + " is a list for some command")
            .anyMatch(CommandLine.Model.OptionSpec::isMultiValue);
      }
    }
  }
}
