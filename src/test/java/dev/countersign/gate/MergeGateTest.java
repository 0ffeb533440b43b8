package dev.countersign.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.countersign.manifest.ManifestReader;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MergeGateTest {

  @TempDir Path work;
  @TempDir Path scratch;

  private GateRepository repo;
  private final AtomicInteger trustedRootRequests = new AtomicInteger();

  @BeforeEach
  void setUp() {
    repo = GateRepository.create(work, scratch);
  }

  private GateReport check() {
    PolicyFile policy = new PolicyFileLoader().load(repo.root(), PolicyFile.DEFAULT_LOCATION);
    Supplier<TrustedRoot> roots =
        () -> {
          trustedRootRequests.incrementAndGet();
          throw new AssertionError("a key-only policy must not ask for a Sigstore trusted root");
        };
    return new MergeGate(repo.root(), policy, new ManifestReader(), roots).check();
  }

  @Test
  void check_untouchedSignedTree_passesWithoutTrustedRoot() {
    GateReport report = check();

    assertThat(report.findings()).isEmpty();
    assertThat(report.passed()).isTrue();
    assertThat(report.signedFiles()).isEqualTo(2);
    assertThat(report.signedDocuments()).isEqualTo(2);
    assertThat(report.verifiedDocuments()).isEqualTo(2);
    assertThat(trustedRootRequests).hasValue(0);
  }

  @Test
  void check_signedFileEditedByHand_failsOnThatFileAndTheEditedLine() throws Exception {
    String signed = repo.read("signed/app/config.yaml");
    repo.write("signed/app/config.yaml", signed.replace("greeting: hello", "greeting: hacked"));
    int line = repo.lineOf("signed/app/config.yaml", "greeting: hacked");

    GateReport report = check();

    assertThat(report.passed()).isFalse();
    assertThat(report.verifiedDocuments()).isEqualTo(1);
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.file()).isEqualTo(Path.of("signed/app/config.yaml"));
              assertThat(f.line()).isEqualTo(line).isGreaterThan(1);
              assertThat(f.check()).isEqualTo(GateFinding.Check.SIGNATURE);
              assertThat(f.object()).isEqualTo("ConfigMap/shop/app-config");
              assertThat(f.message())
                  .startsWith("content differs from the signed message at data.greeting")
                  .endsWith(
                      "perhaps you should undo the change here and make it in"
                          + " unsigned/app/config.yaml instead; files under signed/ are written"
                          + " only by the signing workflow");
            });
  }

  @Test
  void check_withoutABaseCommit_everySignedFileHoldingArgoCdsSkipMarkerFails() {
    // No base to compare with, so every signed file is judged: a comment is not signed, so this
    // one verifies, and Argo CD would never deploy it.
    String signed = repo.read("signed/app/config.yaml");
    repo.write("signed/app/config.yaml", signed + "# +argocd:skip-file-rendering\n");

    GateReport report = check();

    assertThat(report.verifiedDocuments()).isEqualTo(2);
    assertThat(report.passed()).isFalse();
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location())
                  .isEqualTo("signed/app/config.yaml:" + (signed.split("\n").length + 1));
              assertThat(f.rule()).isEqualTo(GitOpsFiles.RULE_FILE);
              assertThat(f.message()).startsWith("holds +argocd:skip-file-rendering: Argo CD");
            });
  }

  @Test
  void check_withoutABaseCommit_anUnreadableSignedFileHoldingTheSkipMarkerFailsForBoth() {
    // Verification hands the gate the bytes of each file that reads; this one does not, and its
    // bytes are judged all the same.
    String signed = repo.read("signed/app/config.yaml");
    repo.write(
        "signed/app/config.yaml",
        (signed + "# +argocd:skip-file-rendering\n").replace("\n", "\r\n"));

    GateReport report = check();

    assertThat(report.verifiedDocuments()).isEqualTo(1);
    assertThat(report.findings())
        .extracting(GateFinding::location, GateFinding::rule)
        .containsExactly(
            tuple("signed/app/config.yaml:1", MergeGate.RULE_UNREADABLE),
            tuple(
                "signed/app/config.yaml:" + (signed.split("\n").length + 1),
                GitOpsFiles.RULE_FILE));
  }

  @Test
  void check_withoutABaseCommit_everySignedFileIsJudgedByTheAnnotationRulesToo() {
    // Judged as verification reads it, on its verifying thread: a hook with a delete policy
    // verifies, and Argo CD deletes the object again after the sync.
    repo.sign(
        "app/hook.yaml",
        GateRepository.CONFIG_MAP
            .replace("app-config", "hook")
            .replace(
                "  namespace: shop\n",
                "  namespace: shop\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n"
                    + "    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"));

    GateReport report = check();

    assertThat(report.verifiedDocuments()).isEqualTo(3);
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.file()).isEqualTo(Path.of("signed/app/hook.yaml"));
              assertThat(f.rule()).isEqualTo(GitOpsFiles.RULE_FILE);
              assertThat(f.object()).isEqualTo("ConfigMap/shop/hook");
              assertThat(f.message()).contains("argocd.argoproj.io/hook");
            });
  }

  @Test
  void check_unsignedFileAddedUnderSigned_failsAsNotSigned() {
    repo.write("signed/app/extra.yaml", GateRepository.CONFIG_MAP.replace("app-config", "extra"));

    GateReport report = check();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location()).isEqualTo("signed/app/extra.yaml:1");
              assertThat(f.message())
                  .startsWith("no cosign.sigstore.dev/message annotation: the file is not signed");
            });
  }

  @Test
  void check_unreadableSignedFile_isAFindingNamedByItsRepositoryPath_andTheOthersStillVerify() {
    repo.write("signed/app/config.yaml", repo.read("signed/app/config.yaml").replace("\n", "\r\n"));

    GateReport report = check();

    assertThat(report.verifiedDocuments()).isEqualTo(1);
    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location()).isEqualTo("signed/app/config.yaml:1");
              assertThat(f.check()).isEqualTo(GateFinding.Check.SIGNATURE);
              assertThat(f.rule()).isEqualTo(MergeGate.RULE_UNREADABLE);
              assertThat(f.message())
                  .startsWith(
                      "uses CRLF (Windows) line endings, perhaps you should convert to LF line"
                          + " endings (dos2unix signed/app/config.yaml ");
            });
  }

  @Test
  void check_signedWithAnotherKey_failsNamingTheKey() throws Exception {
    GateRepository other =
        GateRepository.create(
            Files.createTempDirectory(scratch, "other"), Files.createTempDirectory(scratch, "k"));
    repo.write("signed/app/config.yaml", other.read("signed/app/config.yaml"));

    GateReport report = check();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              // The document's first line (after the signer's header comment): no field differs.
              assertThat(f.location())
                  .isEqualTo(
                      "signed/app/config.yaml:"
                          + repo.lineOf("signed/app/config.yaml", "apiVersion: v1"));
              assertThat(f.message()).contains("does not verify with the key sha256:");
            });
  }

  @Test
  void check_validUnsignedManifests_pass() {
    repo.write(
        "unsigned/app/more.yaml",
        GateRepository.CONFIG_MAP.replace("app-config", "more")
            + "---\n"
            + GateRepository.DEPLOYMENT.replace("name: api", "name: worker"));

    GateReport report = check();

    assertThat(report.findings()).isEmpty();
    assertThat(report.unsignedFiles()).isEqualTo(1);
    assertThat(report.unsignedDocuments()).isEqualTo(2);
    assertThat(report.policiesApplied()).isEqualTo(2);
  }

  @Test
  void check_governanceViolations_reportPolicyMessagesAtTheDocuments() {
    repo.write(
        "unsigned/net/policies.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: fine
        ---
        """
            + GateRepository.ALLOW_ALL_INGRESS);
    repo.write(
        "unsigned/app/worker.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: worker
          labels:
            app: worker
        spec:
          replicas: 1
        """);

    GateReport report = check();

    assertThat(report.passed()).isFalse();
    assertThat(report.findings())
        .extracting(f -> f.location() + " " + f.check() + " " + f.rule() + " " + f.text())
        .containsExactly(
            "unsigned/app/worker.yaml:1 GOVERNANCE require-team-label/validations/0"
                + " Deployment/worker: every Deployment needs a team label",
            "unsigned/net/policies.yaml:6 GOVERNANCE deny-allow-all-ingress/validations/0"
                + " NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow ingress from"
                + " everywhere");
  }

  @Test
  void check_presetSignatureAnnotations_findingAtTheAnnotationLine() {
    repo.write(
        "unsigned/app/preset.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: preset
          annotations:
            owner: payments
            cosign.sigstore.dev/message: H4sIAAAAAAAA/w==
            cosign.sigstore.dev/signature: MEUCIQ==
        data:
          a: b
        """);

    GateReport report = check();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location()).isEqualTo("unsigned/app/preset.yaml:7");
              assertThat(f.rule()).isEqualTo(UnsignedManifestRules.RULE_PRESET);
              assertThat(f.text())
                  .isEqualTo(
                      "ConfigMap/preset: already carries the signature annotations"
                          + " cosign.sigstore.dev/message, cosign.sigstore.dev/signature in an"
                          + " unsigned directory, perhaps you should remove them; the signing"
                          + " workflow adds signatures after merge, and a pre-set one would be"
                          + " signed over or kept unreviewed");
            });
  }

  @Test
  void check_fileTooLargeForTheAnnotationLimit_namesTheFileAndSaysSplit() {
    // Random data hardly compresses, so base64(gzip(message)) stays near the data's size.
    byte[] random = new byte[200 * 1024];
    new Random(42).nextBytes(random);
    String blob = Base64.getEncoder().encodeToString(random);
    String big =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  blob: " + blob + "\n";
    repo.write("unsigned/app/big.yaml", big);
    // Just under the limit: a quarter of the data.
    repo.write(
        "unsigned/app/medium.yaml",
        big.replace(blob, blob.substring(0, blob.length() / 4))
            .replace("name: big", "name: medium"));

    GateReport report = check();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location()).isEqualTo("unsigned/app/big.yaml:1");
              assertThat(f.rule()).isEqualTo(UnsignedManifestRules.RULE_SIZE);
              assertThat(f.message())
                  .matches(
                      "once signed, each object would carry about 2[6-9][0-9] KiB of annotations"
                          + " \\(the compressed message of all 1 document is copied into every"
                          + " one\\), over Kubernetes' 256 KiB limit, so the cluster would refuse"
                          + " it, perhaps you should split unsigned/app/big.yaml into smaller files"
                          + " \\(each file is signed as one message\\)");
            });
  }

  @Test
  void check_manyDocumentsWhoseSignedFileWouldExceedTheSizeLimit_isAFinding_asRunWouldRefuseIt() {
    // 100 documents of 1 KiB random data: each object's annotations fit (about 140 KiB), but
    // every document carries them, so the signed file would be about 14 MiB.
    Random random = new Random(7);
    StringBuilder file = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      byte[] data = new byte[1024];
      random.nextBytes(data);
      file.append(i == 0 ? "" : "---\n")
          .append("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: part-")
          .append(i)
          .append("\ndata:\n  blob: ")
          .append(Base64.getEncoder().encodeToString(data))
          .append('\n');
    }
    repo.write("unsigned/app/many.yaml", file.toString());

    GateReport report = check();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.location()).isEqualTo("unsigned/app/many.yaml:1");
              assertThat(f.rule()).isEqualTo(UnsignedManifestRules.RULE_SIGNED_SIZE);
              assertThat(f.message())
                  .contains(
                      "each of its 100 documents carries the compressed message of the whole file")
                  .contains("over the limit of 1024 KiB for one manifest file");
            });
  }

  @Test
  void estimatedAnnotationBytes_isTheRealMessageAnnotationPlusOwnAnnotationsPlusAllowance() {
    ManifestReader reader = new ManifestReader();
    dev.countersign.manifest.SignedManifestFormat format =
        new dev.countersign.manifest.SignedManifestFormat(
            dev.countersign.manifest.AnnotationDomain.DEFAULT, reader);
    Path file =
        repo.write(
            "unsigned/a.yaml",
            "apiVersion: v1\n"
                + "kind: ConfigMap\n"
                + "metadata:\n"
                + "  name: a\n"
                + "  annotations:\n"
                + "    team: payments\n"
                + "data:\n"
                + "  k: v\n");
    dev.countersign.manifest.ManifestFile manifest = reader.read(file, Path.of("unsigned/a.yaml"));
    String encoded =
        format
            .annotations(
                format.message(manifest.documents()),
                0,
                new byte[0],
                java.util.Optional.empty(),
                java.util.Optional.empty())
            .get("cosign.sigstore.dev/message");

    long estimate = new UnsignedManifestRules(format).estimatedAnnotationBytes(manifest);

    assertThat(estimate)
        .isEqualTo(
            "team".length()
                + "payments".length()
                + "cosign.sigstore.dev/message".length()
                + encoded.length()
                + UnsignedManifestRules.SIGNATURE_ALLOWANCE_BYTES);
  }

  @Test
  void check_duplicateKey_isAFindingWithTheDuplicateLine_andOtherFilesAreStillChecked() {
    repo.write(
        "unsigned/app/dup.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: dup
        data:
          color: blue
          color: red
        """);
    repo.write(
        "unsigned/app/noname.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  labels:\n    a: b\n");

    GateReport report = check();

    assertThat(report.findings())
        .extracting(f -> f.location() + " " + f.rule() + " " + f.text())
        .containsExactly(
            "unsigned/app/dup.yaml:7 countersign/readable-manifest duplicate key \"color\" in data"
                + " (first defined at line 6), perhaps you should remove one of them; Kubernetes"
                + " tools disagree on which one wins",
            "unsigned/app/noname.yaml:3 countersign/object-name ConfigMap: has no metadata.name,"
                + " perhaps you should add metadata.name; verification pairs each object with its"
                + " signed copy by kind and name");
  }

  @Test
  void check_listKindAndMalformedYaml_areFindings() {
    repo.write(
        "unsigned/list.yaml",
        "apiVersion: v1\nkind: ConfigMapList\nmetadata:\n  name: l\nitems:\n- {}\n- {}\n");
    repo.write(
        "unsigned/broken.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [unclosed\n");

    GateReport report = check();

    assertThat(report.findings())
        .extracting(GateFinding::location, GateFinding::rule)
        .containsExactly(
            tuple("unsigned/broken.yaml:5", MergeGate.RULE_UNREADABLE),
            tuple("unsigned/list.yaml:1", UnsignedManifestRules.RULE_LIST));
    assertThat(report.findings().get(0).message()).startsWith("is not valid YAML: ");
  }

  @Test
  void check_missingKeyFile_throwsInputProblemNamingThePolicy() throws Exception {
    Files.delete(repo.root().resolve(".countersign/cosign.pub"));

    assertThatThrownBy(this::check)
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("cannot read the public key file .countersign/cosign.pub");
  }
}
