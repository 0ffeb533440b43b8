package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Env;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import dev.countersign.verification.CertificateIdentity;
import dev.countersign.verification.RekorEntryBody;
import dev.countersign.verification.RekorLogEntry;
import dev.countersign.verification.SigstoreResponseVerifier;
import dev.countersign.verification.TrustedRoot;
import dev.sigstore.rekor.client.HashedRekordRequest;
import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Date;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.erdtman.jcs.JsonCanonicalizer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The checks keyless signing applies to Fulcio's certificate and Rekor's entry ({@link
 * SigstoreResponseVerifier}): a real certificate and entry from the loopback stack pass, and each
 * hostile variant, built from the real ones, fails with its reason.
 */
@RequiresSigstoreStack
class SigstoreResponseChecksTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static Real real;

  private final SigstoreTestStack stack;

  SigstoreResponseChecksTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  /** One real signature: its certificate, its entry as Rekor serves it, the stack's root. */
  private record Real(X509Certificate leaf, String entryJson, TrustedRoot root, String stackUrl) {}

  @BeforeEach
  void signOnce() throws Exception {
    if (real != null && real.stackUrl().equals(stack.baseUrl())) {
      return;
    }
    stack.clearFaults();
    SignatureMaterial material;
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig()),
            Env.of(stack.githubEnv()),
            Clock.systemUTC())) {
      material = signer.sign("kind: ConfigMap\n".getBytes(StandardCharsets.UTF_8));
    }
    X509Certificate leaf =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(
                        material.certificatePem().orElseThrow().getBytes(StandardCharsets.UTF_8)));
    long index = material.rekorBundle().orElseThrow().logIndex();
    String entry =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(
                        URI.create(stack.baseUrl() + "/api/v1/log/entries?logIndex=" + index))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .body();
    real = new Real(leaf, entry, TrustedRoot.fromFile(stack.trustedRoot()), stack.baseUrl());
  }

  private RekorLogEntry realEntry() {
    return RekorLogEntry.parse(real.entryJson().getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void realCertificateAndEntry_fromTheStack_verify() {
    SigstoreResponseVerifier verifier = new SigstoreResponseVerifier(real.root());
    assertThatCode(() -> verifier.verifyCertificate(real.leaf())).doesNotThrowAnyException();
    assertThatCode(() -> verifier.verifyLogEntry(realEntry(), real.leaf()))
        .doesNotThrowAnyException();
    assertThat(CertificateIdentity.of(real.leaf()))
        .isEqualTo(new CertificateIdentity(stack.identitySan(), stack.identityIssuer()));
  }

  @Test
  void certificate_fromACertificateAuthorityNotInTheTrustedRoot_isRejected() {
    TrustedRoot publicGood =
        TrustedRoot.fromFile(
            Path.of("src/test/resources/verification/sigstore/trusted_root_public_good.json"));
    TrustedRoot otherCa =
        new TrustedRoot(
            real.root().logs(),
            publicGood.certificateAuthorities(),
            real.root().certificateTransparencyLogs());
    assertThatThrownBy(() -> new SigstoreResponseVerifier(otherCa).verifyCertificate(real.leaf()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not chain to a certificate authority of the trusted root");
  }

  @Test
  void warmUp_decidesNothing_aWarmedVerifierStillAcceptsTheRealCertificateAndRejectsAForeignOne() {
    // The stack's authority has no intermediate (the root is validated against itself); the
    // public-good one has (its intermediate is validated against its root).
    SigstoreResponseVerifier stackRoot = new SigstoreResponseVerifier(real.root());
    TrustedRoot publicGood =
        TrustedRoot.fromFile(
            Path.of("src/test/resources/verification/sigstore/trusted_root_public_good.json"));
    List<TrustedRoot.CertificateAuthority> withIntermediate =
        publicGood.certificateAuthorities().stream().filter(ca -> ca.chain().size() > 1).toList();
    assertThat(withIntermediate).isNotEmpty();
    SigstoreResponseVerifier otherCa =
        new SigstoreResponseVerifier(
            new TrustedRoot(
                real.root().logs(), withIntermediate, real.root().certificateTransparencyLogs()));

    assertThatCode(stackRoot::warmUp).doesNotThrowAnyException();
    assertThatCode(otherCa::warmUp).doesNotThrowAnyException();

    assertThatCode(() -> stackRoot.verifyCertificate(real.leaf())).doesNotThrowAnyException();
    assertThatThrownBy(() -> otherCa.verifyCertificate(real.leaf()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("does not chain to a certificate authority of the trusted root");
  }

  @Test
  void certificate_whoseSctIsByALogTheTrustedRootDoesNotName_isRejected() {
    TrustedRoot noCtLogs =
        new TrustedRoot(real.root().logs(), real.root().certificateAuthorities(), List.of());
    assertThatThrownBy(() -> new SigstoreResponseVerifier(noCtLogs).verifyCertificate(real.leaf()))
        .hasMessageContaining("no embedded SCT verifies")
        .hasMessageContaining("which the trusted root does not name");
  }

  @Test
  void certificate_whoseSctDoesNotVerifyWithTheCtLogKey_isRejected() throws Exception {
    // The CT log's ID, but another key: the SCT's signature cannot verify.
    TrustedRoot.TransparencyLogKey ctLog = real.root().certificateTransparencyLogs().get(0);
    TrustedRoot.TransparencyLogKey impostor =
        new TrustedRoot.TransparencyLogKey(
            ctLog.logId(), p256().getPublic(), ctLog.baseUrl(), Instant.EPOCH, Optional.empty());
    TrustedRoot wrongKey =
        new TrustedRoot(
            real.root().logs(), real.root().certificateAuthorities(), List.of(impostor));
    assertThatThrownBy(() -> new SigstoreResponseVerifier(wrongKey).verifyCertificate(real.leaf()))
        .hasMessageContaining("whose signature does not verify");
  }

  @Test
  void certificate_withoutAnEmbeddedSct_fromATrustedCa_isRejected() throws Exception {
    KeyPair caKey = p256();
    X509Certificate ca = certificate(caKey, "CN=ca", caKey.getPublic(), "CN=ca", true);
    X509Certificate leaf = certificate(caKey, "CN=ca", p256().getPublic(), "CN=leaf", false);
    TrustedRoot ownCa =
        new TrustedRoot(
            real.root().logs(),
            List.of(
                new TrustedRoot.CertificateAuthority(
                    "https://ca.test", List.of(ca), Instant.EPOCH, Optional.empty())),
            real.root().certificateTransparencyLogs());
    SigstoreResponseVerifier verifier = new SigstoreResponseVerifier(ownCa);
    // the chain holds, so it is the missing SCT that rejects it
    assertThatThrownBy(() -> verifier.verifyCertificate(leaf))
        .hasMessageContaining("has no embedded SCT");
  }

  @Test
  void entry_withATamperedSet_isRejected() {
    RekorLogEntry entry = realEntry();
    byte[] set = Base64.getDecoder().decode(entry.bundle().signedEntryTimestamp());
    set[set.length - 1] ^= 1;
    RekorLogEntry tampered =
        new RekorLogEntry(
            withSet(entry.bundle(), Base64.getEncoder().encodeToString(set)),
            entry.inclusionProof());
    assertThatThrownBy(
            () -> new SigstoreResponseVerifier(real.root()).verifyLogEntry(tampered, real.leaf()))
        .hasMessageContaining("signed entry timestamp does not verify");
  }

  @Test
  void entry_whoseBodyDiffersFromWhatTheSetSigned_isRejected() {
    RekorLogEntry entry = realEntry();
    String otherBody =
        Base64.getEncoder()
            .encodeToString(
                RekorEntryBody.hashedRekordRequest(new byte[32], new byte[] {1}, new byte[] {2})
                    .getBytes(StandardCharsets.UTF_8));
    RekorBundle b = entry.bundle();
    RekorLogEntry swapped =
        new RekorLogEntry(
            new RekorBundle(
                b.signedEntryTimestamp(), otherBody, b.integratedTime(), b.logIndex(), b.logId()),
            entry.inclusionProof());
    assertThatThrownBy(
            () -> new SigstoreResponseVerifier(real.root()).verifyLogEntry(swapped, real.leaf()))
        .hasMessageContaining("signed entry timestamp does not verify");
  }

  @Test
  void entry_withAWrongInclusionProof_isRejected() {
    RekorLogEntry entry = realEntry();
    RekorLogEntry.InclusionProof proof = entry.inclusionProof().orElseThrow();
    assertThat(proof.hashes()).isNotEmpty();
    List<byte[]> hashes = new ArrayList<>(proof.hashes());
    byte[] first = hashes.get(0).clone();
    first[0] ^= 1;
    hashes.set(0, first);
    RekorLogEntry wrongPath =
        new RekorLogEntry(
            entry.bundle(),
            Optional.of(
                new RekorLogEntry.InclusionProof(
                    proof.logIndex(),
                    proof.rootHash(),
                    proof.treeSize(),
                    hashes,
                    proof.checkpoint())));
    assertThatThrownBy(
            () -> new SigstoreResponseVerifier(real.root()).verifyLogEntry(wrongPath, real.leaf()))
        .hasMessageContaining("inclusion proof does not lead");
    RekorLogEntry noProof = new RekorLogEntry(entry.bundle(), Optional.empty());
    assertThatThrownBy(
            () -> new SigstoreResponseVerifier(real.root()).verifyLogEntry(noProof, real.leaf()))
        .hasMessageContaining("no inclusion proof");
  }

  @Test
  void entry_whoseCheckpointIsSignedByAnotherKey_isRejected() throws Exception {
    RekorLogEntry entry = realEntry();
    RekorLogEntry.InclusionProof proof = entry.inclusionProof().orElseThrow();
    String note = proof.checkpoint();
    String text = note.substring(0, note.indexOf("\n\n") + 1);
    String name = note.substring(note.indexOf("\u2014 ") + 2, note.lastIndexOf(' '));
    byte[] hint = Arrays.copyOf(HexFormat.of().parseHex(entry.bundle().logId()), 4);
    String forged = signedNote(text, name, hint, p256().getPrivate());
    RekorLogEntry resigned =
        new RekorLogEntry(
            entry.bundle(),
            Optional.of(
                new RekorLogEntry.InclusionProof(
                    proof.logIndex(), proof.rootHash(), proof.treeSize(), proof.hashes(), forged)));
    assertThatThrownBy(
            () -> new SigstoreResponseVerifier(real.root()).verifyLogEntry(resigned, real.leaf()))
        .hasMessageContaining("checkpoint is not signed by transparency log");
  }

  @Test
  void entry_integratedOutsideTheCertificatesValidity_isRejected_byALogThatIsOtherwiseValid()
      throws Exception {
    KeyPair logKey = p256();
    TrustedRoot.TransparencyLogKey log =
        TrustedRoot.TransparencyLogKey.of(
            logKey.getPublic(), "http://log.test", Instant.EPOCH, Optional.empty());
    TrustedRoot root =
        new TrustedRoot(
            List.of(log),
            real.root().certificateAuthorities(),
            real.root().certificateTransparencyLogs());
    SigstoreResponseVerifier verifier = new SigstoreResponseVerifier(root);
    String body = realEntry().bundle().body();
    long during = real.leaf().getNotBefore().toInstant().getEpochSecond() + 1;
    long after = real.leaf().getNotAfter().toInstant().getEpochSecond() + 3600;

    // control: the same forged log with a time inside the validity passes every check
    assertThatCode(
            () -> verifier.verifyLogEntry(oneLeafLog(logKey, log, body, during, 1), real.leaf()))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () -> verifier.verifyLogEntry(oneLeafLog(logKey, log, body, after, 1), real.leaf()))
        .hasMessageContaining("the certificate was not valid at the entry's integratedTime");
    // a checkpoint (correctly signed) for another tree than the proof's
    assertThatThrownBy(
            () -> verifier.verifyLogEntry(oneLeafLog(logKey, log, body, during, 2), real.leaf()))
        .hasMessageContaining("checkpoint commits to another tree");
  }

  @Test
  void certificate_forAnotherIdentityThanTheTokens_isRejected() {
    CertificateIdentity certified = CertificateIdentity.of(real.leaf());
    String workflowRef = stack.identitySan().substring("https://github.com/".length());
    // control: the token Fulcio certified
    assertThatCode(
            () ->
                SigstoreKeylessSigner.requireTokenIdentity(
                    certified, jwt(SigstoreTestStack.GITHUB_ISSUER, workflowRef)))
        .doesNotThrowAnyException();
    assertThatThrownBy(
            () ->
                SigstoreKeylessSigner.requireTokenIdentity(
                    certified,
                    jwt(
                        SigstoreTestStack.GITHUB_ISSUER,
                        "evil-org/evil/.github/workflows/x.yml@refs/heads/main")))
        .isInstanceOf(RemoteProblem.class)
        .hasMessageContaining("not the identity token's");
    assertThatThrownBy(
            () ->
                SigstoreKeylessSigner.requireTokenIdentity(
                    certified, jwt("https://issuer.example.test", workflowRef)))
        .isInstanceOf(RemoteProblem.class)
        .hasMessageContaining("not the identity token's");
  }

  /** An (unsigned) JWT with GitHub's identity claims: only its claims are read here. */
  private static String jwt(String issuer, String jobWorkflowRef) {
    ObjectNode claims = JSON.createObjectNode();
    claims.put("iss", issuer);
    claims.put("sub", "repo:octo-org/octo-repo:ref:refs/heads/main");
    claims.put("job_workflow_ref", jobWorkflowRef);
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    return url.encodeToString("{\"alg\":\"none\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + url.encodeToString(claims.toString().getBytes(StandardCharsets.UTF_8))
        + ".c2ln";
  }

  @Test
  void hashedRekordRequest_isByteForByteWhatSigstoreJavaSends() throws Exception {
    byte[] digest = MessageDigest.getInstance("SHA-256").digest(new byte[] {42});
    byte[] signature = {48, 6, 2, 1, 1, 2, 1, 1};
    byte[] pem = "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".getBytes();
    assertThat(RekorEntryBody.hashedRekordRequest(digest, signature, pem))
        .isEqualTo(
            HashedRekordRequest.newHashedRekordRequest(digest, pem, signature).toJsonPayload());
  }

  /**
   * A log of one leaf (the entry): SET, root = leaf hash, checkpoint for {@code checkpointSize}
   * leaves, all signed with {@code key}.
   */
  private static RekorLogEntry oneLeafLog(
      KeyPair key,
      TrustedRoot.TransparencyLogKey log,
      String body64,
      long integratedTime,
      long checkpointSize)
      throws Exception {
    ObjectNode signed = JSON.createObjectNode();
    signed.put("body", body64);
    signed.put("integratedTime", integratedTime);
    signed.put("logID", log.logId());
    signed.put("logIndex", 0L);
    byte[] set =
        sign(
            key.getPrivate(),
            new JsonCanonicalizer(JSON.writeValueAsString(signed)).getEncodedUTF8());
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    sha.update((byte) 0);
    byte[] root = sha.digest(Base64.getDecoder().decode(body64));
    String text =
        "log.test - 1\n" + checkpointSize + "\n" + Base64.getEncoder().encodeToString(root) + "\n";
    String checkpoint =
        signedNote(
            text,
            "log.test",
            Arrays.copyOf(HexFormat.of().parseHex(log.logId()), 4),
            key.getPrivate());
    return new RekorLogEntry(
        new RekorBundle(
            Base64.getEncoder().encodeToString(set), body64, integratedTime, 0, log.logId()),
        Optional.of(new RekorLogEntry.InclusionProof(0, root, 1, List.of(), checkpoint)));
  }

  private static String signedNote(String text, String name, byte[] hint, PrivateKey key)
      throws Exception {
    byte[] signature = sign(key, text.getBytes(StandardCharsets.UTF_8));
    byte[] hinted = new byte[4 + signature.length];
    System.arraycopy(hint, 0, hinted, 0, 4);
    System.arraycopy(signature, 0, hinted, 4, signature.length);
    return text + "\n\u2014 " + name + " " + Base64.getEncoder().encodeToString(hinted) + "\n";
  }

  private static RekorBundle withSet(RekorBundle b, String set) {
    return new RekorBundle(set, b.body(), b.integratedTime(), b.logIndex(), b.logId());
  }

  private static byte[] sign(PrivateKey key, byte[] data) throws Exception {
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(key);
    signer.update(data);
    return signer.sign();
  }

  private static KeyPair p256() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }

  private static X509Certificate certificate(
      KeyPair issuerKey,
      String issuer,
      java.security.PublicKey subjectKey,
      String subject,
      boolean ca)
      throws Exception {
    Instant now = Instant.now();
    JcaX509v3CertificateBuilder builder =
        new JcaX509v3CertificateBuilder(
            new X500Name(issuer),
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minusSeconds(60)),
            Date.from(now.plusSeconds(600)),
            new X500Name(subject),
            subjectKey);
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    if (!ca) {
      builder.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(new GeneralName(GeneralName.rfc822Name, "someone@example.test")));
    }
    return new JcaX509CertificateConverter()
        .getCertificate(
            builder.build(
                new JcaContentSignerBuilder("SHA256withECDSA").build(issuerKey.getPrivate())));
  }
}
