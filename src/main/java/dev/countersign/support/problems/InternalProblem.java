package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** A bug: something that should not happen did. Exit code {@link ExitCode#INTERNAL}. */
public final class InternalProblem extends CountersignException {

  public InternalProblem(String message) {
    this(message, null, null);
  }

  public InternalProblem(String message, String hint, Throwable cause) {
    super(ExitCode.INTERNAL, message, hint, cause);
  }
}
