package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.asn1.nist.NISTNamedCurves;
import org.bouncycastle.crypto.signers.StandardDSAEncoding;
import org.junit.jupiter.api.Test;

class SigningEventTest {

  private static final byte[] MESSAGE = "apiVersion: v1\n".getBytes(StandardCharsets.UTF_8);

  @Test
  void theFlippedFormOfAnEcdsaSignature_verifies_andIsTheSameSigning() throws Exception {
    KeyPair key = ecKey();
    byte[] signature = sign(key, "SHA256withECDSA");
    BigInteger n = NISTNamedCurves.getByName("P-256").getN();
    BigInteger[] rs = StandardDSAEncoding.INSTANCE.decode(n, signature);
    byte[] flipped = StandardDSAEncoding.INSTANCE.encode(n, rs[0], n.subtract(rs[1]));

    // The premise: anyone can make the second form, and it verifies.
    assertThat(flipped).isNotEqualTo(signature);
    assertThat(EcdsaVerification.verifySha256(key.getPublic(), MESSAGE, flipped)).isTrue();

    assertThat(SigningEvent.of(flipped))
        .isEqualTo(SigningEvent.of(signature))
        .startsWith("ecdsa-r:");
  }

  @Test
  void signingTheSameMessageAgain_isAnotherSigning() throws Exception {
    KeyPair key = ecKey();

    assertThat(SigningEvent.of(sign(key, "SHA256withECDSA")))
        .isNotEqualTo(SigningEvent.of(sign(key, "SHA256withECDSA")));
  }

  @Test
  void anRsaSignatureOrBytesThatAreNotDer_areIdentifiedByTheirValue() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    byte[] signature = sign(rsa.generateKeyPair(), "SHA256withRSA");

    assertThat(SigningEvent.of(signature)).startsWith("value:");
    assertThat(SigningEvent.of(new byte[] {1, 2, 3})).isEqualTo("value:010203");
  }

  private static KeyPair ecKey() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static byte[] sign(KeyPair key, String algorithm) throws Exception {
    Signature signer = Signature.getInstance(algorithm);
    signer.initSign(key.getPrivate());
    signer.update(MESSAGE);
    return signer.sign();
  }
}
