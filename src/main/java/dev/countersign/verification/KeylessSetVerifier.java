package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.Sha256;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateFactory;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The strict keyless check of one signature set (spec §8.5 step 6): the bundle's SET by a trusted
 * transparency log, the log entry binding this message, signature and certificate, the signature
 * itself, the Fulcio chain at log time, and the signer identity. Stateless apart from the trusted
 * root; thread-safe.
 */
final class KeylessSetVerifier {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String CODE_SIGNING_EKU = "1.3.6.1.5.5.7.3.3";

  private final TrustedRoot trustedRoot;

  KeylessSetVerifier(TrustedRoot trustedRoot) {
    this.trustedRoot = trustedRoot;
  }

  /**
   * @param identities the allowed signers; ignored when {@code anyIdentity}
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
    if (!signatureVerifies(leaf.getPublicKey(), message, set.signature())) {
      return SetOutcome.rejected(
          index,
          "the signature does not verify with the certificate's key over the signed message");
    }

    // (d) issued by a trusted Fulcio CA, and valid, at the time the log saw it
    if (integratedTime.isBefore(leaf.getNotBefore().toInstant())
        || integratedTime.isAfter(leaf.getNotAfter().toInstant())) {
      return SetOutcome.rejected(
          index,
          "the certificate was not valid at the entry's integratedTime "
              + integratedTime
              + " (valid "
              + leaf.getNotBefore().toInstant()
              + " to "
              + leaf.getNotAfter().toInstant()
              + ")");
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
    } catch (java.security.cert.CertificateParsingException e) {
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
      return SetOutcome.verified(index, san);
    }

    // (f) the identity is one we allow. Fulcio certificates from 2021 (kubectl-sigstore's era)
    // carry no OIDC issuer extension: they match only a rule that accepts any issuer (a regular
    // expression matching the empty string), never an exact issuer the certificate cannot prove.
    String certificateIssuer = issuer.orElse("");
    if (identities.stream().noneMatch(rule -> rule.matches(san, certificateIssuer))) {
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
    return SetOutcome.verified(index, san);
  }

  /**
   * The transparency-log entry of a keyed signature set ({@code cosign sign-blob --key
   * --tlog-upload}): the SET verifies with a log of the trusted root, and the entry binds this
   * message, this signature string and {@code key}.
   *
   * @return why it does not, or empty when it does
   */
  Optional<String> checkKeyedLogEntry(
      byte[] message, SignatureSetAnnotations set, java.security.PublicKey key) {
    RekorBundle bundle = set.bundle().orElseThrow();
    Optional<String> setProblem = checkSet(bundle);
    if (setProblem.isPresent()) {
      return setProblem;
    }
    JsonNode body;
    try {
      body = JSON.readTree(Base64.getDecoder().decode(bundle.body()));
    } catch (IllegalArgumentException | IOException e) {
      return Optional.of("the bundle's log entry body is not base64 JSON");
    }
    String kind = body.path("kind").asText();
    if (!(kind.equals("hashedrekord") || kind.equals("rekord"))
        || !body.path("apiVersion").asText().equals("0.0.1")) {
      return Optional.of("the log entry is not a hashedrekord (or legacy rekord) 0.0.1 entry");
    }
    // cosign 1.x uploaded keyed blob signatures as rekord entries: same binding, older shape.
    Optional<String> dataProblem = checkData(kind, body.path("spec").path("data"), message);
    if (dataProblem.isPresent()) {
      return dataProblem;
    }
    JsonNode signature = body.path("spec").path("signature");
    if (kind.equals("rekord") && !signature.path("format").asText("x509").equals("x509")) {
      return Optional.of(
          "the log entry's signature format is "
              + signature.path("format").asText()
              + ", expected x509");
    }
    if (!signature.path("content").asText().equals(set.signatureBase64())) {
      return Optional.of("the log entry holds a different signature than the signature annotation");
    }
    try {
      byte[] pem = Base64.getDecoder().decode(signature.path("publicKey").path("content").asText());
      java.security.PublicKey logged =
          dev.countersign.keys.PublicKeys.parse(pem, java.nio.file.Path.of("log entry"));
      if (!Arrays.equals(logged.getEncoded(), key.getEncoded())) {
        return Optional.of(
            "the log entry holds a different public key than the one that verified the signature");
      }
    } catch (IllegalArgumentException | dev.countersign.support.problems.InputProblem e) {
      return Optional.of("the log entry's public key cannot be read");
    }
    return Optional.empty();
  }

  /** The SET: signed by a transparency log the trusted root names, valid at integratedTime. */
  private Optional<String> checkSet(RekorBundle bundle) {
    Instant integratedTime = Instant.ofEpochSecond(bundle.integratedTime());
    Optional<TrustedRoot.TransparencyLogKey> log = trustedRoot.log(bundle.logId());
    if (log.isEmpty()) {
      return Optional.of(
          "bundle logID " + bundle.logId() + " is not a transparency log in the trusted root");
    }
    if (!log.get().validAt(integratedTime)) {
      return Optional.of(
          "the transparency log key "
              + bundle.logId()
              + " was not valid at the entry's integratedTime "
              + integratedTime);
    }
    byte[] set64;
    try {
      set64 = Base64.getDecoder().decode(bundle.signedEntryTimestamp());
    } catch (IllegalArgumentException e) {
      return Optional.of("the bundle's SignedEntryTimestamp is not base64");
    }
    if (!signatureVerifies(log.get().key(), SetCanonicalJson.of(bundle), set64)) {
      return Optional.of(
          "the bundle's signed entry timestamp does not verify with transparency log "
              + bundle.logId());
    }
    return Optional.empty();
  }

