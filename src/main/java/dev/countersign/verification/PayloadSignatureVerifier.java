package dev.countersign.verification;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * Verifies one signature over an arbitrary payload (the simple-signing payload of an OCI artifact
 * signature) with the same rules as a manifest's signature set: keyed signatures by a policy key
 * (plus their log entry when they carry a bundle and a trusted root is given), keyless ones through
 * {@link KeylessSetVerifier} (SET, log entry binding, signature, Fulcio chain at log time,
 * code-signing EKU, identity). Thread-safe.
 */
public final class PayloadSignatureVerifier {

  /** A verified signer name (SAN or key fingerprint), or why the signature proves nothing. */
  public record Outcome(Optional<String> signer, String reason) {
    public boolean verified() {
      return signer.isPresent();
    }
  }

  private final TrustPolicy policy;
  private final Optional<KeylessSetVerifier> keyless;
  private final Optional<KeylessSetVerifier> logEntries;

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
    boolean wantsKeyless = !policy.identities().isEmpty() || policy.insecureIgnoreIdentity();
    if (wantsKeyless && trustedRoot == null) {
      throw new UsageProblem(
          "Keyless verification needs a Sigstore trusted root",
          ", perhaps you should pass --trusted-root FILE (a trusted_root.json), or let countersign"
              + " fetch the public-good root");
    }
    this.policy = policy;
    this.keyless =
        wantsKeyless ? Optional.of(new KeylessSetVerifier(trustedRoot)) : Optional.empty();
    this.logEntries =
        trustedRoot != null ? Optional.of(new KeylessSetVerifier(trustedRoot)) : Optional.empty();
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
    List<PublicKey> keys = policy.keys();
    for (PublicKey key : keys) {
      if (KeylessSetVerifier.signatureVerifies(key, payload, signature)) {
        if (bundle != null && certificatePem.isEmpty() && logEntries.isPresent()) {
          Optional<String> logProblem = logEntries.get().checkKeyedLogEntry(payload, set, key);
          if (logProblem.isPresent()) {
            return new Outcome(Optional.empty(), logProblem.get());
          }
        }
        return new Outcome(Optional.of(PublicKeys.fingerprint(key)), "");
      }
    }
    if (certificatePem.isPresent() && keyless.isPresent()) {
      SetOutcome outcome =
          keyless.get().verify(payload, set, policy.identities(), policy.insecureIgnoreIdentity());
      return new Outcome(outcome.signer(), outcome.reason());
    }
    if (certificatePem.isPresent()) {
      return new Outcome(
          Optional.empty(),
          "is a keyless signature, but no identity was given to verify it against"
              + " (pass --certificate-identity and --certificate-oidc-issuer)");
    }
    return new Outcome(
        Optional.empty(),
        keys.isEmpty()
            ? "is a keyed signature (no certificate), but no public key was given (pass --key)"
            : "the signature does not verify with the given key(s)");
  }

  /** The SAN and OIDC issuer of a Fulcio certificate, for naming a keyless signer. */
  public record CertificateIdentity(String subject, String issuer) {}

  /**
   * @throws IllegalArgumentException when {@code pem} is not one certificate with one SAN and an
   *     issuer extension
   */
  public static CertificateIdentity identityOf(String pem) {
    var leaf =
        FulcioCertificate.parseSinglePem(pem.getBytes(StandardCharsets.UTF_8), "the certificate");
    String san = FulcioCertificate.singleSubjectAlternativeName(leaf);
    String issuer =
        FulcioCertificate.issuer(leaf)
            .orElseThrow(
                () -> new IllegalArgumentException("the certificate has no OIDC issuer extension"));
    return new CertificateIdentity(san, issuer);
  }
}
