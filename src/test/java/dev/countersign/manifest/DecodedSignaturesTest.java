package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/**
 * The decoded message is exactly what the fixtures' real signatures cover: checked with the JDK
 * (SHA256withECDSA, DER) against Key A and the keyless certificates.
 */
class DecodedSignaturesTest {

  private final SignedManifestFormat format =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());

  @Test
  void multiSigned_signature1VerifiesWithKeyA_signature0DoesNot() throws Exception {
    SignedContent content = decode("sample-configmap-multi-signed.yaml");

    assertThat(verifies(keyA(), content.message(), content.signatureSets().get(1).signature()))
        .isTrue();
    assertThat(verifies(keyA(), content.message(), content.signatureSets().get(0).signature()))
        .isFalse();
  }

  @Test
  void legacyTarball_signatureCoversTheTarGzBytes() throws Exception {
    SignedContent content = decode("sample-configmap-signed.yaml");

    assertThat(verifies(keyA(), content.message(), content.signatureSets().get(0).signature()))
        .isTrue();
  }

  @Test
  void keyless_eachSetVerifiesWithItsOwnCertificate() throws Exception {
    SignedContent content = decode("sample-configmap-keyless-multi-signed.yaml");

    for (SignatureSetAnnotations set : content.signatureSets()) {
      X509Certificate certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(set.certificatePem().orElseThrow()));
      assertThat(verifies(certificate.getPublicKey(), content.message(), set.signature())).isTrue();
    }
    assertThat(new String(content.message(), StandardCharsets.UTF_8))
        .isEqualTo(new String(format.message(content.messageDocuments()), StandardCharsets.UTF_8));
  }

  @Test
  void signRenderReadDecode_freshKey_verifiesOverTheDecodedMessage() throws Exception {
    java.security.KeyPairGenerator generator = java.security.KeyPairGenerator.getInstance("EC");
    generator.initialize(new java.security.spec.ECGenParameterSpec("secp256r1"));
    java.security.KeyPair pair = generator.generateKeyPair();
    var documents =
        new ManifestReader()
            .parse(
                ("""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: web
                  annotations:
                    team: "on"
                spec:
                  replicas: 0x3
                  template:
                    spec:
                      containers:
                      - name: web
                        args: ["--port", "0777", yes]
                        command:
                        - |
                          echo hi
                """)
                    .getBytes(StandardCharsets.UTF_8),
                java.nio.file.Path.of("web.yaml"));
    byte[] message = format.message(documents);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(pair.getPrivate());
    signer.update(message);
    byte[] signature = signer.sign();

    byte[] signed =
        format.render(
            documents,
            format.annotations(
                message, 0, signature, java.util.Optional.empty(), java.util.Optional.empty()),
            false,
            java.util.List.of("signed"));
    ManifestDocument reread =
        new ManifestReader().parse(signed, java.nio.file.Path.of("signed/web.yaml")).get(0);
    SignedContent content = format.decode(reread).orElseThrow();

    assertThat(
            verifies(
                pair.getPublic(), content.message(), content.signatureSets().get(0).signature()))
        .isTrue();
    ManifestDocument inMessage = content.messageDocuments().get(0);
    assertThat(inMessage.content()).isEqualTo(documents.get(0).content());
    assertThat(reread.annotations()).containsEntry("team", "on");
  }

  private SignedContent decode(String fixture) {
    return format.decode(Fixtures.parse(fixture).documents().get(0)).orElseThrow();
  }

  private static PublicKey keyA() throws Exception {
    String pem =
        new String(
            Base64.getMimeDecoder().decode(Fixtures.bytes("testpub")), StandardCharsets.US_ASCII);
    String body = pem.replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    return KeyFactory.getInstance("EC")
        .generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(body)));
  }

  private static boolean verifies(PublicKey key, byte[] message, byte[] signature)
      throws Exception {
    Signature verifier = Signature.getInstance("SHA256withECDSA");
    verifier.initVerify(key);
    verifier.update(message);
    return verifier.verify(signature);
  }
}
