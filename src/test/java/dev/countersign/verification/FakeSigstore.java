package dev.countersign.verification;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.RekorBundle;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.DERUTF8String;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A tiny in-memory Sigstore for negative tests: a transparency log key, a Fulcio-like CA, leaf
 * certificates shaped like Fulcio's, and keyless annotations whose SET really verifies.
 */
public final class FakeSigstore {

  public static final String ISSUER = "https://token.actions.githubusercontent.com";
  public static final String SUBJECT =
      "https://github.com/acme/app/.github/workflows/sign.yml@refs/heads/main";
  static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  /** The signed message: the 91-byte message of `sample-configmap.yaml` in docs/format.md. */
  static final byte[] MESSAGE =
      "apiVersion: v1\ndata:\n  key1: val1\n  key4: val4\nkind: ConfigMap\nmetadata:\n  name: sample-cm\n"
          .getBytes(StandardCharsets.UTF_8);

  private static final ObjectMapper JSON = new ObjectMapper();

  public final KeyPair logKey = ec();
  final KeyPair caKey = ec();
  final X509Certificate caCert =
      certificate(
          caKey.getPublic(),
          caKey.getPrivate(),
          "CN=fake-fulcio-root,O=test",
          new X500Name("CN=fake-fulcio-root,O=test"),
          null,
          null,
          false,
          T0.minusSeconds(86400),
          T0.plusSeconds(365 * 86400L),
          true);

