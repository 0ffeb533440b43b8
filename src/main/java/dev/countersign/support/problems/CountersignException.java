package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;
import java.util.Optional;

/**
 * A failure that stops a command and maps to an {@link ExitCode}. The message says what failed
 * while doing what; the hint, when present, says what the user could do about it.
 *
 * <p>A rejected verification is not an exception: it is a result. Exceptions mean "could not
 * decide".
 */
public abstract sealed class CountersignException extends RuntimeException
    permits UsageProblem, EnvironmentProblem, RemoteProblem, InputProblem, InternalProblem {

  private final String hint;

  protected CountersignException(String message, String hint, Throwable cause) {
    super(message, cause);
    this.hint = hint;
  }

  public abstract ExitCode exitCode();

  public Optional<String> hint() {
    return Optional.ofNullable(hint);
  }
}
