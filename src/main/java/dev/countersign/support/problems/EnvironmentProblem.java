package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;

/**
 * The environment does not allow the command to run (missing token, not a repository...). Exit code
 * {@link ExitCode#ENVIRONMENT}.
 */
public final class EnvironmentProblem extends CountersignException {

  public EnvironmentProblem(String message, String hint) {
    this(message, hint, null);
  }

  public EnvironmentProblem(String message, String hint, Throwable cause) {
    super(ExitCode.ENVIRONMENT, message, hint, cause);
  }
}
