package dev.countersign.cli;

import dev.countersign.action.ActionInputs;
import dev.countersign.action.Reporter;
import dev.countersign.support.problems.UsageProblem;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The GitHub Action's entry point ({@code args: [action]} in action.yml): runs the subcommand named
 * by the {@code command} input with the options the other {@code INPUT_*} variables map to (one
 * table, {@link ActionInputs}), in this process, so the Action and the CLI share one code path and
 * secrets never appear on a command line.
 */
@Command(
    name = "action",
    mixinStandardHelpOptions = true,
    hidden = true,
    description =
        "Run as the GitHub Action: the `command` input (run, check, promote, doctor or publish)"
            + " with options from INPUT_* variables.")
final class ActionCommand extends Subcommand {

  /** Subcommands the Action may run. */
  static final List<String> COMMANDS = List.of("run", "check", "promote", "doctor", "publish");

  @Override
  int call(Runtime runtime) {
    Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), runtime.err());
    // Before anything else is printed: the runner hides only what it has been told to.
    ActionInputs.masks(runtime.env()).forEach(reporter::mask);
    String command =
        ActionInputs.read(runtime.env(), ActionInputs.COMMAND).orElse(ActionInputs.DEFAULT_COMMAND);
    // A command line of its own: the one that started `action` holds no other subcommand.
    CommandLine commandLine = RootCommand.commandLine(runtime, command);
    CommandLine sub = commandLine.getSubcommands().get(command);
    if (sub == null || !COMMANDS.contains(command)) {
      throw new UsageProblem(
          "Unknown command \"" + command + "\" in the Action's `command` input",
          "use one of " + COMMANDS);
    }
    CommandLine.Model.CommandSpec subSpec = sub.getCommandSpec();
    for (String ignored :
        ActionInputs.ignoredInputs(runtime.env(), option -> subSpec.findOption(option) != null)) {
      reporter.warning("Input " + ignored + " has no effect on command " + command);
    }
    List<String> args =
        ActionInputs.arguments(
            runtime.env(), command, option -> subSpec.findOption(option) != null);
    // The workflow author wrote inputs, not options: a value the command cannot take is reported
    // against its input, as one annotation, instead of the command's usage text.
    commandLine.setParameterExceptionHandler(
        (problem, arguments) ->
            new ProblemHandler(runtime).report(inputProblem(command, problem), false));
    // So is a value the command refuses once it has parsed it (--parallel 2000, a --dir without a
    // colon): its message names the option, and the input that set it is put in front.
    ProblemHandler problems = new ProblemHandler(runtime);
    commandLine.setExecutionExceptionHandler(
        (exception, line, parsed) ->
            problems.handleExecutionException(
                exception instanceof UsageProblem usage ? inInputTerms(usage, args) : exception,
                line,
                parsed));
    return commandLine.execute(args.toArray(String[]::new));
  }

  /**
   * {@code problem} with "Input NAME: " in front when its message names an option that an input set
   * (the first such option in the message); else {@code problem} itself.
   */
  static UsageProblem inInputTerms(UsageProblem problem, List<String> args) {
    String message = problem.getMessage();
    int first = Integer.MAX_VALUE;
    String input = null;
    for (String arg : args) {
      if (!arg.startsWith("--")) {
        continue;
      }
      String option = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      Matcher named =
          Pattern.compile("(?<![\\w-])" + Pattern.quote(option) + "(?![\\w-])").matcher(message);
      Optional<String> setting = ActionInputs.inputSetting(option);
      if (setting.isPresent() && named.find() && named.start() < first) {
        first = named.start();
        input = setting.get();
      }
    }
    return input == null
        ? problem
        : new UsageProblem(
            "Input " + input + ": " + message, problem.hint().orElse(null), problem.getCause());
  }

  /** {@code problem} said in terms of the inputs that set the options it names. */
  private static UsageProblem inputProblem(String command, CommandLine.ParameterException problem) {
    String hint =
        "see the inputs in action.yml, and `countersign "
            + command
            + " --help` for the options they set";
    if (problem instanceof CommandLine.MissingParameterException missing) {
      List<String> inputs =
          missing.getMissing().stream()
              .map(ActionCommand::optionName)
              .flatMap(Optional::stream)
              .map(option -> ActionInputs.inputSetting(option).orElse(option))
              .toList();
      if (!inputs.isEmpty()) {
        return new UsageProblem(
            "Command "
                + command
                + (inputs.size() == 1 ? " needs input " : " needs inputs ")
                + inputs.stream().map(name -> '"' + name + '"').collect(Collectors.joining(", ")),
            hint);
      }
    }
    CommandLine.Model.ArgSpec given =
        problem instanceof CommandLine.OverwrittenOptionException twice
            ? twice.getOverwritten()
            : problem.getArgSpec();
    Optional<String> input = optionName(given).flatMap(ActionInputs::inputSetting);
    return new UsageProblem(
        input.map(name -> "Input " + name + ": ").orElse("") + problem.getMessage(), hint);
  }

  private static Optional<String> optionName(CommandLine.Model.ArgSpec spec) {
    return spec instanceof CommandLine.Model.OptionSpec option
        ? Optional.of(option.longestName())
        : Optional.empty();
  }
}
