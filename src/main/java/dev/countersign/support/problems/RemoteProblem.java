package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/** A remote service failed; retrying may help. */
public final class RemoteProblem extends CountersignException {

  public RemoteProblem(String message) {
    this(message, null, null);
  }

  public RemoteProblem(String message, String hint) {
    this(message, hint, null);
  }

  public RemoteProblem(String message, String hint, Throwable cause) {
    super(message, hint, cause);
  }

  @Override
  public ExitCode exitCode() {
    return ExitCode.REMOTE;
  }
}
