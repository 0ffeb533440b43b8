package dev.countersign.verification;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The strict keyless check of one signature set (docs/design.md): the bundle's SET by a trusted
 * transparency log, the log entry binding this message, signature and certificate, the signature
 * itself, the Fulcio chain at log time, and the signer identity. Stateless apart from the trusted
 * root; thread-safe.
 */
final class KeylessSetVerifier {

  private static final ObjectMapper JSON = Json.mapper();
  private static final String CODE_SIGNING_EKU = "1.3.6.1.5.5.7.3.3";

  private final TrustedRoot trustedRoot;
  private final TransparencyLogProofs proofs;

  KeylessSetVerifier(TrustedRoot trustedRoot) {
    this.trustedRoot = trustedRoot;
    this.proofs = new TransparencyLogProofs(trustedRoot);
  }

  /**
   * @param identities the allowed signers; ignored when {@code anyIdentity}
   * @return when verified, the signer is the SAN and its entries are the {@link
   *     SignatureSetCheck#identityEntry} of every rule it matches
   */
  SetOutcome verify(
      byte[] message,
      SignatureSetAnnotations set,
      List<IdentityRule> identities,
      boolean anyIdentity) {
    int index = set.index();
    if (set.certificatePem().isEmpty()) {
      return SetOutcome.rejected(
          index,
          "has no certificate, so it is not a keyless signature (pass --key to verify keyed"
              + " signatures)");
    }
    if (set.bundle().isEmpty()) {
      return SetOutcome.rejected(
          index,
          "has a certificate but no bundle, so there is no transparency-log proof to verify it"
              + " offline");
    }
    RekorBundle bundle = set.bundle().get();
    Instant integratedTime = Instant.ofEpochSecond(bundle.integratedTime());

    X509Certificate leaf;
    try {
      leaf =
          FulcioCertificate.parseSinglePem(
              set.certificatePem().get(), "the certificate annotation");
    } catch (IllegalArgumentException e) {
      return SetOutcome.rejected(index, e.getMessage());
    }

    // (a) the SET, by a log the trusted root names, valid when the entry was integrated
    Optional<String> setProblem = checkSet(bundle);
    if (setProblem.isPresent()) {
      return SetOutcome.rejected(index, setProblem.get());
    }

    // (b) the logged entry binds this message, this signature string and this certificate
    Optional<String> bodyProblem = checkBody(bundle.body(), message, set.signatureBase64(), leaf);
    if (bodyProblem.isPresent()) {
      return SetOutcome.rejected(index, bodyProblem.get());
    }

    // (c) the signature itself; Kyverno trusts Rekor for this, we do not
    if (!EcdsaVerification.verifySha256(leaf.getPublicKey(), message, set.signature())) {
      return SetOutcome.rejected(
          index,
          "the signature does not verify with the certificate's key over the signed message");
    }

    // (d) issued by a trusted Fulcio CA, and valid, at the time the log saw it
    Optional<String> validity = FulcioCertificate.validityProblem(leaf, integratedTime);
    if (validity.isPresent()) {
      return SetOutcome.rejected(index, validity.get());
    }
    Optional<String> chainProblem = checkChain(leaf, integratedTime);
    if (chainProblem.isPresent()) {
      return SetOutcome.rejected(index, chainProblem.get());
    }
    try {
      List<String> eku = leaf.getExtendedKeyUsage();
      if (eku == null || !eku.contains(CODE_SIGNING_EKU)) {
        return SetOutcome.rejected(
            index, "the certificate is not for code signing (no codeSigning extended key usage)");
      }
    } catch (CertificateParsingException e) {
      return SetOutcome.rejected(index, "the certificate's extended key usage cannot be parsed");
    }

    // (e) one identity, and the issuer that vouched for it
    String san;
    try {
      san = FulcioCertificate.singleSubjectAlternativeName(leaf);
    } catch (IllegalArgumentException e) {
      return SetOutcome.rejected(index, "the certificate is rejected: " + e.getMessage());
    }
    Optional<String> issuer = FulcioCertificate.issuer(leaf);
    if (anyIdentity) {
      // No entry to count against: each identity is its own.
      return SetOutcome.verified(index, san, Set.of("any identity " + san));
    }

    // (f) the identity is one we allow. Fulcio certificates from 2021 (kubectl-sigstore's era)
    // carry no OIDC issuer extension: they match only a rule that accepts any issuer (a regular
    // expression matching the empty string), never an exact issuer the certificate cannot prove.
    String certificateIssuer = issuer.orElse("");
    Set<String> entries = new LinkedHashSet<>();
    for (int i = 0; i < identities.size(); i++) {
      if (identities.get(i).matches(san, certificateIssuer)) {
        entries.add(SignatureSetCheck.identityEntry(i));
      }
    }
    if (entries.isEmpty()) {
      if (issuer.isEmpty()) {
        return SetOutcome.rejected(
            index,
            "certificate SAN "
                + san
                + " has no OIDC issuer extension (1.3.6.1.4.1.57264.1.8 or .1.1), as Fulcio"
                + " certificates issued before 2022 do; it matches only an identity whose issuer is"
                + " a pattern accepting any issuer (--certificate-oidc-issuer-regexp '.*') or"
                + " --insecure-ignore-identity");
      }
      return SetOutcome.rejected(
          index,
          "certificate SAN "
              + san
              + " (issuer "
              + issuer.get()
              + ") does not match the allowed identities "
              + identities);
    }
    return SetOutcome.verified(index, san, entries);
  }

