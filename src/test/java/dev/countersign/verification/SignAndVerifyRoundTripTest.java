package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.keys.PrivateKeys;
import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * keygen -> sign with the manifest format -> write -> read -> verify, through real files; then
 * edits a signed file the ways reviewers worry about.
 */
class SignAndVerifyRoundTripTest {

  private static final String DEPLOYMENT =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: web
        namespace: shop
      spec:
        replicas: 2
        template:
          spec:
            containers:
            - name: web
              image: nginx
              ports:
              - containerPort: 80
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: shop
      spec:
        ports:
        - port: 80
      """;

  @TempDir Path tmp;

  private Path signed;
  private PublicKey publicKey;

  private void signWithNewKey() throws Exception {
    signWithNewKey(DEPLOYMENT);
  }

  private void signWithNewKey(String manifest) throws Exception {
    publicKey =
        KeyPairFiles.generate(
            tmp.resolve("cosign.key"),
            tmp.resolve("cosign.pub"),
            "pw".toCharArray(),
            new SecureRandom());
    PrivateKey privateKey = PrivateKeys.read(tmp.resolve("cosign.key"), "pw".toCharArray());
    Path input = Files.writeString(tmp.resolve("app.yaml"), manifest);
    var format = FixtureManifests.FORMAT;
    var documents = FixtureManifests.READER.read(input, Path.of("app.yaml")).documents();
    byte[] message = format.message(documents);
    Signature signer = Signature.getInstance("SHA256withECDSA");
    signer.initSign(privateKey);
    signer.update(message);
    Map<String, String> annotations =
        format.annotations(message, 0, signer.sign(), Optional.empty(), Optional.empty());
    signed =
        Files.write(
            tmp.resolve("signed.yaml"), format.render(documents, annotations, false, List.of()));
  }

  private List<DocumentVerdict> verify(String yaml) throws Exception {
    Path file = Files.writeString(tmp.resolve("live.yaml"), yaml);
    TrustPolicy policy =
        new TrustPolicy(
            List.of(),
            List.of(PublicKeys.read(tmp.resolve("cosign.pub"))),
            1,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    ManifestFile manifest = FixtureManifests.READER.read(file, Path.of("live.yaml"));
    return new ManifestVerifier(null, policy, FixtureManifests.FORMAT).verify(manifest);
  }

  /** As {@link #verify}, for an object read back from a cluster (Kyverno's tolerances). */
  private List<DocumentVerdict> verifyClusterObject(String yaml) throws Exception {
    Path file = Files.writeString(tmp.resolve("live.yaml"), yaml);
    TrustPolicy policy =
        new TrustPolicy(
            List.of(),
            List.of(PublicKeys.read(tmp.resolve("cosign.pub"))),
            1,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    ManifestFile manifest = FixtureManifests.READER.read(file, Path.of("live.yaml"));
    return new ManifestVerifier(null, policy, FixtureManifests.FORMAT, ContentMatch.CLUSTER_OBJECT)
        .verify(manifest);
  }

  @Test
  void signedFile_verifiesEveryDocument_withItsKey() throws Exception {
    signWithNewKey();
    List<DocumentVerdict> verdicts = verify(Files.readString(signed));

    assertThat(verdicts)
        .extracting(DocumentVerdict::description)
        .containsExactly("Deployment/shop/web", "Service/shop/web");
    assertThat(verdicts)
        .allSatisfy(
            v -> {
              assertThat(v.passed()).as(v.reason()).isTrue();
              assertThat(v.signers()).containsExactly(PublicKeys.fingerprint(publicKey));
            });
    assertThat(verdicts.get(1).documentIndex()).isEqualTo(1);
  }

  @Test
  void typeChange_stringVersusNumber_isADiff() throws Exception {
    signWithNewKey();
    String edited = Files.readString(signed).replace("containerPort: 80", "containerPort: \"80\"");
    assertThat(edited).isNotEqualTo(Files.readString(signed));

    DocumentVerdict deployment = verify(edited).get(0);
    assertThat(deployment.passed()).isFalse();
    assertThat(deployment.reason())
        .isEqualTo(
            "content differs from the signed message at "
                + "spec.template.spec.containers.0.ports.0.containerPort: signed 80, found \"80\"");
  }

  @Test
  void
      imageCanonicalization_isToleratedForClusterObjects_butPodTemplateDefaultsAndImageChangesAreNot()
          throws Exception {
    signWithNewKey();
    String original = Files.readString(signed);
    String canonical = original.replace("image: nginx", "image: docker.io/library/nginx:latest");
    assertThat(canonical).contains("image: docker.io/library/nginx:latest");
    DocumentVerdict tolerated = verifyClusterObject(canonical).get(0);
    assertThat(tolerated.passed()).as(tolerated.reason()).isTrue();
    assertThat(verify(canonical).get(0).passed())
        .as("a repository file must equal its message")
        .isFalse();

    // Kyverno's spec.containers.*.ports.*.protocol is anchored at the root: it does not reach
    // into a Deployment's pod template (k8s-manifest-sigstore's unanchored search would).
    String defaulted =
        original.replace(
            "      - containerPort: 80", "      - containerPort: 80\n          protocol: TCP");
    assertThat(defaulted).contains("protocol: TCP");
    DocumentVerdict template = verifyClusterObject(defaulted).get(0);
    assertThat(template.passed()).isFalse();
    assertThat(template.reason()).contains("spec.template.spec.containers.0.ports.0.protocol");

    DocumentVerdict other =
        verifyClusterObject(original.replace("image: nginx", "image: nginx:1.25")).get(0);
    assertThat(other.passed()).isFalse();
    assertThat(other.reason())
        .contains("spec.template.spec.containers.0.image: signed \"nginx\", found \"nginx:1.25\"");
  }

  @Test
  void serviceClusterIpAssignedByTheServer_isIgnored_butReplicasAreNot() throws Exception {
    signWithNewKey();
    String original = Files.readString(signed);
    String live =
        original.replace("  ports:\n  - port: 80", "  clusterIP: 10.0.0.7\n  ports:\n  - port: 80");
    assertThat(live).isNotEqualTo(original);
    assertThat(verifyClusterObject(live).get(1).passed()).isTrue();
    assertThat(verify(live).get(1).passed())
        .as("a repository file must equal its message")
        .isFalse();

    DocumentVerdict scaled = verify(original.replace("replicas: 2", "replicas: 5")).get(0);
    assertThat(scaled.passed()).isFalse();
    assertThat(scaled.reason())
        .isEqualTo("content differs from the signed message at spec.replicas: signed 2, found 5");
  }

  @Test
  void namespaceNamedInTheMessage_mustMatch_unlikeKyvernosDefaultIgnore() throws Exception {
    signWithNewKey();
    String original = Files.readString(signed);
    assertThat(original).contains("namespace: shop");

    DocumentVerdict moved =
        verify(original.replace("namespace: shop", "namespace: kube-system")).get(0);

    assertThat(moved.passed()).isFalse();
    assertThat(moved.reason())
        .isEqualTo(
            "content differs from the signed message at metadata.namespace: signed \"shop\", found"
                + " \"kube-system\"");
  }

  @Test
  void signedMessageBytes_areWhatTheSignatureCovers() throws Exception {
    signWithNewKey();
    String message =
        new String(
            FixtureManifests.FORMAT
                .decode(
                    FixtureManifests.READER.read(signed, Path.of("signed.yaml")).documents().get(0))
                .orElseThrow()
                .message(),
            StandardCharsets.UTF_8);
    assertThat(message)
        .contains("kind: Deployment")
        .contains("\n---\n")
        .contains("kind: Service")
        .doesNotContain("cosign.sigstore.dev");
  }

  @Test
  void reorderedDocuments_eachAsSigned_failEveryDocument_asNotExactlyTheMessage() throws Exception {
    signWithNewKey();
    String[] documents = Files.readString(signed).split("\n---\n");
    assertThat(documents).hasSize(2);

    List<DocumentVerdict> reordered = verify(documents[1] + "\n---\n" + documents[0]);

    assertThat(reordered)
        .extracting(DocumentVerdict::description)
        .containsExactly("Service/shop/web", "Deployment/shop/web");
    assertThat(reordered)
        .allSatisfy(
            v -> {
              assertThat(v.passed()).isFalse();
              assertThat(v.reason()).contains("documents were reordered");
            });
  }

  @Test
  void sameKindAndName_inTwoNamespaces_eachDocumentIsComparedWithItsOwnNamespacesDocument()
      throws Exception {
    signWithNewKey(
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
          namespace: staging
        data:
          mode: test
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: settings
          namespace: prod
        data:
          mode: live
        """);
    String original = Files.readString(signed);

    assertThat(verify(original)).allSatisfy(v -> assertThat(v.passed()).as(v.reason()).isTrue());

    DocumentVerdict prod = verify(original.replace("mode: live", "mode: test")).get(1);
    assertThat(prod.passed()).isFalse();
    assertThat(prod.reason())
        .isEqualTo(
            "content differs from the signed message at data.mode: signed \"live\", found"
                + " \"test\"");
  }

  /**
   * A cluster object's tolerances are Go's and Kyverno's, no wider: a number equals the same number
   * written otherwise (80 and 80.0) but not a nearby one, and only image fields take {@code
   * docker.io/library/...:latest} for the short name.
   */
  @Test
  void clusterObjectTolerances_numbersByValue_imageNamesOnlyInImageFields() throws Exception {
    signWithNewKey(
        """
        apiVersion: example.com/v1
        kind: Rollout
        metadata:
          name: web
          namespace: shop
        spec:
          ratio: 0.5
          weight: 80
          image: nginx
          label: nginx
        """);
    String original = Files.readString(signed);

    DocumentVerdict sameValues =
        verifyClusterObject(
                original
                    .replace("weight: 80", "weight: 80.0")
                    .replace("image: nginx", "image: docker.io/library/nginx:latest"))
            .get(0);
    assertThat(sameValues.passed()).as(sameValues.reason()).isTrue();

    DocumentVerdict ratio =
        verifyClusterObject(original.replace("ratio: 0.5", "ratio: 0.9")).get(0);
    assertThat(ratio.passed()).isFalse();
    assertThat(ratio.reason()).contains("spec.ratio: signed 0.5, found 0.9");

    DocumentVerdict label =
        verifyClusterObject(
                original.replace("label: nginx", "label: docker.io/library/nginx:latest"))
            .get(0);
    assertThat(label.passed()).isFalse();
    assertThat(label.reason()).contains("spec.label");
  }
}
