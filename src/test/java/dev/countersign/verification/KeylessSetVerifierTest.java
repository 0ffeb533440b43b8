package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.RekorBundle;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x509.GeneralName;
import org.junit.jupiter.api.Test;

/**
 * Forged and malformed keyless sets, built with a real (fake) log key and CA so only one thing is
 * wrong each time.
 */
class KeylessSetVerifierTest {

  private final FakeSigstore sigstore = new FakeSigstore();
  private static final AnnotationDomain D = AnnotationDomain.DEFAULT;

  private DocumentVerdict verify(Map<String, String> annotations, IdentityRule rule) {
    TrustPolicy policy = new TrustPolicy(List.of(rule), List.of(), 1, List.of(), D, false);
    ManifestVerifier verifier =
        new ManifestVerifier(sigstore.trustedRoot(), policy, FixtureManifests.FORMAT);
    List<DocumentVerdict> verdicts =
        verifier.verify(FixtureManifests.fromYaml(FakeSigstore.liveYaml(annotations)));
    assertThat(verdicts).hasSize(1);
    return verdicts.get(0);
  }

  private DocumentVerdict verify(Map<String, String> annotations) {
    return verify(annotations, IdentityRule.exact(FakeSigstore.SUBJECT, FakeSigstore.ISSUER));
  }

