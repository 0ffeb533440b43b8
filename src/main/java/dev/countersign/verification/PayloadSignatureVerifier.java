package dev.countersign.verification;

import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Optional;

/**
 * Verifies one signature over an arbitrary payload (the simple-signing payload of an OCI artifact
 * signature) with the same rules as a manifest's signature set: keyed signatures by a policy key
 * (plus their log entry when they carry a bundle and a trusted root is given), keyless ones through
 * {@link KeylessSetVerifier} (SET, log entry binding, signature, Fulcio chain at log time,
 * code-signing EKU, identity). Thread-safe.
 */
public final class PayloadSignatureVerifier {

  /**
   * A verified signer name (SAN or key fingerprint), or why the signature proves nothing.
   *
   * @param signature what {@link DistinctSigners} counts, when verified
   */
  public record Outcome(Optional<DistinctSigners.Signature> signature, String reason) {
    public Optional<String> signer() {
      return signature.map(DistinctSigners.Signature::signer);
    }

    public boolean verified() {
      return signature.isPresent();
    }
  }

  private final SignatureSetCheck sets;

  /**
   * @param trustedRoot may be null when the policy names only keys
   * @throws UsageProblem as {@link ManifestVerifier} does for a policy that accepts anyone, or
   *     keyless identities without a trusted root
   */
  public PayloadSignatureVerifier(TrustedRoot trustedRoot, TrustPolicy policy) {
    if (policy.isUnconstrained()) {
      throw new UsageProblem(
          "Refusing to verify without an identity: any signer would be accepted",
          ", perhaps you should pass --certificate-identity and --certificate-oidc-issuer (or"
              + " --key)");
    }
    this.sets = new SignatureSetCheck(trustedRoot, policy);
  }

  /**
   * How many distinct signers the policy requires ({@link TrustPolicy#minSigners}), counted by
   * {@link DistinctSigners#counted} over the outcomes of {@link #verify}.
   */
  public int minSigners() {
    return sets.policy().minSigners();
  }

  /**
   * @param signatureBase64 the std-base64 DER signature as stored
   * @param certificatePem the leaf certificate PEM (keyless), if any
   * @param bundleJson cosign's RekorBundle JSON, if any
   */
  public Outcome verify(
      byte[] payload,
      String signatureBase64,
      Optional<String> certificatePem,
      Optional<String> bundleJson) {
    byte[] signature;
    RekorBundle bundle = null;
    try {
      signature = Base64.getDecoder().decode(signatureBase64);
    } catch (IllegalArgumentException e) {
      return new Outcome(Optional.empty(), "the signature is not base64");
    }
    if (bundleJson.isPresent()) {
      try {
        bundle = RekorBundle.parse(bundleJson.get().getBytes(StandardCharsets.UTF_8));
      } catch (IllegalArgumentException e) {
        return new Outcome(Optional.empty(), "the bundle cannot be read: " + e.getMessage());
      }
    }
    SignatureSetAnnotations set =
        new SignatureSetAnnotations(
            0,
            signatureBase64,
            signature,
            certificatePem.map(pem -> pem.getBytes(StandardCharsets.UTF_8)),
            Optional.ofNullable(bundle),
            Optional.empty());
    SetOutcome outcome = sets.check(payload, set);
    return new Outcome(outcome.signature(), outcome.reason());
  }
}
