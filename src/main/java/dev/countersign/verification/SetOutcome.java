package dev.countersign.verification;

import java.util.Optional;

/** What one signature set proved: a verified signer name, or why it proves nothing. */
record SetOutcome(int index, Optional<String> signer, String reason) {

  static SetOutcome verified(int index, String signer) {
    return new SetOutcome(index, Optional.of(signer), "");
  }

  static SetOutcome rejected(int index, String reason) {
    return new SetOutcome(index, Optional.empty(), reason);
  }

  String describe() {
    return "signature set " + index + ": " + signer.map(s -> "signed by " + s).orElse(reason);
  }
}
