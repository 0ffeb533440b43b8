package dev.countersign.verification;

import java.math.BigInteger;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.ECPublicKey;
import java.util.Optional;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.StandardDSAEncoding;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * SHA-256 ECDSA verification with BouncyCastle's lightweight API instead of the JDK's SunEC.
 *
 * <p>Why: verification is dominated by ECDSA. JDK 17's SunEC verifies P-256 in about 1.2 ms
 * (its constant-time field arithmetic is built for signing), BouncyCastle's variable-time
 * verifier with the P-256 custom curve in about 0.15 ms; with thousands of manifests that is the
 * difference between ~800 and several thousand manifests/s (docs/performance.md). Variable time
 * is fine here: verification handles only public data. The lightweight API avoids constructing
 * (and registering) the BouncyCastle JCA provider, which would cost start time and change the
 * process-wide provider list.
 *
 * <p>Semantics match {@code Signature.getInstance("SHA256withECDSA").verify}: the signature must
 * be a strict DER SEQUENCE of two INTEGERs in range, else it does not verify.
 */
final class EcdsaVerification {

  private EcdsaVerification() {}

  /**
   * @return whether {@code derSignature} is a valid signature of {@code data} by {@code key}; empty
   *     when BouncyCastle cannot take the key (an unusual curve), so that the caller falls back
   *     to the JDK
   */
  static Optional<Boolean> verify(ECPublicKey key, byte[] data, byte[] derSignature) {
    ECPublicKeyParameters parameters;
    try {
      parameters = (ECPublicKeyParameters) PublicKeyFactory.createKey(SubjectPublicKeyInfo.getInstance(key.getEncoded()));
    } catch (Exception unsupported) {
      return Optional.empty();
    }
    ECDSASigner verifier = new ECDSASigner();
    verifier.init(false, parameters);
    BigInteger[] rs;
    try {
      // decode() re-encodes and compares, so only canonical DER is accepted (as the JDK does).
      rs = StandardDSAEncoding.INSTANCE.decode(parameters.getParameters().getN(), derSignature);
    } catch (Exception malformed) {
      return Optional.of(false);
    }
    return Optional.of(verifier.verifySignature(sha256(data), rs[0], rs[1]));
  }

  private static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
