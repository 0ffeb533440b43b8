package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** Bad flags, options or configuration. Exit code {@link ExitCode#USAGE}. */
public final class UsageProblem extends CountersignException {

  public UsageProblem(String message, String hint) {
    this(message, hint, null);
  }

  public UsageProblem(String message, String hint, Throwable cause) {
    super(ExitCode.USAGE, message, hint, cause);
  }
}
