package dev.countersign.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KeysTest {

  private static final char[] EMPTY = new char[0];

  @TempDir Path tmp;

  private static Path resource(String name) throws Exception {
    return Path.of(KeysTest.class.getResource("/keys/" + name).toURI());
  }

  @Test
  void keyA_decryptsWithEmptyPassword_andMatchesItsPublicKey() throws Exception {
    PrivateKey key = PrivateKeys.read(resource("key-a/testkey"), EMPTY);
    PublicKey expected = PublicKeys.read(resource("key-a/testpub"));

    assertThat(key.getAlgorithm()).isEqualTo("EC");
    assertThat(PrivateKeys.publicKeyOf(key).getEncoded()).isEqualTo(expected.getEncoded());
  }

  @Test
  void keyC_decryptsWithEmptyPassword_andMatchesItsPublicKey() throws Exception {
    PrivateKey key = PrivateKeys.read(resource("key-c/testkey"), EMPTY);
    PublicKey expected = PublicKeys.read(resource("key-c/testpub"));

    assertThat(PrivateKeys.publicKeyOf(key).getEncoded()).isEqualTo(expected.getEncoded());
    assertThat(PrivateKeys.publicKeyOf(key).getEncoded())
        .isNotEqualTo(PublicKeys.read(resource("key-a/testpub")).getEncoded());
  }

  @Test
  void testsig_verifiesOverDecodedTestblob_withKeyC_only() throws Exception {
    byte[] blob = Base64.getDecoder().decode(Files.readString(resource("key-c/testblob")).strip());
    byte[] sig = Base64.getDecoder().decode(Files.readString(resource("key-c/testsig")).strip());

    assertThat(verify(PublicKeys.read(resource("key-c/testpub")), blob, sig)).isTrue();
    assertThat(verify(PublicKeys.read(resource("key-a/testpub")), blob, sig)).isFalse();
    assertThat(
            verify(
                PublicKeys.read(resource("key-c/testpub")),
                Files.readAllBytes(resource("key-c/testblob")),
                sig))
        .isFalse();
  }

  @Test
  void read_wrongPassword_isUsageProblemNamingFileAndVariable() throws Exception {
    Path file = resource("key-a/testkey");
    assertThatThrownBy(() -> PrivateKeys.read(file, "nope".toCharArray()))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("Could not decrypt " + file)
        .hasMessageContaining("wrong password")
        .satisfies(
            e ->
                assertThat(((UsageProblem) e).hint()).get().asString().contains("COSIGN_PASSWORD"));
  }

  @Test
  void encryptToPem_roundTrips_andIsCosignShaped() {
    SecureRandom random = new SecureRandom();
    var pair = PrivateKeys.generate(random);
    String pem = PrivateKeys.encryptToPem(pair.getPrivate(), "s3cret".toCharArray(), random);

    assertThat(pem)
        .startsWith("-----BEGIN ENCRYPTED COSIGN PRIVATE KEY-----\n")
        .endsWith("-----END ENCRYPTED COSIGN PRIVATE KEY-----\n");
    String json =
        new String(
            Pem.blocks(pem.getBytes(StandardCharsets.US_ASCII)).get(0).der(),
            StandardCharsets.UTF_8);
    assertThat(json)
        .startsWith(
            "{\"kdf\":{\"name\":\"scrypt\",\"params\":{\"N\":32768,\"r\":8,\"p\":1},\"salt\":\"")
        .contains("\"cipher\":{\"name\":\"nacl/secretbox\",\"nonce\":\"");

    PrivateKey back =
        PrivateKeys.parse(
            pem.getBytes(StandardCharsets.US_ASCII), Path.of("mem"), "s3cret".toCharArray());
    assertThat(back.getEncoded()).isEqualTo(pair.getPrivate().getEncoded());
    assertThatThrownBy(
            () -> PrivateKeys.parse(pem.getBytes(StandardCharsets.US_ASCII), Path.of("mem"), EMPTY))
        .isInstanceOf(UsageProblem.class);
  }

  @Test
  void secretbox_tamperedCiphertext_failsAuthentication() {
    byte[] key = new byte[32];
    byte[] nonce = new byte[24];
    byte[] box = PrivateKeys.secretbox(true, "hello".getBytes(StandardCharsets.UTF_8), nonce, key);
    assertThat(PrivateKeys.secretbox(false, box, nonce, key))
        .asString(StandardCharsets.UTF_8)
        .isEqualTo("hello");
    box[box.length - 1] ^= 1;
    assertThat(PrivateKeys.secretbox(false, box, nonce, key)).isNull();
  }

  @Test
  void keyPairFiles_writesReadableCosignPair_withPrivateKeyOwnerOnly() throws Exception {
    Path priv = tmp.resolve("out/cosign.key");
    Path pub = tmp.resolve("out/cosign.pub");
    PublicKey written = KeyPairFiles.generate(priv, pub, EMPTY, new SecureRandom());

    PrivateKey key = PrivateKeys.read(priv, PrivateKeys.passwordFrom(Env.empty()));
    assertThat(PrivateKeys.publicKeyOf(key).getEncoded()).isEqualTo(written.getEncoded());
    assertThat(PublicKeys.read(pub).getEncoded()).isEqualTo(written.getEncoded());
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(priv)))
        .isEqualTo("rw-------");

    byte[] message = "apiVersion: v1\n".getBytes(StandardCharsets.UTF_8);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update(message);
    assertThat(verify(PublicKeys.read(pub), message, signer.sign())).isTrue();

    assertThatThrownBy(
            () -> KeyPairFiles.generate(priv, tmp.resolve("other.pub"), EMPTY, new SecureRandom()))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("Refusing to overwrite");
  }

  @Test
  void parse_acceptsTheKeysSigstoreWorksWith() throws Exception {
    for (String curve : new String[] {"secp256r1", "secp384r1", "secp521r1"}) {
      KeyPairGenerator ec = KeyPairGenerator.getInstance("EC");
      ec.initialize(new ECGenParameterSpec(curve));
      PublicKey key = ec.generateKeyPair().getPublic();
      assertThat(PublicKeys.parse(PublicKeys.toPem(key).getBytes(), Path.of("k.pub")))
          .as(curve)
          .isEqualTo(key);
    }
    PublicKey rsa = rsaKey(2048);
    assertThat(PublicKeys.parse(PublicKeys.toPem(rsa).getBytes(), Path.of("k.pub"))).isEqualTo(rsa);
  }

  @Test
  void parse_refusesKeysTooWeakToTrust_namingFileLineAndWhy() throws Exception {
    byte[] rsa1024 = PublicKeys.toPem(rsaKey(1024)).getBytes();
    assertThatThrownBy(() -> PublicKeys.parse(rsa1024, Path.of("policy.yaml"), 7))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("policy.yaml:7")
        .hasMessageContaining("1024-bit RSA key")
        .hasMessageContaining("2048 to 4096 bits");
    for (String weak : new String[] {"p192.pub", "secp256k1.pub"}) {
      assertThatThrownBy(() -> PublicKeys.read(resource("weak/" + weak)))
          .as(weak)
          .isInstanceOf(InputProblem.class)
          .hasMessageContaining(weak)
          .hasMessageContaining("not P-256, P-384 or P-521");
    }
  }

  private static PublicKey rsaKey(int bits) throws Exception {
    KeyPairGenerator rsa = KeyPairGenerator.getInstance("RSA");
    rsa.initialize(bits);
    return rsa.generateKeyPair().getPublic();
  }

  @Test
  void passwordFrom_readsCosignPassword() {
    assertThat(PrivateKeys.passwordFrom(Env.of(Map.of("COSIGN_PASSWORD", "pw"))))
        .containsExactly('p', 'w');
    assertThat(PrivateKeys.passwordFrom(Env.empty())).isEmpty();
  }

  @Test
  void fingerprint_isSha256OfSpki() throws Exception {
    PublicKey key = PublicKeys.read(resource("key-a/testpub"));
    String hex =
        java.util.HexFormat.of()
            .formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(key.getEncoded()));
    assertThat(PublicKeys.fingerprint(key)).isEqualTo("sha256:" + hex).hasSize(71);
  }

  @Test
  void read_plainPemAndPkcs8AndSec1() throws Exception {
    var pair = PrivateKeys.generate(new SecureRandom());
    Path pub = Files.writeString(tmp.resolve("k.pub"), PublicKeys.toPem(pair.getPublic()));
    assertThat(PublicKeys.read(pub).getEncoded()).isEqualTo(pair.getPublic().getEncoded());

    Path pkcs8 =
        Files.writeString(
            tmp.resolve("k.pem"), Pem.encode("PRIVATE KEY", pair.getPrivate().getEncoded()));
    assertThat(PrivateKeys.read(pkcs8, EMPTY).getEncoded())
        .isEqualTo(pair.getPrivate().getEncoded());

    var info =
        org.bouncycastle.asn1.pkcs.PrivateKeyInfo.getInstance(pair.getPrivate().getEncoded());
    byte[] sec1 = info.parsePrivateKey().toASN1Primitive().getEncoded();
    // SEC1 without curve parameters is not enough to know the curve; PKCS#8 carries them in the
    // algorithm id
    var withParams =
        new org.bouncycastle.asn1.sec.ECPrivateKey(
            256,
            org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(sec1).getKey(),
            info.getPrivateKeyAlgorithm().getParameters());
    Path sec1File =
        Files.writeString(
            tmp.resolve("ec.pem"), Pem.encode("EC PRIVATE KEY", withParams.getEncoded()));
    assertThat(((java.security.interfaces.ECPrivateKey) PrivateKeys.read(sec1File, EMPTY)).getS())
        .isEqualTo(((java.security.interfaces.ECPrivateKey) pair.getPrivate()).getS());
  }

  @Test
  void read_problemsNameTheFile() throws Exception {
    Path missing = tmp.resolve("nope.pub");
    assertThatThrownBy(() -> PublicKeys.read(missing))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining(missing.toString());

    Path privateInsteadOfPublic = resource("key-a/testkey");
    assertThatThrownBy(() -> PublicKeys.read(privateInsteadOfPublic))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining(privateInsteadOfPublic.toString())
        .hasMessageContaining("ENCRYPTED COSIGN PRIVATE KEY");

    Path garbage = Files.writeString(tmp.resolve("garbage.key"), "hello");
    assertThatThrownBy(() -> PrivateKeys.read(garbage, EMPTY))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("garbage.key")
        .hasMessageContaining("no private key");
  }

  private static boolean verify(PublicKey key, byte[] message, byte[] sig) throws Exception {
    Signature verifier = Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(key);
    verifier.update(message);
    try {
      return verifier.verify(sig);
    } catch (java.security.SignatureException e) {
      return false;
    }
  }
}
