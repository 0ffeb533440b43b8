package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.PublicKey;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The upstream fixtures verify exactly as /work/shared/fixtures/README.md says, offline. */
class ManifestVerifierTest {

  static final String GITHUB = "https://github.com/login/oauth";
  static final String GOOGLE = "https://accounts.google.com";

  static Path resource(String name) {
    try {
      return Path.of(ManifestVerifierTest.class.getResource("/verification/" + name).toURI());
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static TrustedRoot publicGood() {
    return TrustedRoot.fromFile(resource("sigstore/trusted_root_public_good.json"));
  }

  static PublicKey keyA() {
    return PublicKeys.read(resource("k8s-manifest-sigstore/key-a.pub"));
  }

  static PublicKey keyC() {
    return PublicKeys.read(resource("k8s-manifest-sigstore/key-c.pub"));
  }

  static TrustPolicy keys(PublicKey... keys) {
    return new TrustPolicy(List.of(), List.of(keys), 1, List.of(), AnnotationDomain.DEFAULT, false);
  }

  static TrustPolicy identities(IdentityRule... rules) {
    return new TrustPolicy(
        List.of(rules), List.of(), 1, List.of(), AnnotationDomain.DEFAULT, false);
  }

  static ManifestVerifier verifier(TrustedRoot root, TrustPolicy policy) {
    return new ManifestVerifier(root, policy, FixtureManifests.FORMAT);
  }

  static ManifestVerifier clusterVerifier(TrustedRoot root, TrustPolicy policy) {
    return new ManifestVerifier(root, policy, FixtureManifests.FORMAT, ContentMatch.CLUSTER_OBJECT);
  }

  static DocumentVerdict only(List<DocumentVerdict> verdicts) {
    assertThat(verdicts).hasSize(1);
    return verdicts.get(0);
  }

  static ManifestFile fixture(String name) {
    return FixtureManifests.read(resource("k8s-manifest-sigstore/" + name));
  }

  @Test
  void unsignedConfigMap_isRejected_noMessage() {
    DocumentVerdict verdict =
        only(verifier(null, keys(keyA())).verify(fixture("sample-configmap.yaml")));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .isEqualTo("no cosign.sigstore.dev/message annotation: the file is not signed");
    assertThat(verdict.description()).isEqualTo("ConfigMap/sample-cm");
    assertThat(verdict.file()).isEqualTo(Path.of("sample-configmap.yaml"));
    assertThat(verdict.line()).isEqualTo(1);
  }

  @Test
  void legacyTarballSigned_isValidWithKeyA_notWithKeyC() {
    ManifestFile file = fixture("sample-configmap-signed.yaml");

    DocumentVerdict withA = only(verifier(null, keys(keyA())).verify(file));
    assertThat(withA.passed()).as(withA.reason()).isTrue();
    assertThat(withA.signers()).containsExactly(PublicKeys.fingerprint(keyA()));
    assertThat(withA.reason()).isEqualTo("signed by " + PublicKeys.fingerprint(keyA()));

    DocumentVerdict withC = only(verifier(null, keys(keyC())).verify(file));
    assertThat(withC.passed()).isFalse();
    assertThat(withC.reason())
        .isEqualTo(
            "signature set 0: the signature does not verify with the key "
                + PublicKeys.fingerprint(keyC()));
  }

  @Test
  void multiSigned_isValidWithKeyA_viaSignature1_andInvalidWithKeyC() {
    ManifestFile file = fixture("sample-configmap-multi-signed.yaml");

    DocumentVerdict withA = only(verifier(null, keys(keyA())).verify(file));
    assertThat(withA.passed()).as(withA.reason()).isTrue();
    assertThat(withA.signers()).containsExactly(PublicKeys.fingerprint(keyA()));

    DocumentVerdict withC = only(verifier(null, keys(keyC())).verify(file));
    assertThat(withC.passed()).isFalse();
    assertThat(withC.signers()).isEmpty();
    assertThat(withC.reason())
        .contains("signature set 0: the signature does not verify")
        .contains("signature set 1: the signature does not verify");
  }

  @Test
  void multiSigned_twoKeysRequired_butOnlyKeyAKnown_isRejectedCountingSigners() {
    TrustPolicy policy =
        new TrustPolicy(
            List.of(), List.of(keyA(), keyC()), 2, List.of(), AnnotationDomain.DEFAULT, false);
    DocumentVerdict verdict =
        only(verifier(null, policy).verify(fixture("sample-configmap-multi-signed.yaml")));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.signers()).containsExactly(PublicKeys.fingerprint(keyA()));
    assertThat(verdict.reason())
        .startsWith(
            "1 distinct signer(s) verified (" + PublicKeys.fingerprint(keyA()) + "), 2 required");
  }

  @Test
  void keylessMultiSigned_isValidForGithubIdentity_offlineAtIntegratedTime() {
    DocumentVerdict verdict =
        only(
            verifier(
                    publicGood(),
                    identities(IdentityRule.exact("hirokuni.kitahara1@ibm.com", GITHUB)))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers()).containsExactly("hirokuni.kitahara1@ibm.com");
  }

  @Test
  void keylessMultiSigned_isValidForGoogleIdentity() {
    DocumentVerdict verdict =
        only(
            verifier(publicGood(), identities(IdentityRule.exact("hkitahar@redhat.com", GOOGLE)))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers()).containsExactly("hkitahar@redhat.com");
  }

  @Test
  void keylessMultiSigned_bothIdentities_countTwoDistinctSigners() {
    TrustPolicy policy =
        new TrustPolicy(
            List.of(
                IdentityRule.exact("hkitahar@redhat.com", GOOGLE),
                IdentityRule.exact("hirokuni.kitahara1@ibm.com", GITHUB)),
            List.of(),
            2,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    DocumentVerdict verdict = verifyKeylessFixture(policy);

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers())
        .containsExactly("hkitahar@redhat.com", "hirokuni.kitahara1@ibm.com");
  }

  /** Matches both SANs of the keyless fixture, with either issuer: one policy entry. */
  static final IdentityRule BOTH_FIXTURE_SIGNERS =
      new IdentityRule(
          "(hkitahar@redhat|hirokuni\\.kitahara1@ibm)\\.com",
          true,
          "https://(accounts\\.google\\.com|github\\.com/login/oauth)",
          true);

  @Test
  void twoSignersOfOneRegexEntry_countOnce_soTheKeyEntryMustStillSign() {
    // The team asks for the workflows (one regex entry) AND the release key: minSigners 2.
    TrustPolicy workflowsAndKey =
        new TrustPolicy(
            List.of(BOTH_FIXTURE_SIGNERS),
            List.of(keyA()),
            2,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    DocumentVerdict verdict = verifyKeylessFixture(workflowsAndKey);

    assertThat(verdict.passed()).as(verdict.reason()).isFalse();
    assertThat(verdict.signers())
        .containsExactly("hkitahar@redhat.com", "hirokuni.kitahara1@ibm.com");
    assertThat(verdict.reason())
        .isEqualTo(
            "1 distinct signer(s) verified (hkitahar@redhat.com), 2 required;"
                + " hirokuni.kitahara1@ibm.com verified too, but only for a policy entry already"
                + " counted (each key and each signers[] entry counts once)");
  }

  @Test
  void twoSigners_eachSatisfyingADifferentEntry_countTwice_evenWhenOneEntryFitsBoth() {
    // The regex entry fits both signers, the exact one only the first: the first must be
    // counted for the exact entry so that the second can be counted for the regex.
    TrustPolicy policy =
        new TrustPolicy(
            List.of(BOTH_FIXTURE_SIGNERS, IdentityRule.exact("hkitahar@redhat.com", GOOGLE)),
            List.of(),
            2,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    DocumentVerdict verdict = verifyKeylessFixture(policy);

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers())
        .containsExactly("hkitahar@redhat.com", "hirokuni.kitahara1@ibm.com");
  }

  @Test
  void oneKey_listedTwice_repeatedOrInItsOtherEcdsaForm_countsOnce() throws Exception {
    String original =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"));
    String line =
        original
            .lines()
            .filter(l -> l.contains("cosign.sigstore.dev/signature_1:"))
            .findFirst()
            .orElseThrow();
    String byKeyA = line.substring(line.indexOf(": ") + 2);
    java.math.BigInteger n = org.bouncycastle.asn1.nist.NISTNamedCurves.getByName("P-256").getN();
    java.math.BigInteger[] rs =
        org.bouncycastle.crypto.signers.StandardDSAEncoding.INSTANCE.decode(
            n, java.util.Base64.getDecoder().decode(byKeyA));
    String otherForm =
        java.util.Base64.getEncoder()
            .encodeToString(
                org.bouncycastle.crypto.signers.StandardDSAEncoding.INSTANCE.encode(
                    n, rs[0], n.subtract(rs[1])));
    // signature_2 repeats keyA's set, signature_3 is keyA's signature as (r, n - s).
    String indent = line.substring(0, line.indexOf("cosign.sigstore.dev/"));
    String repeated =
        original.replace(
            line,
            line
                + "\n"
                + indent
                + "cosign.sigstore.dev/signature_2: "
                + byKeyA
                + "\n"
                + indent
                + "cosign.sigstore.dev/signature_3: "
                + otherForm);
    // keyA twice in the policy: from its file, and inline (a compressed point or explicit curve
    // parameters, the other encodings of one EC key, are refused by PublicKeys.parse).
    PublicKey keyAAgain =
        PublicKeys.parse(
            PublicKeys.toPem(keyA()).getBytes(java.nio.charset.StandardCharsets.US_ASCII),
            Path.of("again.pub"));
    TrustPolicy twice =
        new TrustPolicy(
            List.of(), List.of(keyA(), keyAAgain), 2, List.of(), AnnotationDomain.DEFAULT, false);

    DocumentVerdict verdict =
        only(verifier(null, twice).verify(FixtureManifests.fromYaml(repeated)));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.signers()).containsExactly(PublicKeys.fingerprint(keyA()));
    assertThat(verdict.reason())
        .startsWith(
            "1 distinct signer(s) verified (" + PublicKeys.fingerprint(keyA()) + "), 2 required");
    // Control: the same file passes for keyA alone (minSigners 1): the added sets are valid.
    DocumentVerdict once =
        only(verifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(repeated)));
    assertThat(once.passed()).as(once.reason()).isTrue();
  }

