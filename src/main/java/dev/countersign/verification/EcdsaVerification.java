package dev.countersign.verification;

import dev.countersign.support.Sha256;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.crypto.params.ECPublicKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.StandardDSAEncoding;
import org.bouncycastle.crypto.util.PublicKeyFactory;

/**
 * SHA-256 ECDSA verification with BouncyCastle's lightweight API instead of the JDK's SunEC.
 *
 * <p>Why: verification is dominated by ECDSA. JDK 17's SunEC verifies P-256 in about 1.2 ms (its
 * constant-time field arithmetic is built for signing), BouncyCastle's variable-time verifier with
 * the P-256 custom curve in about 0.15 ms; with thousands of manifests that is the difference
 * between ~800 and several thousand manifests/s (docs/performance.md). Variable time is fine here:
 * verification handles only public data. The lightweight API avoids constructing (and registering)
 * the BouncyCastle JCA provider, which would cost start time and change the process-wide provider
 * list.
 *
 * <p>Semantics match {@code Signature.getInstance("SHA256withECDSA").verify}: the signature must be
 * a strict DER SEQUENCE of two INTEGERs in range, else it does not verify.
 */
final class EcdsaVerification {

  /**
   * Converted keys by their SubjectPublicKeyInfo DER. Besides saving the conversion, reusing the
   * same point object lets BouncyCastle keep its wNAF precomputation for it between signatures (it
   * caches that on the point), which makes repeated verification with one key ~30% cheaper. A run
   * sees few keys (one per signer); the bound only guards against unbounded growth.
   */
  private static final ConcurrentHashMap<ByteBuffer, ECPublicKeyParameters> KEYS =
      new ConcurrentHashMap<>();

  private static final int MAX_CACHED_KEYS = 256;

  /**
   * (key, SHA-256 of data, signature) triples that verified. Every document of a multi-document
   * file carries the same signature over the same message, so without this a file of k documents
   * costs k identical verifications. Only successes are remembered, and a triple that verified once
   * always will; the bound keeps the set to a few MB.
   */
  private static final Set<ByteBuffer> VERIFIED = ConcurrentHashMap.newKeySet();

  private static final int MAX_VERIFIED = 20_000;

  private EcdsaVerification() {}

  /**
   * @return whether {@code derSignature} is a valid signature of {@code data} by {@code key}; empty
   *     when BouncyCastle cannot take the key (an unusual curve), so that the caller falls back to
   *     the JDK
   */
  static Optional<Boolean> verify(ECPublicKey key, byte[] data, byte[] derSignature) {
    ECPublicKeyParameters parameters = parameters(key);
    if (parameters == null) {
      return Optional.empty();
    }
    byte[] digest = Sha256.of(data);
    ByteBuffer triple =
        ByteBuffer.allocate(32 + digest.length + derSignature.length)
            .put(Sha256.of(key.getEncoded()))
            .put(digest)
            .put(derSignature)
            .flip();
    if (VERIFIED.contains(triple)) {
      return Optional.of(true);
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
    boolean valid = verifier.verifySignature(digest, rs[0], rs[1]);
    if (valid) {
      if (VERIFIED.size() >= MAX_VERIFIED) {
        VERIFIED.clear();
      }
      VERIFIED.add(triple);
    }
    return Optional.of(valid);
  }

  /**
   * Whether {@code signature} is a SHA-256 signature of {@code data} by {@code key}: ECDSA through
   * {@link #verify} (BouncyCastle lightweight), other key types (RSA) and curves BouncyCastle
   * cannot take through the JDK. Malformed signatures and keys of another type do not verify.
   */
  static boolean verifySha256(PublicKey key, byte[] data, byte[] signature) {
    if (key instanceof ECPublicKey ec) {
      Optional<Boolean> fast = verify(ec, data, signature);
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
      return false;
    }
  }

  /** BouncyCastle's form of {@code key}, or null when it cannot take the key. */
  private static ECPublicKeyParameters parameters(ECPublicKey key) {
    ByteBuffer encoded = ByteBuffer.wrap(key.getEncoded());
    ECPublicKeyParameters cached = KEYS.get(encoded);
    if (cached != null) {
      return cached;
    }
    ECPublicKeyParameters parameters;
    try {
      parameters =
          (ECPublicKeyParameters)
              PublicKeyFactory.createKey(SubjectPublicKeyInfo.getInstance(encoded.array()));
    } catch (Exception unsupported) {
      return null;
    }
    if (KEYS.size() >= MAX_CACHED_KEYS) {
      KEYS.clear();
    }
    KEYS.put(encoded, parameters);
    return parameters;
  }
}
