package dev.countersign.verification;

import java.util.Optional;
import java.util.Set;

/**
 * What one signature set proved: a verified signer name and the policy entries it satisfies ({@link
 * DistinctSigners}), or why it proves nothing.
 */
record SetOutcome(int index, Optional<String> signer, Set<String> entries, String reason) {

  SetOutcome {
    entries = Set.copyOf(entries);
  }

  static SetOutcome verified(int index, String signer, Set<String> entries) {
    return new SetOutcome(index, Optional.of(signer), entries, "");
  }

  static SetOutcome rejected(int index, String reason) {
    return new SetOutcome(index, Optional.empty(), Set.of(), reason);
  }

  /** What {@link DistinctSigners} counts, when this set verified. */
  Optional<DistinctSigners.Signature> signature() {
    return signer.map(s -> new DistinctSigners.Signature(s, entries));
  }

  String describe() {
    return "signature set " + index + ": " + signer.map(s -> "signed by " + s).orElse(reason);
  }
}
