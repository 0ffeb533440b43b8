package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every expected result of the real-world fixtures (/work/shared/fixtures/README.md, "What each
 * signed manifest must verify to"), through the CLI a user runs: {@code verify}, {@code sign} and
 * {@code check}. The files are the unchanged upstream copies under {@code
 * src/test/resources/verification/} and {@code keys/} (see the PROVENANCE.md files there); the
 * {@code cmd/kubectl-sigstore/cli/testdata/} copies of {@code testkey}, {@code testpub}, {@code
 * sample-configmap.yaml} and {@code sample-configmap-signed.yaml} are byte for byte the {@code
 * pkg/k8smanifest/testdata/} ones used here.
 */
class RealWorldFixturesTest {

  private static final String GITHUB = "https://github.com/login/oauth";
  private static final String GOOGLE = "https://accounts.google.com";
  private static final String IBM = "hirokuni.kitahara1@ibm.com";
  private static final String REDHAT = "hkitahar@redhat.com";

  /** sha256 of the 91-byte reference message of sample-configmap.yaml (the spec, section 3.1). */
  private static final String REFERENCE_MESSAGE =
      "7f1e3325c006df008619f607a496084937d906ee2f635f85d6fbac7209533758";

  /** sha256 of the reference message of sample-configmap-concat.yaml (the spec, section 3.1). */
  private static final String CONCAT_MESSAGE =
      "e275f0f24d744e77a9f1a2a46ce7c8bcf297e15add9bc45c531a5ae74a88823c";

  private static final Map<String, String> EMPTY_PASSWORD = Map.of("COSIGN_PASSWORD", "");

  @TempDir Path tmp;

  /** Copies a test resource to {@code tmp/name} (the name a user would see printed). */
  private Path copy(String resource, String name) throws IOException {
    Path file = tmp.resolve(name);
    Files.createDirectories(file.getParent());
    try (InputStream in = getClass().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      Files.write(file, in.readAllBytes());
    }
    return file;
  }

  private Path manifest(String name) throws IOException {
    return copy("/verification/k8s-manifest-sigstore/" + name, name);
  }

  /** Key A or Key C ("a" or "c"), as upstream ships it: base64 of a PEM. */
  private Path key(String which, String file) throws IOException {
    return copy("/keys/key-" + which + "/" + file, "key-" + which + "/" + file);
  }

  private Path root() throws IOException {
    return copy(
        "/verification/sigstore/trusted_root_public_good.json", "trusted_root_public_good.json");
  }

  private static CliRun verify(String... args) {
    List<String> all = new ArrayList<>(List.of("verify"));
    all.addAll(List.of(args));
    return CliRun.run(Map.of(), all.toArray(String[]::new));
  }

  @Test
  void sampleConfigmap_isNotSigned_soVerifyRejectsIt() throws Exception {
    Path file = manifest("sample-configmap.yaml");

    CliRun run = verify("--key", key("a", "testpub").toString(), file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out())
        .contains("FAIL ", "ConfigMap/sample-cm: no cosign.sigstore.dev/message annotation");
  }

  @Test
  void sampleConfigmap_signedWithKeyA_carriesTheReferenceMessage_andVerifiesWithKeyAOnly()
      throws Exception {
    Path file = manifest("sample-configmap.yaml");
    Path out = tmp.resolve("out");

    CliRun sign = signWithKeyA(file, out);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    Path signed = out.resolve("sample-configmap.yaml");
    List<ManifestDocument> documents = read(signed);
    assertThat(documents).hasSize(1);
    byte[] message = message(documents.get(0));
    assertThat(message).hasSize(91);
    assertThat(sha256(message)).isEqualTo(REFERENCE_MESSAGE);
    assertThat(verify("--key", key("a", "testpub").toString(), signed.toString()).exitCode())
        .isZero();
    assertThat(verify("--key", key("c", "testpub").toString(), signed.toString()).exitCode())
        .isEqualTo(1);
  }

  @ParameterizedTest(name = "{0} with Key {1}: exit {2}")
  @CsvSource({
    // legacy tarball message (gzip inside the gzip)
    "sample-configmap-signed.yaml, a, 0",
    "sample-configmap-signed.yaml, c, 1",
    // plain message; signature by an unknown key, signature_1 by Key A
    "sample-configmap-multi-signed.yaml, a, 0",
    "sample-configmap-multi-signed.yaml, c, 1",
  })
  void keyedFixtures_verifyWithKeyAOnly(String name, String key, int exit) throws Exception {
    Path file = manifest(name);

    CliRun run = verify("--key", key(key, "testpub").toString(), file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
    assertThat(run.out()).contains(exit == 0 ? "PASS " : "FAIL ");
  }

  @ParameterizedTest(name = "{0} + {1}: exit {2}")
  @CsvSource({
    IBM + ", " + GITHUB + ", 0",
    REDHAT + ", " + GOOGLE + ", 0",
    // a mismatched identity/issuer pair
    IBM + ", " + GOOGLE + ", 1",
    REDHAT + ", " + GITHUB + ", 1",
    // any other identity
    "someone@example.com, " + GOOGLE + ", 1",
    "someone@example.com, " + GITHUB + ", 1",
  })
  void keylessMultiSigned_offlineAgainstThePublicGoodRoot_verifiesForEachSignersOwnPairOnly(
      String identity, String issuer, int exit) throws Exception {
    Path file = manifest("sample-configmap-keyless-multi-signed.yaml");

    // The certificates expired in 2022: they are judged at the Rekor integratedTime.
    CliRun run =
        verify(
            "--trusted-root",
            root().toString(),
            "--certificate-identity",
            identity,
            "--certificate-oidc-issuer",
            issuer,
            file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
    if (exit == 0) {
      assertThat(run.out()).contains("PASS ", "signed by " + identity);
    }
  }

  /**
   * Both keyless signers of the fixture, each a policy entry of its own, meet minSigners 2; one
   * entry that matches both counts once (docs/trust-policy.md, "Distinct signers").
   */
  @ParameterizedTest(name = "{0}: exit {2}")
  @CsvSource(
      delimiter = '|',
      value = {
        "each signer its own entry | "
            + "[{subject: '"
            + IBM
            + "', issuer: '"
            + GITHUB
            + "'}, {subject: '"
            + REDHAT
            + "', issuer: '"
            + GOOGLE
            + "'}] | 0",
        "one entry matching both | [{subjectRegExp: '.*', issuerRegExp: '.*'}] | 6",
      })
  void keylessMultiSigned_minSignersTwo_needsBothSignersAsEntriesOfTheirOwn(
      String name, String signers, int exit) throws Exception {
    Path repo = tmp.resolve("repo");
    copy(
        "/verification/k8s-manifest-sigstore/sample-configmap-keyless-multi-signed.yaml",
        "repo/signed/k.yaml");
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(
        repo.resolve(".countersign/policy.yaml"),
        "apiVersion: countersign.dev/v1alpha1\nkind: TrustPolicy\nsigners: "
            + signers
            + "\nminSigners: 2\ndirectories:\n  - unsigned: unsigned\n    signed: signed\n");

    CliRun run =
        CliRun.run(
            Map.of(), "check", "--repo", repo.toString(), "--trusted-root", root().toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
    if (exit == 0) {
      assertThat(run.out()).contains("1 of 1 document verified");
    } else {
      assertThat(run.all()).contains("minSigners");
    }
  }

  @Test
  void concat_signedWithKeyA_givesTwoAnnotatedDocumentsSharingOneMessageOfBoth() throws Exception {
    Path file = copy("/manifest/k8s-manifest-sigstore/sample-configmap-concat.yaml", "in/c.yaml");
    Path out = tmp.resolve("out");

    CliRun sign = signWithKeyA(file, out);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    List<ManifestDocument> documents = read(out.resolve("c.yaml"));
    assertThat(documents)
        .extracting(ManifestDocument::name)
        .containsExactly("sample-cm", "sample-cm-2");
    assertThat(message(documents.get(1))).isEqualTo(message(documents.get(0)));
    assertThat(sha256(message(documents.get(0)))).isEqualTo(CONCAT_MESSAGE);
    assertThat(documents.get(1).annotations().get("cosign.sigstore.dev/signature"))
        .isEqualTo(documents.get(0).annotations().get("cosign.sigstore.dev/signature"));
    CliRun verify = verify("--key", key("a", "testpub").toString(), out.toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
    assertThat(verify.out()).contains("2 verified, 0 rejected");
  }

  /**
   * {@code testsig} signs the base64-decoded {@code testblob}, which is a message that is base64
   * but not gzipped: k8s-manifest-sigstore reads such a message annotation as is.
   */
  @ParameterizedTest(name = "Key {0}: exit {1}")
  @CsvSource({"c, 0", "a, 1"})
  void testblobAsAnUngzippedMessage_withTestsig_verifiesWithKeyCOnly(String key, int exit)
      throws Exception {
    String blob = Files.readString(key("c", "testblob")).strip();
    String signature = Files.readString(key("c", "testsig")).strip();
    String content = new String(Base64.getDecoder().decode(blob), StandardCharsets.UTF_8);
    assertThat(content)
        .startsWith("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sample-cm\n");
    Path file = tmp.resolve("testblob.yaml");
    Files.writeString(
        file,
        content.replace(
            "  name: sample-cm\n",
            "  name: sample-cm\n  annotations:\n    cosign.sigstore.dev/message: "
                + blob
                + "\n    cosign.sigstore.dev/signature: "
                + signature
                + "\n"));

    CliRun run = verify("--key", key(key, "testpub").toString(), file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
  }

  /**
   * The default ignore fields of k8s-manifest-sigstore's and Kyverno's default-config.yaml that
   * apply to every kind: a signed object read back from a cluster with all of them set still
   * verifies with {@code --cluster-object}, and a changed value does not.
   */
  @ParameterizedTest(name = "data.key1 {0}: exit {1}")
  @CsvSource({"val1, 0", "val2, 1"})
  void clusterObject_withEveryDefaultIgnoreFieldForAllKindsSet_verifies_butNotAChangedValue(
      String value, int exit) throws Exception {
    String signed = Files.readString(manifest("sample-configmap-multi-signed.yaml"));
    String live =
        signed
                .replace("  key1: val1\n", "  key1: " + value + "\n")
                .replace(
                    "  annotations:\n",
                    """
                      annotations:
                        kubectl.kubernetes.io/last-applied-configuration: '{"kind":"ConfigMap"}'
                        namespace: default
                        control-plane.alpha.kubernetes.io/leader: '{"holderIdentity":"x"}'
                        deprecated.daemonset.template.generation: "1"
                        deployment.kubernetes.io/revision: "3"
                    """)
                .replace(
                    "  name: sample-cm\n",
                    """
                      creationTimestamp: "2024-05-01T10:00:00Z"
                      finalizers:
                      - example.com/cleanup
                      generation: 2
                      labels:
                        app.kubernetes.io/instance: sample
                      managedFields:
                      - apiVersion: v1
                        fieldsType: FieldsV1
                        manager: kubectl-client-side-apply
                        operation: Update
                      name: sample-cm
                      namespace: default
                      resourceVersion: "4711"
                      selfLink: /api/v1/namespaces/default/configmaps/sample-cm
                      uid: 6f1c0a52-3b1d-4b59-9d0e-1a2b3c4d5e6f
                    """)
            + "status:\n  observed: true\n";
    Path file = tmp.resolve("live.yaml");
    Files.writeString(file, live);

    CliRun run =
        verify("--cluster-object", "--key", key("a", "testpub").toString(), file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
    if (exit == 1) {
      assertThat(run.out()).contains("content differs from the signed message at data.key1");
    }
  }

  /** The merge gate reads the same fixtures under signed/: Key A's files pass a Key A policy. */
  @ParameterizedTest(name = "policy key {0}: exit {1}")
  @CsvSource({"a, 0", "c, 1"})
  void check_keyedFixturesUnderSigned_passOnlyAPolicyNamingKeyA(String key, int exit)
      throws Exception {
    Path repo = tmp.resolve("repo");
    copy("/verification/k8s-manifest-sigstore/sample-configmap-signed.yaml", "repo/signed/a.yaml");
    copy(
        "/verification/k8s-manifest-sigstore/sample-configmap-multi-signed.yaml",
        "repo/signed/b.yaml");
    // The source of signed/b.yaml's sample-cm, changed: at any other path the ConfigMap would be
    // in signed/ twice after the next run.
    copy("/manifest/k8s-manifest-sigstore/sample-configmap-concat.yaml", "repo/unsigned/b.yaml");
    copy("/keys/key-" + key + "/testpub", "repo/keys/signer.pub");
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(
        repo.resolve(".countersign/policy.yaml"),
        """
        apiVersion: countersign.dev/v1alpha1
        kind: TrustPolicy
        keys:
          - path: keys/signer.pub
        directories:
          - unsigned: unsigned
            signed: signed
        """);

    CliRun run = CliRun.run(Map.of(), "check", "--repo", repo.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exit);
    assertThat(run.out())
        .contains(exit == 0 ? "2 of 2 documents verified" : "0 of 2 documents verified");
  }

  /**
   * An adopter's kubectl-sigstore files under signed/ with the keyless-only policy init writes: the
   * gate names where keys are trusted (the trust policy; check has no --key).
   */
  @Test
  void check_keyedFixtureUnderSigned_withAKeylessOnlyPolicy_pointsAtTheTrustPolicysKeys()
      throws Exception {
    Path repo = tmp.resolve("repo");
    copy(
        "/verification/k8s-manifest-sigstore/sample-configmap-multi-signed.yaml",
        "repo/signed/b.yaml");
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(
        repo.resolve(".countersign/policy.yaml"),
        """
        apiVersion: countersign.dev/v1alpha1
        kind: TrustPolicy
        signers:
          - subject: https://github.com/acme/deploy/.github/workflows/sign-on-merge.yml@refs/heads/main
            issuer: https://token.actions.githubusercontent.com
        directories:
          - unsigned: unsigned
            signed: signed
        """);

    CliRun run =
        CliRun.run(
            Map.of(), "check", "--repo", repo.toString(), "--trusted-root", root().toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out())
        .contains("signed/b.yaml:", "is a keyed signature (no certificate)")
        .contains("keys in the trust policy");
  }

  private static List<ManifestDocument> read(Path file) {
    return new ManifestReader().read(file, file.getFileName()).documents();
  }

  private static byte[] message(ManifestDocument document) throws IOException {
    byte[] gzipped =
        Base64.getDecoder().decode(document.annotations().get("cosign.sigstore.dev/message"));
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
      return in.readAllBytes();
    }
  }

  private static String sha256(byte[] bytes) throws Exception {
    return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
  }

  /** {@code countersign sign} of {@code file} with Key A (password ""), into {@code out}. */
  private CliRun signWithKeyA(Path file, Path out) throws IOException {
    return CliRun.run(
        EMPTY_PASSWORD,
        "sign",
        "--key",
        key("a", "testkey").toString(),
        "--out",
        out.toString(),
        file.toString());
  }
}
