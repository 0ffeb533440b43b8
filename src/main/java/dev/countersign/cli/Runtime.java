package dev.countersign.cli;

import dev.countersign.signing.KeylessHeadStart;
import dev.countersign.support.Env;
import dev.countersign.support.Sleeper;
import java.io.PrintWriter;
import java.time.Clock;
import java.util.Optional;

/**
 * The effects a command may use, handed in by {@link Main} (or a test).
 *
 * @param env the process environment as data
 * @param clock the wall clock
 * @param out standard output
 * @param err standard error
 * @param interactive true when attached to a terminal (progress bars)
 * @param passwordPrompt asks the person at the terminal for a secret without echoing it
 * @param sleeper waits between retries (pushes, GitHub API calls); tests record instead
 * @param headStart the identity token request and key {@link Main} started with the process for a
 *     run that may sign keylessly; {@link KeylessHeadStart#NONE} elsewhere
 */
public record Runtime(
    Env env,
    Clock clock,
    PrintWriter out,
    PrintWriter err,
    boolean interactive,
    PasswordPrompt passwordPrompt,
    Sleeper sleeper,
    KeylessHeadStart headStart) {

  public Runtime(
      Env env,
      Clock clock,
      PrintWriter out,
      PrintWriter err,
      boolean interactive,
      PasswordPrompt passwordPrompt) {
    this(env, clock, out, err, interactive, passwordPrompt, Sleeper.real(), KeylessHeadStart.NONE);
  }

  /** Reads a secret from the terminal; empty when there is no terminal. */
  @FunctionalInterface
  public interface PasswordPrompt {
    Optional<char[]> ask(String prompt);

    PasswordPrompt NONE = prompt -> Optional.empty();
  }

  /** The same effects with other standard writers. */
  public Runtime withWriters(PrintWriter newOut, PrintWriter newErr) {
    return new Runtime(env, clock, newOut, newErr, interactive, passwordPrompt, sleeper, headStart);
  }

  /** The same effects with {@code headStart} as the keyless signer's head start. */
  public Runtime withKeylessHeadStart(KeylessHeadStart headStart) {
    return new Runtime(env, clock, out, err, interactive, passwordPrompt, sleeper, headStart);
  }

  /** A runtime for tests and embedding: no terminal. */
  public static Runtime of(Env env, Clock clock, PrintWriter out, PrintWriter err) {
    return new Runtime(env, clock, out, err, false, PasswordPrompt.NONE);
  }

  /** A runtime for tests whose waits go to {@code sleeper}. */
  public static Runtime of(
      Env env, Clock clock, PrintWriter out, PrintWriter err, Sleeper sleeper) {
    return new Runtime(
        env, clock, out, err, false, PasswordPrompt.NONE, sleeper, KeylessHeadStart.NONE);
  }
}