  private static Optional<String> checkBody(
      String body64, byte[] message, String signatureBase64, X509Certificate leaf) {
    JsonNode body;
    try {
      body = JSON.readTree(Base64.getDecoder().decode(body64));
    } catch (IllegalArgumentException | IOException e) {
      return Optional.of("the bundle's log entry body is not base64 JSON");
    }
    String kind = body.path("kind").asText();
    String apiVersion = body.path("apiVersion").asText();
    if (!(kind.equals("hashedrekord") || kind.equals("rekord")) || !apiVersion.equals("0.0.1")) {
      return Optional.of(
          "the log entry is of kind "
              + kind
              + " "
              + apiVersion
              + ", expected hashedrekord or rekord 0.0.1");
    }
    JsonNode spec = body.path("spec");
    Optional<String> dataProblem = checkData(kind, spec.path("data"), message);
    if (dataProblem.isPresent()) {
      return dataProblem;
    }
    JsonNode signature = spec.path("signature");
    if (!signature.path("content").asText().equals(signatureBase64)) {
      return Optional.of("the log entry holds a different signature than the signature annotation");
    }
    if (kind.equals("rekord") && !signature.path("format").asText("x509").equals("x509")) {
      return Optional.of(
          "the log entry's signature format is "
              + signature.path("format").asText()
              + ", expected x509");
    }
    X509Certificate logged;
    try {
      byte[] pem = Base64.getDecoder().decode(signature.path("publicKey").path("content").asText());
      logged = FulcioCertificate.parseSinglePem(pem, "the log entry's public key");
    } catch (IllegalArgumentException e) {
      return Optional.of(
          e.getMessage().startsWith("the log entry")
              ? e.getMessage()
              : "the log entry's public key is not base64");
    }
    try {
      if (!Arrays.equals(logged.getEncoded(), leaf.getEncoded())) {
        return Optional.of(
            "the log entry holds a different certificate than the certificate annotation");
      }
    } catch (java.security.cert.CertificateEncodingException e) {
      return Optional.of("the certificate cannot be re-encoded");
    }
    return Optional.empty();
  }

  /** The entry's data binds this message: a sha256 hash, or (legacy rekord) the content itself. */
  private static Optional<String> checkData(String kind, JsonNode data, byte[] message) {
    JsonNode hash = data.path("hash");
    String expectedHash = Sha256.hex(message);
    if (hash.isObject()) {
      if (!hash.path("algorithm").asText().equals("sha256")) {
        return Optional.of(
            "the log entry hashes with " + hash.path("algorithm").asText() + ", expected sha256");
      }
      if (!hash.path("value").asText().equalsIgnoreCase(expectedHash)) {
        return Optional.of(
            "the log entry is for a different message (sha256 "
                + hash.path("value").asText()
                + ", the signed message has "
                + expectedHash
                + ")");
      }
      return Optional.empty();
    }
    if (kind.equals("rekord") && data.path("content").isTextual()) {
      byte[] content;
      try {
        content = Base64.getDecoder().decode(data.path("content").asText());
      } catch (IllegalArgumentException e) {
        return Optional.of("the log entry's data content is not base64");
      }
      return Arrays.equals(content, message)
          ? Optional.empty()
          : Optional.of("the log entry is for a different message");
    }
    return Optional.of("the log entry has no data hash");
  }

  private Optional<String> checkChain(X509Certificate leaf, Instant at) {
    List<String> failures = new ArrayList<>();
    for (TrustedRoot.CertificateAuthority ca : trustedRoot.certificateAuthorities()) {
      if (!ca.validAt(at)) {
        continue;
      }
      try {
        List<X509Certificate> path = new ArrayList<>();
        path.add(leaf);
        path.addAll(ca.chain().subList(0, ca.chain().size() - 1));
        CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
        PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(ca.root(), null)));
        params.setRevocationEnabled(false);
        params.setDate(Date.from(at));
        CertPathValidator.getInstance("PKIX").validate(certPath, params);
        return Optional.empty();
      } catch (CertPathValidatorException e) {
        failures.add(ca.uri() + ": " + e.getMessage());
      } catch (GeneralSecurityException e) {
        failures.add(ca.uri() + ": " + e.getMessage());
      }
    }
    return Optional.of(
        "the certificate (issuer "
            + leaf.getIssuerX500Principal().getName()
            + ") does not chain to a certificate authority of the trusted root valid at "
            + at
            + (failures.isEmpty() ? " (none was valid then)" : " " + failures));
  }

  static boolean signatureVerifies(PublicKey key, byte[] data, byte[] signature) {
    if (key instanceof java.security.interfaces.ECPublicKey ec) {
      // Performance: BouncyCastle verifies P-256 ~8x faster than JDK 17's SunEC (see
      // EcdsaVerification).
      Optional<Boolean> fast = EcdsaVerification.verify(ec, data, signature);
      if (fast.isPresent()) {
        return fast.get();
      }
    }
    String algorithm = key.getAlgorithm().equals("RSA") ? "SHA256withRSA" : "SHA256withECDSA";
    try {
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(key);
      verifier.update(data);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | RuntimeException e) {
      // malformed DER or a key of another type: not a valid signature
      return false;
    }
  }
}
