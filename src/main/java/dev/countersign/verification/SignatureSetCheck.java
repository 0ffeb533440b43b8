package dev.countersign.verification;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.problems.UsageProblem;
import java.security.PublicKey;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * One signature set against a trust policy, the same for manifests ({@link ManifestVerifier}) and
 * payloads ({@link PayloadSignatureVerifier}): a policy key that verifies the signature (and, with
 * a trusted root, the keyed set's log entry when it carries a bundle, or always when the policy
 * asks for {@linkplain TrustPolicy#keyedLogEntries keyed log entries}), else the keyless checks of
 * {@link KeylessSetVerifier} against the policy's identities. Thread-safe.
 */
final class SignatureSetCheck {

  private final TrustPolicy policy;
  private final List<PublicKey> keys;
  private final List<String> keyFingerprints;
  private final Optional<KeylessSetVerifier> keyless;

  /** Checks the log entries of keyed sets that carry a bundle; present with a trusted root. */
  private final Optional<KeylessSetVerifier> logEntries;

  /**
   * @param trustedRoot may be null when the policy names only keys and does not ask for their log
   *     entries
   * @throws UsageProblem when the policy names keyless identities or asks for keyed log entries,
   *     but there is no trusted root
   */
  SignatureSetCheck(TrustedRoot trustedRoot, TrustPolicy policy) {
    boolean wantsKeyless = !policy.identities().isEmpty() || policy.insecureIgnoreIdentity();
    if (wantsKeyless && trustedRoot == null) {
      throw new UsageProblem(
          "Keyless verification needs a Sigstore trusted root",
          ", perhaps you should pass --trusted-root FILE (a trusted_root.json), or let countersign"
              + " fetch the public-good root");
    }
    if (policy.keyedLogEntries() && trustedRoot == null) {
      throw new UsageProblem(
          "Checking the log entries of keyed signatures needs a Sigstore trusted root",
          ", perhaps you should pass --trusted-root FILE (a trusted_root.json), or let countersign"
              + " fetch the public-good root");
    }
    this.policy = policy;
    this.keys = policy.keys();
    this.keyFingerprints = keys.stream().map(PublicKeys::fingerprint).toList();
    KeylessSetVerifier verifier = trustedRoot == null ? null : new KeylessSetVerifier(trustedRoot);
    this.keyless = wantsKeyless ? Optional.of(verifier) : Optional.empty();
    this.logEntries = Optional.ofNullable(verifier);
  }

  TrustPolicy policy() {
    return policy;
  }

  /** The {@link DistinctSigners} entry of the policy's key {@code k}. */
  static String keyEntry(int k) {
    return "keys[" + k + "]";
  }

  /** The {@link DistinctSigners} entry of the policy's identity rule {@code i}. */
  static String identityEntry(int i) {
    return "signers[" + i + "]";
  }

  /**
   * The verified signer (key fingerprint or SAN) of {@code set} over {@code message}, or why not.
   */
  SetOutcome check(byte[] message, SignatureSetAnnotations set) {
    int index = set.index();
    if (set.problem().isPresent()) {
      return SetOutcome.rejected(index, set.problem().get());
    }
    for (int k = 0; k < keys.size(); k++) {
      if (EcdsaVerification.verifySha256(keys.get(k), message, set.signature())) {
        // A keyed set with a bundle was also logged; with a trusted root, the entry must hold up.
        boolean logged = set.bundle().isPresent() && set.certificatePem().isEmpty();
        if (logged && logEntries.isPresent()) {
          Optional<String> logProblem =
              logEntries.get().checkKeyedLogEntry(message, set, keys.get(k));
          if (logProblem.isPresent()) {
            return SetOutcome.rejected(index, logProblem.get());
          }
        } else if (policy.keyedLogEntries()) {
          return SetOutcome.rejected(
              index,
              "is a keyed signature without a transparency log entry of its own (a bundle"
                  + " annotation), and keyed signatures must be logged here");
        }
        // The first key that verifies names the signer, so every set by this key is one signer
        // even when the policy lists the key twice (another encoding); it satisfies both entries.
        Set<String> entries = new LinkedHashSet<>();
        entries.add(keyEntry(k));
        for (int other = k + 1; other < keys.size(); other++) {
          if (EcdsaVerification.verifySha256(keys.get(other), message, set.signature())) {
            entries.add(keyEntry(other));
          }
        }
        return SetOutcome.verified(index, keyFingerprints.get(k), entries);
      }
    }
    if (set.certificatePem().isPresent() && keyless.isPresent()) {
      return keyless
          .get()
          .verify(message, set, policy.identities(), policy.insecureIgnoreIdentity());
    }
    if (set.certificatePem().isPresent()) {
      return SetOutcome.rejected(
          index,
          "is a keyless signature, but no identity is trusted to verify it against (verify:"
              + " --certificate-identity and --certificate-oidc-issuer; check: signers in the"
              + " trust policy)");
    }
    if (keys.isEmpty()) {
      return SetOutcome.rejected(
          index,
          "is a keyed signature (no certificate), but no public key is trusted to verify it"
              + " (verify: --key; check: keys in the trust policy)");
    }
    return SetOutcome.rejected(
        index,
        "the signature does not verify with "
            + (keys.size() == 1
                ? "the key " + keyFingerprints.get(0)
                : "any of the keys " + keyFingerprints));
  }
}
