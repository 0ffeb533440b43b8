package dev.countersign.signing;

import dev.countersign.keys.PublicKeys;
import java.io.IOException;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.spec.X509EncodedKeySpec;
import org.bouncycastle.asn1.sec.SECObjectIdentifiers;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.crypto.AsymmetricCipherKeyPair;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.generators.ECKeyPairGenerator;
import org.bouncycastle.crypto.params.ECKeyGenerationParameters;
import org.bouncycastle.crypto.params.ECNamedDomainParameters;
import org.bouncycastle.crypto.params.ECPrivateKeyParameters;
import org.bouncycastle.crypto.signers.ECDSASigner;
import org.bouncycastle.crypto.signers.HMacDSAKCalculator;
import org.bouncycastle.crypto.signers.StandardDSAEncoding;
import org.bouncycastle.crypto.util.SubjectPublicKeyInfoFactory;

/**
 * The ephemeral ECDSA P-256 key of one keyless run: generated in memory, never written, certified
 * by Fulcio for the run's identity.
 *
 * <p>Signs with BouncyCastle's lightweight API (already on the class path through sigstore-java; no
 * JCA provider is registered) and deterministic nonces (RFC 6979), because the JDK 17 SunEC
 * signature costs ~1.2 ms under C1 against ~0.17 ms here, once per manifest (docs/performance.md).
 * Signatures are DER, as {@code SHA256withECDSA} produces them.
 *
 * <p>Thread-safe: each signature uses its own signer object over the immutable key.
 */
final class EphemeralEcdsaKey {

  private static final X9ECParameters P256 = CustomNamedCurves.getByName("secp256r1");
  private static final ECNamedDomainParameters DOMAIN =
      new ECNamedDomainParameters(SECObjectIdentifiers.secp256r1, P256);

  private final ECPrivateKeyParameters privateKey;
  private final PublicKey publicKey;

  private EphemeralEcdsaKey(ECPrivateKeyParameters privateKey, PublicKey publicKey) {
    this.privateKey = privateKey;
    this.publicKey = publicKey;
  }

  static EphemeralEcdsaKey generate(SecureRandom random) {
    ECKeyPairGenerator generator = new ECKeyPairGenerator();
    generator.init(new ECKeyGenerationParameters(DOMAIN, random));
    AsymmetricCipherKeyPair pair = generator.generateKeyPair();
    try {
      byte[] spki =
          SubjectPublicKeyInfoFactory.createSubjectPublicKeyInfo(pair.getPublic()).getEncoded();
      PublicKey publicKey =
          KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(spki));
      return new EphemeralEcdsaKey((ECPrivateKeyParameters) pair.getPrivate(), publicKey);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalStateException("Cannot encode a P-256 public key", e);
    }
  }

  /** The public key as a PEM {@code PUBLIC KEY} block (what Fulcio certifies). */
  String publicKeyPem() {
    return PublicKeys.toPem(publicKey);
  }

  PublicKey publicKey() {
    return publicKey;
  }

  /** ECDSA over a SHA-256 digest (= {@code SHA256withECDSA} over the data), DER-encoded. */
  byte[] signDigest(byte[] sha256Digest) {
    ECDSASigner signer = new ECDSASigner(new HMacDSAKCalculator(new SHA256Digest()));
    signer.init(true, privateKey);
    BigInteger[] rs = signer.generateSignature(sha256Digest);
    try {
      return StandardDSAEncoding.INSTANCE.encode(DOMAIN.getN(), rs[0], rs[1]);
    } catch (IOException e) {
      throw new IllegalStateException("Cannot DER-encode an ECDSA signature", e);
    }
  }
}
