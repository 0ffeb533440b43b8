package dev.countersign.signing;

import dev.countersign.support.problems.UsageProblem;
import java.util.OptionalInt;

/**
 * How many signatures a sign job keeps in flight at once: the number the user chose ({@code
 * --parallel}), or else what the signer suggests for the services it waits on ({@link
 * MessageSigner#suggestedInFlight}: 32 against Sigstore's shared log, 128 against one's own).
 *
 * @param chosen the user's number; empty to let the signer decide
 */
public record Parallelism(OptionalInt chosen) {

  /** No number chosen: the signer's suggestion. */
  public static final Parallelism SIGNERS_CHOICE = new Parallelism(OptionalInt.empty());

  /**
   * The most signatures in flight a user may ask for. Each is a thread of its own: far more than
   * this gains nothing against any log (500 manifests at 150 ms per round trip take one round at
   * 512) and costs ~100 KB of stack each; {@code --parallel 100000} over a few thousand files took
   * 600 MB, and under a limit on processes ({@code ulimit -u}, a container's pids limit) ended in
   * an OutOfMemoryError (unable to create native thread) reported as a bug.
   */
  public static final int MAX_IN_FLIGHT = 1024;

  /**
   * @throws UsageProblem when {@code chosen} is below 1 or above {@link #MAX_IN_FLIGHT}
   */
  public Parallelism {
    if (chosen.isPresent() && chosen.getAsInt() < 1) {
      throw new UsageProblem(
          "--parallel " + chosen.getAsInt() + " lets no signature be made",
          ", perhaps you should pass a number from 1 to " + MAX_IN_FLIGHT + ", or leave it out");
    }
    if (chosen.isPresent() && chosen.getAsInt() > MAX_IN_FLIGHT) {
      throw new UsageProblem(
          "--parallel "
              + chosen.getAsInt()
              + " is more signatures in flight than countersign keeps (at most "
              + MAX_IN_FLIGHT
              + ")",
          ", perhaps you should pass a number from 1 to "
              + MAX_IN_FLIGHT
              + ", or leave it out (32 against Sigstore's public-good Rekor, 128 against your"
              + " own)");
    }
  }

  /** Exactly {@code inFlight} at once. */
  public static Parallelism of(int inFlight) {
    return new Parallelism(OptionalInt.of(inFlight));
  }

  /** The number of signatures in flight with {@code signer}. */
  int resolve(MessageSigner signer) {
    return chosen.isPresent() ? chosen.getAsInt() : signer.suggestedInFlight();
  }
}
