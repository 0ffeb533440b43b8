package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.action.WorkflowCommands;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InputProblem;
import java.io.PrintWriter;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine;

/**
 * Turns exceptions into one clear message on stderr and the exit code of their kind. Prints each
 * distinct message of the cause chain once; the stack trace only with {@code --stacktrace} or when
 * {@code RUNNER_DEBUG=1}.
 */
final class ProblemHandler implements CommandLine.IExecutionExceptionHandler {

  private final Runtime runtime;

  ProblemHandler(Runtime runtime) {
    this.runtime = runtime;
  }

  @Override
  public int handleExecutionException(
      Exception exception, CommandLine commandLine, CommandLine.ParseResult parseResult) {
    return report(exception, parseResult.hasMatchedOption("--stacktrace"));
  }

  /**
   * Prints {@code exception} (an annotation too in GitHub Actions) and returns its exit code; the
   * stack trace with {@code stacktrace} or RUNNER_DEBUG=1. Anything but a countersign problem,
   * including an {@link Error} that {@link Main#run} caught, is a bug: exit 5.
   */
  int report(Throwable exception, boolean stacktrace) {
    PrintWriter err = runtime.err();
    stacktrace = stacktrace || runtime.env().isTrue("RUNNER_DEBUG");
    int code;
    if (exception instanceof InputProblem inputs && runtime.env().inGitHubActions()) {
      // One annotation per bad manifest, on the file and line, in the pull request's diff view.
      Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), err);
      for (InputProblem each : inputs.all()) {
        Annotation at =
            each.line()
                .map(line -> Annotation.at(each.file().toString(), line))
                .orElseGet(() -> Annotation.at(each.file().toString()));
        reporter.error(
            each.getMessage() + each.hint().map(h -> " (" + h + ")").orElse(""),
            at.withTitle("invalid manifest"));
      }
      runtime.out().flush();
    } else if (exception instanceof CountersignException problem
        && runtime.env().inGitHubActions()) {
      // Any other problem (a service, git, the environment) also gets one annotation, so the
      // run's summary page says why the step failed, not only its log.
      Reporter.forEnvironment(runtime.env(), runtime.out(), err)
          .error(
              problem.getMessage() + problem.hint().map(h -> " (" + h + ")").orElse(""),
              Annotation.NONE.withTitle("countersign " + titleFor(problem)));
      runtime.out().flush();
    }
    if (exception instanceof InputProblem inputs && inputs.all().size() > 1) {
      for (InputProblem each : inputs.all()) {
        printLabelled(err, "error: ", each.getMessage());
        each.hint().ifPresent(hint -> printLabelled(err, "hint: ", hint));
      }
      code = inputs.exitCode().code();
    } else if (exception instanceof CountersignException problem) {
      printLabelled(err, "error: ", problem.getMessage());
      problem.hint().ifPresent(hint -> printLabelled(err, "hint: ", hint));
      if (!(problem instanceof InputProblem)) {
        // Input problems already say what is wrong in the file; for the rest (a service, git,
        // the environment) the underlying cause often names the real reason.
        printCauses(err, problem);
      }
      code = problem.exitCode().code();
    } else {
      // A StackOverflowError has no message: no ": null" then.
      printLabelled(
          err,
          "error: ",
          "unexpected "
              + exception.getClass().getSimpleName()
              + (exception.getMessage() == null ? "" : ": " + exception.getMessage()));
      err.println(
          "hint: this is a bug in countersign; please report it with the output of --stacktrace");
      code = ExitCode.INTERNAL.code();
    }
    if (stacktrace) {
      exception.printStackTrace(err);
    }
    err.flush();
    return code;
  }

  /**
   * Prints a message that may span lines (exception messages quote file names, YAML and remote
   * answers): the first line after {@code label}, every further line after {@code " | "}, so no
   * line of it starts at column 0. In GitHub Actions the writer also neutralizes each line.
   */
  private static void printLabelled(PrintWriter err, String label, String message) {
    List<String> lines = WorkflowCommands.lines(String.valueOf(message));
    err.println(label + lines.get(0));
    for (String continuation : lines.subList(1, lines.size())) {
      err.println("  | " + continuation);
    }
  }

  private static String titleFor(CountersignException problem) {
    return switch (problem.exitCode()) {
      case REMOTE -> "remote service failed";
      case ENVIRONMENT -> "environment problem";
      case USAGE -> "usage problem";
      default -> "failed";
    };
  }

  private static void printCauses(PrintWriter err, Throwable top) {
    Set<String> seen = new LinkedHashSet<>();
    seen.add(String.valueOf(top.getMessage()));
    for (Throwable cause = top.getCause();
        cause != null && cause != cause.getCause();
        cause = cause.getCause()) {
      String message = cause.getMessage();
      if (message != null && seen.add(message)) {
        err.println("  caused by: " + message.lines().findFirst().orElse(""));
      }
    }
  }
}
