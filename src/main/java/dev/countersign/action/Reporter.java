package dev.countersign.action;

import dev.countersign.pipeline.Progress;
import dev.countersign.support.Env;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.UUID;

/**
 * What the user sees: progress lines, annotations, step outputs and the job summary. Inside GitHub
 * Actions it speaks workflow commands ({@link ActionsReporter}); elsewhere it prints plain lines
 * ({@link ConsoleReporter}). All output goes through the writers it is given.
 */
public interface Reporter extends Progress {

  /** Hides {@code secret} in all later log output; call before anything could print it. */
  void mask(String secret);

  void error(String message, Annotation at);

  void warning(String message, Annotation at);

  void notice(String message, Annotation at);

  @Override
  default void warning(String line) {
    warning(line, Annotation.NONE);
  }

  /** Sets a step output (ignored outside Actions). */
  void output(String name, String value);

  /** Appends Markdown to the job summary (ignored outside Actions). */
  void summary(String markdown);

  /**
   * The reporter for this environment: workflow commands when {@code GITHUB_ACTIONS=true}, with
   * outputs in {@code GITHUB_OUTPUT} and the summary in {@code GITHUB_STEP_SUMMARY}.
   */
  static Reporter forEnvironment(Env env, PrintWriter out, PrintWriter err) {
    if (env.inGitHubActions()) {
      return new ActionsReporter(
          out,
          env.get("GITHUB_OUTPUT").map(Path::of),
          env.get("GITHUB_STEP_SUMMARY").map(Path::of),
          () -> UUID.randomUUID().toString());
    }
    return new ConsoleReporter(out, err);
  }
}
