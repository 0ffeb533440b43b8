package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

class KeyMessageSignerTest {

  private static final byte[] MESSAGE =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: demo\n".getBytes(StandardCharsets.UTF_8);

  @Test
  void sign_producesDerEcdsaOverTheRawMessageThatThePublicKeyVerifies() throws Exception {
    KeyPair pair = p256();
    SignatureMaterial material =
        new KeyMessageSigner(pair.getPrivate(), pair.getPublic()).sign(MESSAGE);

    assertThat(material.signature()[0]).as("DER SEQUENCE, not P1363").isEqualTo((byte) 0x30);
    assertThat(verify(pair, MESSAGE, material.signature())).isTrue();
    assertThat(verify(pair, "kind: Other\n".getBytes(StandardCharsets.UTF_8), material.signature()))
        .isFalse();
    assertThat(material.certificatePem()).isEmpty();
    assertThat(material.rekorBundle()).isEmpty();
    assertThat(material.sigstoreBundleJson()).isEmpty();
  }

  @Test
  void signer_isTheSha256OfThePublicKeysSpki() throws Exception {
    KeyPair pair = p256();
    KeyMessageSigner signer = new KeyMessageSigner(pair.getPrivate(), pair.getPublic());
    String expected =
        "sha256:"
            + HexFormat.of()
                .formatHex(
                    MessageDigest.getInstance("SHA-256").digest(pair.getPublic().getEncoded()));

    assertThat(signer.signerDescription()).isEqualTo(expected).matches("sha256:[0-9a-f]{64}");
    assertThat(signer.sign(MESSAGE).signer()).isEqualTo(expected);
  }

  @Test
  void constructor_withKeysFromDifferentPairs_throwsUsageProblem() throws Exception {
    KeyPair one = p256();
    KeyPair other = p256();
    assertThatThrownBy(() -> new KeyMessageSigner(one.getPrivate(), other.getPublic()))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("does not belong to the given public key");
  }

  @Test
  void constructor_withRsaKey_throwsUsageProblem() throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(2048);
    KeyPair pair = rsa.generateKeyPair();
    assertThatThrownBy(() -> new KeyMessageSigner(pair.getPrivate(), pair.getPublic()))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("not ECDSA");
  }

  private static KeyPair p256() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static boolean verify(KeyPair pair, byte[] message, byte[] signature) throws Exception {
    Signature ecdsa = Signature.getInstance("SHA256withECDSA");
    ecdsa.initVerify(pair.getPublic());
    ecdsa.update(message);
    return ecdsa.verify(signature);
  }
}