  /**
   * The same trust material as a {@code trusted_root.json} file (protobuf-specs JSON), for tests
   * that drive the CLI's {@code --trusted-root}.
   */
  public String trustedRootJson() {
    try {
      String start = T0.minusSeconds(86400).toString();
      ObjectNode root = JSON.createObjectNode();
      root.put("mediaType", "application/vnd.dev.sigstore.trustedroot+json;version=0.1");
      ObjectNode tlog = root.putArray("tlogs").addObject();
      tlog.put("baseUrl", "http://127.0.0.1");
      tlog.put("hashAlgorithm", "SHA2_256");
      ObjectNode key = tlog.putObject("publicKey");
      key.put("rawBytes", Base64.getEncoder().encodeToString(logKey.getPublic().getEncoded()));
      key.put("keyDetails", "PKIX_ECDSA_P256_SHA_256");
      key.putObject("validFor").put("start", start);
      tlog.putObject("logId")
          .put(
              "keyId",
              Base64.getEncoder()
                  .encodeToString(
                      MessageDigest.getInstance("SHA-256")
                          .digest(logKey.getPublic().getEncoded())));
      ObjectNode ca = root.putArray("certificateAuthorities").addObject();
      ca.putObject("subject").put("organization", "test").put("commonName", "fake-fulcio-root");
      ca.put("uri", "https://fake-fulcio");
      ca.putObject("certChain")
          .putArray("certificates")
          .addObject()
          .put("rawBytes", Base64.getEncoder().encodeToString(caCert.getEncoded()));
      ca.putObject("validFor").put("start", start);
      root.set("ctlogs", JSON.createArrayNode().add(tlog.deepCopy()));
      root.putArray("timestampAuthorities");
      return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  TrustedRoot trustedRoot() {
    return new TrustedRoot(
        List.of(
            TrustedRoot.TransparencyLogKey.of(
                logKey.getPublic(), "http://127.0.0.1", T0.minusSeconds(86400), Optional.empty())),
        List.of(
            new TrustedRoot.CertificateAuthority(
                "https://fake-fulcio", List.of(caCert), T0.minusSeconds(86400), Optional.empty())));
  }

  /** One keyless signature set (index 0) over {@link #MESSAGE}, shaped by {@code spec}. */
  public Map<String, String> keyless(Spec spec) {
    KeyPair ephemeral = ec();
    PrivateKey issuerKey = spec.selfSigned ? ephemeral.getPrivate() : caKey.getPrivate();
    // A forged leaf claims the CA's exact name; only the signature on it can tell.
    X500Name issuerName = X500Name.getInstance(caCert.getSubjectX500Principal().getEncoded());
    X509Certificate leaf =
        certificate(
            ephemeral.getPublic(),
            issuerKey,
            "",
            issuerName,
            spec.sans,
            spec.oidcIssuer,
            spec.legacyIssuerOnly,
            spec.notBefore,
            spec.notBefore.plusSeconds(600),
            false);
    try {
      String signature = Base64.getEncoder().encodeToString(sign(ephemeral.getPrivate(), MESSAGE));
      String certPem = pem(leaf);
      ObjectNode body = JSON.createObjectNode();
      body.put("apiVersion", "0.0.1");
      body.put("kind", spec.rekord ? "rekord" : "hashedrekord");
      ObjectNode bodySpec = body.putObject("spec");
      ObjectNode hash = bodySpec.putObject("data").putObject("hash");
      hash.put("algorithm", spec.hashAlgorithm);
      hash.put(
          "value",
          HexFormat.of()
              .formatHex(MessageDigest.getInstance("SHA-256").digest(spec.loggedMessage)));
      ObjectNode sig = bodySpec.putObject("signature");
      if (spec.rekord) {
        sig.put("format", "x509");
      }
      sig.put("content", signature);
      sig.putObject("publicKey")
          .put(
              "content",
              Base64.getEncoder().encodeToString(certPem.getBytes(StandardCharsets.US_ASCII)));
      KeyPair log = spec.logKey == null ? logKey : spec.logKey;
      RekorBundle unsigned =
          new RekorBundle(
              "x",
              Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(body)),
              spec.integratedTime.getEpochSecond(),
              42,
              TrustedRoot.logIdOf(log.getPublic()));
      String set =
          Base64.getEncoder()
              .encodeToString(
                  sign(log.getPrivate(), TransparencyLogProofs.setCanonicalJson(unsigned)));
      RekorBundle bundle =
          new RekorBundle(
              set,
              unsigned.body(),
              unsigned.integratedTime(),
              unsigned.logIndex(),
              unsigned.logId());
      AnnotationDomain d = AnnotationDomain.DEFAULT;
      Map<String, String> annotations = new LinkedHashMap<>();
      annotations.put(d.message(), b64gz(MESSAGE));
      annotations.put(d.signature(0), signature);
      annotations.put(d.certificate(0), b64gz(certPem.getBytes(StandardCharsets.US_ASCII)));
      annotations.put(d.bundle(0), b64gz(bundle.toJson().getBytes(StandardCharsets.UTF_8)));
      return annotations;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A keyed signature set over {@link #MESSAGE} by {@code signer}, logged as cosign 1.x did for
   * {@code sign-blob --key}: a legacy {@code rekord} 0.0.1 entry holding the message content (or
   * its hash), format x509 and the public key PEM, with a SET by this log.
   */
  public Map<String, String> keyedRekord(KeyPair signer, boolean contentInsteadOfHash) {
    return keyedRekord(signer, signer.getPublic(), contentInsteadOfHash);
  }

  /**
   * As {@link #keyedRekord(KeyPair, boolean)}, but the log entry names {@code loggedKey} as the
   * signature's public key: an entry no real log would accept for this signature, here with a SET
   * that verifies, so only the entry's key binding can refuse it.
   */
  public Map<String, String> keyedRekord(
      KeyPair signer, PublicKey loggedKey, boolean contentInsteadOfHash) {
    try {
      String signature = Base64.getEncoder().encodeToString(sign(signer.getPrivate(), MESSAGE));
      String publicPem =
          "-----BEGIN PUBLIC KEY-----\n"
              + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                  .encodeToString(loggedKey.getEncoded())
              + "\n-----END PUBLIC KEY-----\n";
      ObjectNode body = JSON.createObjectNode();
      body.put("apiVersion", "0.0.1");
      body.put("kind", "rekord");
      ObjectNode data = body.putObject("spec").putObject("data");
      if (contentInsteadOfHash) {
        data.put("content", Base64.getEncoder().encodeToString(MESSAGE));
      } else {
        ObjectNode hash = data.putObject("hash");
        hash.put("algorithm", "sha256");
        hash.put(
            "value",
            HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(MESSAGE)));
      }
      ObjectNode sig = ((ObjectNode) body.get("spec")).putObject("signature");
      sig.put("format", "x509");
      sig.put("content", signature);
      sig.putObject("publicKey")
          .put(
              "content",
              Base64.getEncoder().encodeToString(publicPem.getBytes(StandardCharsets.US_ASCII)));
      RekorBundle unsigned =
          new RekorBundle(
              "x",
              Base64.getEncoder().encodeToString(JSON.writeValueAsBytes(body)),
              T0.plusSeconds(1).getEpochSecond(),
              7,
              TrustedRoot.logIdOf(logKey.getPublic()));
      String set =
          Base64.getEncoder()
              .encodeToString(
                  sign(logKey.getPrivate(), TransparencyLogProofs.setCanonicalJson(unsigned)));
      RekorBundle bundle =
          new RekorBundle(
              set,
              unsigned.body(),
              unsigned.integratedTime(),
              unsigned.logIndex(),
              unsigned.logId());
      AnnotationDomain d = AnnotationDomain.DEFAULT;
      Map<String, String> annotations = new LinkedHashMap<>();
      annotations.put(d.message(), b64gz(MESSAGE));
      annotations.put(d.signature(0), signature);
      annotations.put(d.bundle(0), b64gz(bundle.toJson().getBytes(StandardCharsets.UTF_8)));
      return annotations;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The ConfigMap of {@link #MESSAGE} carrying {@code annotations}, as YAML. */
  public static String liveYaml(Map<String, String> annotations) {
    StringBuilder a = new StringBuilder("metadata:\n  annotations:\n");
    annotations.forEach((k, v) -> a.append("    ").append(k).append(": ").append(v).append('\n'));
    return new String(MESSAGE, StandardCharsets.UTF_8).replace("metadata:\n", a.toString());
  }

  /** What to forge. Defaults: a well-formed Fulcio-like set. */
  public static final class Spec {
    public GeneralName[] sans = {new GeneralName(GeneralName.uniformResourceIdentifier, SUBJECT)};
    String oidcIssuer = ISSUER;
    public boolean selfSigned;
    boolean legacyIssuerOnly;
    boolean rekord;
    public KeyPair logKey;
    Instant notBefore = T0;
    Instant integratedTime = T0.plusSeconds(1);

    /** The data the log entry hashes, and the algorithm it names (the value is always SHA-256). */
    byte[] loggedMessage = MESSAGE;

    String hashAlgorithm = "sha256";
  }

  static String b64gz(byte[] data) {
    return Base64.getEncoder().encodeToString(FixtureManifests.gzip(data));
  }

  public static KeyPair ec() {
    try {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      return g.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] sign(PrivateKey key, byte[] data) throws Exception {
    Signature s = Signature.getInstance("SHA256withECDSA");
    s.initSign(key);
    s.update(data);
    return s.sign();
  }

  static String pem(X509Certificate cert) throws Exception {
    return "-----BEGIN CERTIFICATE-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(cert.getEncoded())
        + "\n-----END CERTIFICATE-----\n";
  }

  static X509Certificate certificate(
      PublicKey subjectKey,
      PrivateKey issuerKey,
      String subject,
      X500Name issuer,
      GeneralName[] sans,
      String oidcIssuer,
      boolean legacyIssuerOnly,
      Instant notBefore,
      Instant notAfter,
      boolean ca) {
    try {
      JcaX509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              issuer,
              BigInteger.valueOf(System.nanoTime()),
              Date.from(notBefore),
              Date.from(notAfter),
              new X500Name(subject),
              subjectKey);
      if (ca) {
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        b.addExtension(
            Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      } else {
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
        b.addExtension(
            Extension.extendedKeyUsage,
            false,
            new ExtendedKeyUsage(KeyPurposeId.id_kp_codeSigning));
        b.addExtension(Extension.subjectAlternativeName, true, new GeneralNames(sans));
        if (oidcIssuer != null) {
          b.addExtension(
              new ASN1ObjectIdentifier("1.3.6.1.4.1.57264.1.1"),
              false,
              oidcIssuer.getBytes(StandardCharsets.UTF_8));
          if (!legacyIssuerOnly) {
            b.addExtension(
                new ASN1ObjectIdentifier("1.3.6.1.4.1.57264.1.8"),
                false,
                new DERUTF8String(oidcIssuer));
          }
        }
      }
      return new JcaX509CertificateConverter()
          .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey)));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