  @Test
  void wellFormedSet_passes_positiveControl() {
    DocumentVerdict verdict = verify(sigstore.keyless(new FakeSigstore.Spec()));
    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers()).containsExactly(FakeSigstore.SUBJECT);
  }

  @Test
  void legacyIssuerExtensionOnly_andLegacyRekordKind_areAccepted() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.legacyIssuerOnly = true;
    spec.rekord = true;
    DocumentVerdict verdict = verify(sigstore.keyless(spec));
    assertThat(verdict.passed()).as(verdict.reason()).isTrue();

    DocumentVerdict wrongIssuer =
        verify(sigstore.keyless(spec), IdentityRule.exact(FakeSigstore.SUBJECT, "https://other"));
    assertThat(wrongIssuer.passed()).isFalse();
  }

  @Test
  void noIssuerExtension_isRejected() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.oidcIssuer = null;
    DocumentVerdict verdict = verify(sigstore.keyless(spec));
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("has no OIDC issuer extension");
  }

  @Test
  void wrongIssuer_isRejected() {
    DocumentVerdict verdict =
        verify(
            sigstore.keyless(new FakeSigstore.Spec()),
            IdentityRule.exact(FakeSigstore.SUBJECT, "https://accounts.google.com"));
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains(
            "certificate SAN "
                + FakeSigstore.SUBJECT
                + " (issuer "
                + FakeSigstore.ISSUER
                + ") does not match the allowed identities");
  }

  @Test
  void unknownLogId_isRejected() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.logKey = FakeSigstore.ec();
    DocumentVerdict verdict = verify(sigstore.keyless(spec));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .isEqualTo(
            "signature set 0: bundle logID "
                + TrustedRoot.logIdOf(spec.logKey.getPublic())
                + " is not a transparency log in the trusted root");
  }

  @Test
  void selfSignedCertificate_withValidSet_isRejectedByChainCheck() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.selfSigned = true;
    DocumentVerdict verdict = verify(sigstore.keyless(spec));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .startsWith("signature set 0: the certificate (issuer ")
        .contains(
            "does not chain to a certificate authority of the trusted root valid at"
                + " 2026-01-01T00:00:01Z")
        .contains("signature check failed");
  }

  @Test
  void twoSans_isRejected() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.sans =
        new GeneralName[] {
          new GeneralName(GeneralName.uniformResourceIdentifier, FakeSigstore.SUBJECT),
          new GeneralName(GeneralName.rfc822Name, "mallory@example.com")
        };
    DocumentVerdict verdict = verify(sigstore.keyless(spec));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains("the certificate is rejected: it has 2 subject alternative names");
  }

  @Test
  void certificateExpiredAtIntegratedTime_isRejected() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.integratedTime = spec.notBefore.plusSeconds(601);
    DocumentVerdict verdict = verify(sigstore.keyless(spec));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains("the certificate was not valid at the entry's integratedTime");
  }

  @Test
  void tamperedIntegratedTime_breaksTheSet() {
    Map<String, String> annotations = sigstore.keyless(new FakeSigstore.Spec());
    RekorBundle bundle =
        RekorBundle.parse(
            FixtureManifests.gunzipIfGzip(
                Base64.getDecoder().decode(annotations.get(D.bundle(0)))));
    RekorBundle moved =
        new RekorBundle(
            bundle.signedEntryTimestamp(),
            bundle.body(),
            bundle.integratedTime() + 1,
            bundle.logIndex(),
            bundle.logId());
    annotations.put(
        D.bundle(0), FakeSigstore.b64gz(moved.toJson().getBytes(StandardCharsets.UTF_8)));

    DocumentVerdict verdict = verify(annotations);
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("the bundle's signed entry timestamp does not verify");
  }

  @Test
  void signatureNotTheLoggedOne_isRejected() throws Exception {
    Map<String, String> annotations = sigstore.keyless(new FakeSigstore.Spec());
    Map<String, String> other = sigstore.keyless(new FakeSigstore.Spec());
    annotations.put(D.signature(0), other.get(D.signature(0)));

    DocumentVerdict verdict = verify(annotations);
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains("the log entry holds a different signature than the signature annotation");
  }

  @Test
  void logEntryForAnotherMessage_isRejected_thoughItsSetCertificateAndSignatureHold() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.loggedMessage = "kind: Secret\n".getBytes(StandardCharsets.UTF_8);

    DocumentVerdict verdict = verify(sigstore.keyless(spec));
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("the log entry is for a different message");
  }

  @Test
  void logEntryNamingAnotherHashAlgorithm_isRejected_thoughItsValueIsTheMessagesSha256() {
    FakeSigstore.Spec spec = new FakeSigstore.Spec();
    spec.hashAlgorithm = "sha512";

    DocumentVerdict verdict = verify(sigstore.keyless(spec));
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("the log entry hashes with sha512, expected sha256");
  }

  @Test
  void certificateNotTheLoggedOne_isRejected() {
    Map<String, String> annotations = sigstore.keyless(new FakeSigstore.Spec());
    Map<String, String> other = sigstore.keyless(new FakeSigstore.Spec());
    annotations.put(D.certificate(0), other.get(D.certificate(0)));

    DocumentVerdict verdict = verify(annotations);
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains("the log entry holds a different certificate than the certificate annotation");
  }

  @Test
  void setCanonicalJson_isSortedAndCompact() {
    RekorBundle bundle = new RekorBundle("s", "Ym9keQ==", 1655452519, 2690357, "c0d2");
    assertThat(new String(TransparencyLogProofs.setCanonicalJson(bundle), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"body\":\"Ym9keQ==\",\"integratedTime\":1655452519,\"logID\":\"c0d2\",\"logIndex\":2690357}");
  }

  @Test
  void setCanonicalJson_writtenDirectly_equalsTheJcsLibrarysOutput() {
    List<RekorBundle> bundles =
        List.of(
            new RekorBundle("s", "Ym9keQ==", 1655452519, 2690357, "c0d2"),
            new RekorBundle("s", "", 0, 0, ""),
            new RekorBundle("s", "a/b+c=", -1, 1L << 53, "~ !#$%&'()*+,-./:;<=>?@[]^_`{|}"),
            // Values JCS does not write as they are: escapes, non-ASCII, numbers beyond 2^53.
            new RekorBundle("s", "quote\"back\\slash", 1, 2, "tab\tnl\n\u0001"),
            new RekorBundle("s", "caf\u00e9 \u2028 \ud83d\ude00", 1, 2, "x"),
            new RekorBundle("s", "b", (1L << 53) + 1, Long.MAX_VALUE, "x"),
            new RekorBundle("s", "b", Long.MIN_VALUE, -(1L << 53) - 1, "x"),
            // One such value at a time, the others plain: each must send the whole to JCS.
            new RekorBundle("s", "quote\"", 1, 2, "c0d2"),
            new RekorBundle("s", "Ym9keQ==", 1, 2, "back\\slash"),
            new RekorBundle("s", "Ym9keQ==", (1L << 53) + 1, 2, "c0d2"),
            new RekorBundle("s", "Ym9keQ==", 1, -(1L << 53) - 1, "c0d2"));
    for (RekorBundle bundle : bundles) {
      assertThat(TransparencyLogProofs.setCanonicalJson(bundle))
          .as(bundle.toString())
          .isEqualTo(TransparencyLogProofs.setCanonicalJsonByJcs(bundle));
    }
  }
}
