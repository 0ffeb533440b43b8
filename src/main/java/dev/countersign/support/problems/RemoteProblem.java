package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** A remote service failed; retrying may help. Exit code {@link ExitCode#REMOTE}. */
public final class RemoteProblem extends CountersignException {

  public RemoteProblem(String message, String hint) {
    this(message, hint, null);
  }

  public RemoteProblem(String message, String hint, Throwable cause) {
    super(ExitCode.REMOTE, message, hint, cause);
  }
}
