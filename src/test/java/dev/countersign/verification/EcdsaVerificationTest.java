package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class EcdsaVerificationTest {

  private final byte[] data = "apiVersion: v1\nkind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);
  private KeyPair pair;
  private byte[] signature;

  @BeforeEach
  void sign() throws Exception {
    pair = generate();
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(pair.getPrivate());
    signer.update(data);
    signature = signer.sign();
  }

  @Test
  void verify_jdkSignature_accepts() {
    assertThat(EcdsaVerification.verify((ECPublicKey) pair.getPublic(), data, signature))
        .contains(true);
    assertThat(EcdsaVerification.verifySha256(pair.getPublic(), data, signature)).isTrue();
  }

  @Test
  void verify_changedData_rejects() {
    byte[] changed = data.clone();
    changed[0] ^= 1;
    assertThat(EcdsaVerification.verify((ECPublicKey) pair.getPublic(), changed, signature))
        .contains(false);
  }

  @Test
  void verify_repeatedTriple_staysValidAndAChangedSignatureStillFails() {
    ECPublicKey key = (ECPublicKey) pair.getPublic();
    assertThat(EcdsaVerification.verify(key, data, signature)).contains(true);
    assertThat(EcdsaVerification.verify(key, data, signature)).contains(true);
    byte[] changed = signature.clone();
    changed[changed.length - 1] ^= 0x01;
    assertThat(EcdsaVerification.verify(key, data, changed)).contains(false);
    byte[] otherData =
        (new String(data, StandardCharsets.UTF_8) + "x").getBytes(StandardCharsets.UTF_8);
    assertThat(EcdsaVerification.verify(key, otherData, signature)).contains(false);
  }

  @Test
  void verify_otherKey_rejects() throws Exception {
    assertThat(EcdsaVerification.verify((ECPublicKey) generate().getPublic(), data, signature))
        .contains(false);
  }

  @Test
  void verify_nonCanonicalDer_rejectsLikeTheJdk() throws Exception {
    byte[] trailing = Arrays.copyOf(signature, signature.length + 1);
    byte[] garbage = {0x30, 0x02, 0x01};
    for (byte[] bad : new byte[][] {trailing, garbage, new byte[0]}) {
      assertThat(EcdsaVerification.verify((ECPublicKey) pair.getPublic(), data, bad))
          .contains(false);
      assertThat(jdkVerifies(bad)).isFalse();
    }
  }

  @Test
  void verify_agreesWithTheJdk_onManyFreshSignatures() throws Exception {
    for (int i = 0; i < 50; i++) {
      byte[] message = ("message " + i).getBytes(StandardCharsets.UTF_8);
      Signature signer = Signature.getInstance("SHA256withECDSA");
      signer.initSign(pair.getPrivate());
      signer.update(message);
      byte[] sig = signer.sign();
      if (i % 2 == 1) {
        sig[sig.length - 1] ^= 0x01;
      }
      Signature jdk = Signature.getInstance("SHA256withECDSA");
      jdk.initVerify(pair.getPublic());
      jdk.update(message);
      boolean expected;
      try {
        expected = jdk.verify(sig);
      } catch (java.security.SignatureException e) {
        expected = false;
      }
      assertThat(EcdsaVerification.verify((ECPublicKey) pair.getPublic(), message, sig))
          .contains(expected);
    }
  }

  private boolean jdkVerifies(byte[] sig) throws Exception {
    Signature jdk = Signature.getInstance("SHA256withECDSA");
    jdk.initVerify(pair.getPublic());
    jdk.update(data);
    try {
      return jdk.verify(sig);
    } catch (java.security.SignatureException e) {
      return false;
    }
  }

  private static KeyPair generate() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }
}
