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
   * @throws UsageProblem when {@code chosen} is below 1
   */
  public Parallelism {
    if (chosen.isPresent() && chosen.getAsInt() < 1) {
      throw new UsageProblem(
          "--parallel " + chosen.getAsInt() + " lets no signature be made",
          ", perhaps you should pass a number from 1 up, or leave it out");
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