  @Test
  void keylessMultiSigned_otherIdentity_isRejectedNamingSanAndAllowedIdentities() {
    IdentityRule other = IdentityRule.exact("someone@example.com", GITHUB);
    DocumentVerdict verdict =
        only(
            verifier(publicGood(), identities(other))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .isEqualTo(
            "signature set 0: certificate SAN hkitahar@redhat.com (issuer"
                + " https://accounts.google.com) does not match the allowed identities ["
                + other
                + "]; signature set 1: certificate SAN hirokuni.kitahara1@ibm.com (issuer"
                + " https://github.com/login/oauth) does not match the allowed identities ["
                + other
                + "]");
  }

  @Test
  void keylessMultiSigned_mismatchedIdentityIssuerPairs_areRejected() {
    for (IdentityRule rule :
        List.of(
            IdentityRule.exact("hirokuni.kitahara1@ibm.com", GOOGLE),
            IdentityRule.exact("hkitahar@redhat.com", GITHUB))) {
      DocumentVerdict verdict =
          only(
              verifier(publicGood(), identities(rule))
                  .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));
      assertThat(verdict.passed()).as(rule.toString()).isFalse();
      assertThat(verdict.signers()).isEmpty();
    }
  }

  @Test
  void keylessMultiSigned_regexIdentity_mustMatchWholeSan() {
    DocumentVerdict whole =
        only(
            verifier(
                    publicGood(), identities(new IdentityRule(".*@ibm\\.com", true, GITHUB, false)))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));
    assertThat(whole.passed()).as(whole.reason()).isTrue();

