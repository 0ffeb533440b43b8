package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;
import java.util.Optional;

/**
 * A failure that stops a command and maps to an {@link ExitCode}. The message says what failed
 * while doing what; the hint, when present, says what the user could do about it.
 *
 * <p>Each subclass fixes its exit code once, through this constructor; the family is sealed so the
 * exit codes stay the README's table. Problems the user can act on (usage, environment, remote) are
 * built with a hint argument, {@code null} only where there is nothing to suggest.
 *
 * <p>A rejected verification is not an exception: it is a result. Exceptions mean "could not
 * decide".
 */
public abstract sealed class CountersignException extends RuntimeException
    permits UsageProblem, EnvironmentProblem, RemoteProblem, InputProblem, InternalProblem {

  private final ExitCode exitCode;
  private final String hint;

  /**
   * @param hint "perhaps you should …", or {@code null}; stored as {@link Hints#text} (a leading
   *     comma is dropped)
   */
  protected CountersignException(ExitCode exitCode, String message, String hint, Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
    this.hint = Hints.text(hint);
  }

  public final ExitCode exitCode() {
    return exitCode;
  }

  /** The hint as it reads alone ("perhaps you should …"), if there is one. */
  public final Optional<String> hint() {
    return Optional.ofNullable(hint);
  }
}
