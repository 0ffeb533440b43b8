package dev.countersign.signing;

import dev.countersign.keys.PublicKeys;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECKey;
import java.util.Objects;
import java.util.Optional;

/**
 * Keyed signing (cosign key pairs): SHA256withECDSA over the raw message, DER-encoded, as {@code
 * cosign sign-blob --key} produces. No certificate; a transparency-log entry (and so a {@code
 * bundle} annotation) only when constructed with a {@link TransparencyLog}. Without one the output
 * is the air-gap-friendly form Kyverno verifies offline ({@code message} + {@code signature}).
 *
 * <p>Thread-safe: each call uses its own {@link Signature}.
 */
public final class KeyMessageSigner implements MessageSigner {

  static final String ALGORITHM = "SHA256withECDSA";

  private final PrivateKey privateKey;
  private final PublicKey publicKey;
  private final Optional<TransparencyLog> log;
  private final String fingerprint;

  /**
   * @param privateKey an EC P-256 private key
   * @param publicKey its public key; names the signer ({@code sha256:} of its SPKI DER)
   * @throws UsageProblem when the keys are not EC or do not belong together
   */
  public KeyMessageSigner(PrivateKey privateKey, PublicKey publicKey) {
    this(privateKey, publicKey, Optional.empty());
  }

  /**
   * @param log where to record every signature, if anywhere
   */
  public KeyMessageSigner(
      PrivateKey privateKey, PublicKey publicKey, Optional<TransparencyLog> log) {
    this.privateKey = Objects.requireNonNull(privateKey, "privateKey");
    this.publicKey = publicKey;
    this.log = Objects.requireNonNull(log, "log");
    Objects.requireNonNull(publicKey, "publicKey");
    if (!(privateKey instanceof ECKey) || !(publicKey instanceof ECKey)) {
      throw new UsageProblem(
          "The signing key is "
              + privateKey.getAlgorithm()
              + ", not ECDSA, while preparing keyed signing",
          ", perhaps you should use a key from `cosign generate-key-pair` (ECDSA P-256)");
    }
    requireMatchingPair(privateKey, publicKey);
    this.fingerprint = fingerprint(publicKey);
  }

  @Override
  public SignatureMaterial sign(byte[] message) {
    byte[] signature = signBytes(privateKey, message);
    return new SignatureMaterial(
        signature,
        Optional.empty(),
        log.map(l -> l.upload(message, signature, publicKey)),
        Optional.empty(),
        fingerprint);
  }

  /**
   * With a transparency log, {@link RekorUploads#inFlightFor} it, as keyless signing (the same
   * uploads); without one, the processors' count (signing waits on nothing).
   */
  @Override
  public int suggestedInFlight() {
    return log.map(TransparencyLog::suggestedInFlight)
        .orElseGet(MessageSigner.super::suggestedInFlight);
  }

  /** {@code sha256:<hex of SHA-256 of the public key's SPKI DER>}. */
  @Override
  public String signerDescription() {
    return fingerprint;
  }

  @Override
  public SignerIdentity identity() {
    return new SignerIdentity.Keyed(publicKey, log.isPresent());
  }

  /** {@code sha256:} + lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo. */
  public static String fingerprint(PublicKey publicKey) {
    return PublicKeys.fingerprint(publicKey);
  }

  private static byte[] signBytes(PrivateKey key, byte[] message) {
    try {
      Signature signature = Signature.getInstance(ALGORITHM);
      signature.initSign(key);
      signature.update(message);
      return signature.sign();
    } catch (GeneralSecurityException e) {
      throw new InternalProblem("Could not sign with the private key: " + e.getMessage(), null, e);
    }
  }

  // A mismatched pair would produce signatures that no verifier holding the public key accepts;
  // better to refuse before anything is written.
  private static void requireMatchingPair(PrivateKey privateKey, PublicKey publicKey) {
    byte[] probe = "countersign key pair check".getBytes(StandardCharsets.US_ASCII);
    boolean matches;
    try {
      Signature verifier = Signature.getInstance(ALGORITHM);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      matches = verifier.verify(signBytes(privateKey, probe));
    } catch (GeneralSecurityException e) {
      matches = false;
    }
    if (!matches) {
      throw new UsageProblem(
          "The private key does not belong to the given public key while preparing keyed signing",
          ", perhaps you should pass the public key generated with this private key");
    }
  }
}
