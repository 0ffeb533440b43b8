package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** A bug: something that should not happen did. */
public final class InternalProblem extends CountersignException {

  public InternalProblem(String message) {
    this(message, null, null);
  }

  public InternalProblem(String message, String hint) {
    this(message, hint, null);
  }

  public InternalProblem(String message, String hint, Throwable cause) {
    super(message, hint, cause);
  }

  @Override
  public ExitCode exitCode() {
    return ExitCode.INTERNAL;
  }
}