  /**
   * The transparency-log entry of a keyed signature set ({@code cosign sign-blob --key
   * --tlog-upload}): the SET verifies with a log of the trusted root, and the entry binds this
   * message, this signature string and {@code key}.
   *
   * @return why it does not, or empty when it does
   */
  Optional<String> checkKeyedLogEntry(byte[] message, SignatureSetAnnotations set, PublicKey key) {
    RekorBundle bundle = set.bundle().orElseThrow();
    Optional<String> setProblem = checkSet(bundle);
    if (setProblem.isPresent()) {
      return setProblem;
    }
    return checkEntry(
        bundle.body(),
        message,
        set.signatureBase64(),
        body -> {
          try {
            PublicKey logged = PublicKeys.parse(body.publicKeyPem(), Path.of("log entry"));
            return Arrays.equals(logged.getEncoded(), key.getEncoded())
                ? Optional.empty()
                : Optional.of(
                    "the log entry holds a different public key than the one that verified the"
                        + " signature");
          } catch (IllegalArgumentException | InputProblem e) {
            return Optional.of("the log entry's public key cannot be read");
          }
        });
  }

  /**
   * Whether {@code set}'s bundle proves when this signature over this message was logged: the SET
   * verifies with a log of the trusted root, valid at its integratedTime, and the entry binds the
   * message and the signature string. Who signed is not asked: that is the signature check's.
   *
   * @return why it does not, or empty when it does
   */
  Optional<String> checkLogged(byte[] message, SignatureSetAnnotations set) {
    if (set.bundle().isEmpty()) {
      return Optional.of("has no bundle");
    }
    RekorBundle bundle = set.bundle().get();
    return checkSet(bundle)
        .or(
            () ->
                checkEntry(
                    bundle.body(), message, set.signatureBase64(), body -> Optional.empty()));
  }

  private Optional<String> checkSet(RekorBundle bundle) {
    return proofs.checkSet(bundle);
  }

  private static Optional<String> checkBody(
      String body64, byte[] message, String signatureBase64, X509Certificate leaf) {
    return checkEntry(
        body64,
        message,
        signatureBase64,
        body -> {
          X509Certificate logged;
          try {
            logged =
                FulcioCertificate.parseSinglePem(body.publicKeyPem(), "the log entry's public key");
          } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
          }
          try {
            return Arrays.equals(logged.getEncoded(), leaf.getEncoded())
                ? Optional.empty()
                : Optional.of(
                    "the log entry holds a different certificate than the certificate annotation");
          } catch (CertificateEncodingException e) {
            return Optional.of("the certificate cannot be re-encoded");
          }
        });
  }

  /**
   * The log entry {@code body64} (keyed or keyless alike) binds this message and this signature
   * string, and {@code signerCheck} accepts the key or certificate it logged.
   *
   * @return why it does not, or empty when it does
   */
  private static Optional<String> checkEntry(
      String body64,
      byte[] message,
      String signatureBase64,
      Function<RekorEntryBody, Optional<String>> signerCheck) {
    RekorEntryBody body;
    try {
      body = RekorEntryBody.parseBase64(body64);
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
    // cosign 1.x uploaded keyed blob signatures as rekord entries: same binding, older shape.
    Optional<String> dataProblem = checkData(body, message);
    if (dataProblem.isPresent()) {
      return dataProblem;
    }
    if (!body.signatureBase64().equals(signatureBase64)) {
      return Optional.of("the log entry holds a different signature than the signature annotation");
    }
    if (body.kind().equals("rekord") && !body.signatureFormat().equals("x509")) {
      return Optional.of(
          "the log entry's signature format is " + body.signatureFormat() + ", expected x509");
    }
    return signerCheck.apply(body);
  }

  /** The entry's data binds this message: a sha256 hash, or (legacy rekord) the content itself. */
  private static Optional<String> checkData(RekorEntryBody body, byte[] message) {
    String expectedHash = Sha256.hex(message);
    if (body.hasHash()) {
      if (!body.hashAlgorithm().equals("sha256")) {
        return Optional.of(
            "the log entry hashes with " + body.hashAlgorithm() + ", expected sha256");
      }
      if (!body.hashValue().equalsIgnoreCase(expectedHash)) {
        return Optional.of(
            "the log entry is for a different message (sha256 "
                + body.hashValue()
                + ", the signed message has "
                + expectedHash
                + ")");
      }
      return Optional.empty();
    }
    if (body.content().isPresent()) {
      return Arrays.equals(body.content().get(), message)
          ? Optional.empty()
          : Optional.of("the log entry is for a different message");
    }
    return Optional.of("the log entry has no data hash");
  }

  private Optional<String> checkChain(X509Certificate leaf, Instant at) {
    try {
      FulcioCertificate.issuingAuthority(trustedRoot, leaf, at);
      return Optional.empty();
    } catch (IllegalArgumentException e) {
      return Optional.of(e.getMessage());
    }
  }
}