    DocumentVerdict partial =
        only(
            verifier(publicGood(), identities(new IdentityRule("ibm", true, GITHUB, false)))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));
    assertThat(partial.passed()).isFalse();
  }

  @Test
  void keylessMultiSigned_insecureIgnoreIdentity_acceptsBothChainedSigners() {
    TrustPolicy any =
        new TrustPolicy(List.of(), List.of(), 1, List.of(), AnnotationDomain.DEFAULT, true);
    DocumentVerdict verdict = verifyKeylessFixture(any);

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
    assertThat(verdict.signers())
        .containsExactly("hkitahar@redhat.com", "hirokuni.kitahara1@ibm.com");
  }

  @Test
  void keylessMultiSigned_withOnlyKeys_isRejected() {
    DocumentVerdict verdict =
        only(
            verifier(null, keys(keyA()))
                .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("is a keyless signature, but no identity is trusted");
  }

  @Test
  void unconstrainedPolicy_isRefused() {
    TrustPolicy nobody =
        new TrustPolicy(List.of(), List.of(), 1, List.of(), AnnotationDomain.DEFAULT, false);
    assertThatThrownBy(() -> verifier(publicGood(), nobody))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("Refusing to verify without an identity")
        .satisfies(
            e ->
                assertThat(((UsageProblem) e).hint())
                    .get()
                    .asString()
                    .contains("--certificate-identity")
                    .contains("--insecure-ignore-identity"));
  }

  @Test
  void identitiesWithoutTrustedRoot_areRefused() {
    assertThatThrownBy(() -> verifier(null, identities(IdentityRule.exact("a@b.c", GITHUB))))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("trusted root");
  }

  @Test
  void editedDataField_isRejectedNamingFieldAndValues() throws Exception {
    String yaml =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"))
            .replace("key1: val1", "key1: val2");
    DocumentVerdict verdict =
        only(verifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(yaml)));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .isEqualTo(
            "content differs from the signed message at data.key1: signed \"val1\", found"
                + " \"val2\"");
  }

  @Test
  void addedAndRemovedFields_areRejected() throws Exception {
    String original =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"));
    DocumentVerdict added =
        only(
            verifier(null, keys(keyA()))
                .verify(
                    FixtureManifests.fromYaml(
                        original.replace("  key4: val4\n", "  key4: val4\n  key5: \"80\"\n"))));
    assertThat(added.reason())
        .isEqualTo(
            "content differs from the signed message at data.key5: signed nothing, found \"80\"");

    DocumentVerdict removed =
        only(
            verifier(null, keys(keyA()))
                .verify(FixtureManifests.fromYaml(original.replace("  key4: val4\n", ""))));
    assertThat(removed.reason())
        .isEqualTo(
            "content differs from the signed message at data.key4: signed \"val4\", found nothing");
  }

  /**
   * The message annotation of a signed file, re-encoded: same message, other gzip framing. Anyone
   * can do this to a signed file without the signer's key.
   */
  @Test
  void keyedLogEntriesRequired_aKeyedSignatureWithAVerifyingLogEntry_passes() {
    FakeSigstore sigstore = new FakeSigstore();
    KeyPair key = FakeSigstore.ec();
    ManifestFile logged =
        FixtureManifests.fromYaml(FakeSigstore.liveYaml(sigstore.keyedRekord(key, false)));

    DocumentVerdict verdict =
        only(verifier(rootOf(sigstore), loggedKeys(key.getPublic())).verify(logged));

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
  }

  @Test
  void keyedLogEntriesRequired_theSameSignatureWithoutItsLogEntry_isRejected() {
    FakeSigstore sigstore = new FakeSigstore();
    KeyPair key = FakeSigstore.ec();
    Map<String, String> annotations = new LinkedHashMap<>(sigstore.keyedRekord(key, false));
    annotations.remove(AnnotationDomain.DEFAULT.bundle(0));
    ManifestFile unlogged = FixtureManifests.fromYaml(FakeSigstore.liveYaml(annotations));

    DocumentVerdict required =
        only(verifier(rootOf(sigstore), loggedKeys(key.getPublic())).verify(unlogged));
    DocumentVerdict notRequired =
        only(verifier(rootOf(sigstore), keys(key.getPublic())).verify(unlogged));

    assertThat(required.passed()).isFalse();
    assertThat(required.reason()).contains("without a transparency log entry of its own");
    assertThat(notRequired.passed()).as(notRequired.reason()).isTrue();
  }

  @Test
  void keyedLogEntriesRequired_aLogEntryOfAnotherSignatureByTheSameKey_isRejected() {
    FakeSigstore sigstore = new FakeSigstore();
    KeyPair key = FakeSigstore.ec();
    Map<String, String> annotations = new LinkedHashMap<>(sigstore.keyedRekord(key, false));
    // ECDSA signatures differ each time: the same key over the same message, logged separately.
    String bundle = AnnotationDomain.DEFAULT.bundle(0);
    annotations.put(bundle, sigstore.keyedRekord(key, false).get(bundle));
    ManifestFile borrowed = FixtureManifests.fromYaml(FakeSigstore.liveYaml(annotations));

    DocumentVerdict verdict =
        only(verifier(rootOf(sigstore), loggedKeys(key.getPublic())).verify(borrowed));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("a different signature than the signature annotation");
  }

  @Test
  void keyedLogEntriesRequired_aLogEntryNamingAnotherPublicKey_isRejected() {
    FakeSigstore sigstore = new FakeSigstore();
    KeyPair key = FakeSigstore.ec();
    ManifestFile otherKeyLogged =
        FixtureManifests.fromYaml(
            FakeSigstore.liveYaml(sigstore.keyedRekord(key, FakeSigstore.ec().getPublic(), false)));

    DocumentVerdict verdict =
        only(verifier(rootOf(sigstore), loggedKeys(key.getPublic())).verify(otherKeyLogged));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason()).contains("a different public key");
  }

  @Test
  void keyedLogEntriesRequired_withoutATrustedRoot_isAUsageProblem() {
    assertThatThrownBy(() -> verifier(null, loggedKeys(keyA())))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("needs a Sigstore trusted root");
  }

  private static TrustPolicy loggedKeys(PublicKey key) {
    return new TrustPolicy(
        List.of(), List.of(key), 1, List.of(), AnnotationDomain.DEFAULT, false, true);
  }

  private static TrustedRoot rootOf(FakeSigstore sigstore) {
    return TrustedRoot.fromJson(
        sigstore.trustedRootJson().getBytes(StandardCharsets.UTF_8), "fake trusted_root.json");
  }

  private static ManifestFile reencodedMessage(java.util.function.UnaryOperator<byte[]> reframe)
      throws Exception {
    String original =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"));
    String value = annotationValue(original, "message");
    byte[] gzip = java.util.Base64.getDecoder().decode(value);
    String reencoded = java.util.Base64.getEncoder().encodeToString(reframe.apply(gzip));
    return FixtureManifests.fromYaml(original.replace(value, reencoded));
  }

  @Test
  void messageReframedAsTwoGzipMembers_stillVerifies_asKyvernoReadsIt() throws Exception {
    ManifestFile file =
        reencodedMessage(
            gzip -> {
              byte[] message = FixtureManifests.gunzipIfGzip(gzip);
              int half = message.length / 2;
              byte[] first = FixtureManifests.gzip(java.util.Arrays.copyOf(message, half));
              byte[] second =
                  FixtureManifests.gzip(
                      java.util.Arrays.copyOfRange(message, half, message.length));
              byte[] both = java.util.Arrays.copyOf(first, first.length + second.length);
              System.arraycopy(second, 0, both, first.length, second.length);
              return both;
            });

    DocumentVerdict verdict = only(verifier(null, keys(keyA())).verify(file));

    assertThat(verdict.passed()).as(verdict.reason()).isTrue();
  }

  @Test
  void messageWithAByteAfterItsGzip_isRejected_asKyvernoVerifiesTheCompressedBytes()
      throws Exception {
    ManifestFile file = reencodedMessage(gzip -> java.util.Arrays.copyOf(gzip, gzip.length + 1));

    DocumentVerdict verdict = only(verifier(null, keys(keyA())).verify(file));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .isEqualTo(
            "the signature annotations cannot be decoded: annotation cosign.sigstore.dev/message"
                + " is not valid gzip (1 byte(s) after member 1 do not start another member;"
                + " Kyverno's gzip reader refuses them)");
  }

  @Test
  void editedSignature_isRejected() throws Exception {
    String original =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"));
    String value = annotationValue(original, "signature_1");
    // flip one base64 character inside r
    char c = value.charAt(20);
    String edited = value.substring(0, 20) + (c == 'A' ? 'B' : 'A') + value.substring(21);
    DocumentVerdict verdict =
        only(
            verifier(null, keys(keyA()))
                .verify(FixtureManifests.fromYaml(original.replace(value, edited))));

    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .contains("signature set 1: the signature does not verify with the key");
  }

  @Test
  void statusAndManagedFields_onLiveObject_areIgnoredOnlyForClusterObjects() throws Exception {
    String live =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"))
            + "status:\n  phase: Ready\n";
    live =
        live.replace(
            "  name: sample-cm\n",
            "  name: sample-cm\n  namespace: default\n  uid: 1234\n  resourceVersion: \"77\"\n"
                + "  labels:\n    app.kubernetes.io/instance: demo\n");
    DocumentVerdict verdict =
        only(clusterVerifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(live)));
    assertThat(verdict.passed()).as(verdict.reason()).isTrue();

    // A file in a repository must equal its message: nothing is ignored.
    DocumentVerdict inGit =
        only(verifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(live)));
    assertThat(inGit.passed()).isFalse();
    assertThat(inGit.reason()).startsWith("content differs from the signed message at ");
  }

  @Test
  void configMapKeyContainingStatus_isProtected_evenForClusterObjects() throws Exception {
    String live =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"))
            .replace("  key1: val1\n", "  key1: val1\n  status: hacked\n");
    assertThat(live).contains("status: hacked");

    DocumentVerdict cluster =
        only(clusterVerifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(live)));
    assertThat(cluster.passed()).isFalse();
    assertThat(cluster.reason()).contains("data.status: signed nothing, found \"hacked\"");
    assertThat(only(verifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(live))).passed())
        .isFalse();
  }

  @Test
  void argoTrackingId_isNotIgnoredByDefault_butIsWithExtraIgnoreField() throws Exception {
    String live =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"))
            .replace(
                "  annotations:\n",
                "  annotations:\n"
                    + "    argocd.argoproj.io/tracking-id: app:/ConfigMap:default/sample-cm\n");
    ManifestFile file = FixtureManifests.fromYaml(live);

    DocumentVerdict strict = only(verifier(null, keys(keyA())).verify(file));
    assertThat(strict.passed()).isFalse();
    assertThat(strict.reason())
        .isEqualTo(
            "content differs from the signed message at"
                + " metadata.annotations.argocd.argoproj.io/tracking-id: signed nothing, found"
                + " \"app:/ConfigMap:default/sample-cm\"");
    assertThat(strict.line()).isEqualTo(8);

    TrustPolicy tolerant =
        new TrustPolicy(
            List.of(),
            List.of(keyA()),
            1,
            List.of("metadata.annotations.argocd.argoproj.io/tracking-id"),
            AnnotationDomain.DEFAULT,
            false);
    DocumentVerdict relaxed = only(clusterVerifier(null, tolerant).verify(file));
    assertThat(relaxed.passed()).as(relaxed.reason()).isTrue();
    // The policy's ignore fields are for cluster objects; a repository file must still be exact.
    assertThat(only(verifier(null, tolerant).verify(file)).passed()).isFalse();
  }

  @Test
  void messageWithoutThisObject_isRejectedListingWhatItHolds() throws Exception {
    String live =
        Files.readString(resource("k8s-manifest-sigstore/sample-configmap-multi-signed.yaml"))
            .replace("  name: sample-cm\n", "  name: other-cm\n");
    DocumentVerdict verdict =
        only(verifier(null, keys(keyA())).verify(FixtureManifests.fromYaml(live)));
    assertThat(verdict.reason())
        .isEqualTo(
            "the signed message holds no ConfigMap/other-cm (it holds [ConfigMap/sample-cm])");
  }

  /**
   * The one document of the keyless fixture signed by two identities, verified under {@code
   * policy}.
   */
  private static DocumentVerdict verifyKeylessFixture(TrustPolicy policy) {
    return only(
        verifier(publicGood(), policy)
            .verify(fixture("sample-configmap-keyless-multi-signed.yaml")));
  }

  /**
   * The value of the annotation {@code cosign.sigstore.dev/<name>} in the YAML text {@code yaml}.
   */
  private static String annotationValue(String yaml, String name) {
    String line =
        yaml.lines()
            .filter(l -> l.contains("cosign.sigstore.dev/" + name + ":"))
            .findFirst()
            .orElseThrow();
    return line.substring(line.indexOf(": ") + 2);
  }
}
