package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** Bad flags, options or configuration. */
public final class UsageProblem extends CountersignException {

  public UsageProblem(String message) {
    this(message, null, null);
  }

  public UsageProblem(String message, String hint) {
    this(message, hint, null);
  }

  public UsageProblem(String message, String hint, Throwable cause) {
    super(message, hint, cause);
  }

  @Override
  public ExitCode exitCode() {
    return ExitCode.USAGE;
  }
}
