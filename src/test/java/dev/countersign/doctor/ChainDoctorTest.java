package dev.countersign.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateFinding;
import dev.countersign.gate.GateReport;
import dev.countersign.init.GitHubRepository;
import dev.countersign.init.InitOptions;
import dev.countersign.init.ManifestInventory;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A repository as {@code init} leaves it (plus manifests) reports nothing; each broken joint seeded
 * into it is reported once, with the file and line where the fix goes.
 */
class ChainDoctorTest {

  private static final String SUBJECT =
      "https://github.com/acme/deploy/.github/workflows/sign-on-merge.yml@refs/heads/main";
  private static final String KYVERNO = ".countersign/cluster/kyverno-clusterpolicy.yaml";
  private static final String SIGN = ".github/workflows/sign-on-merge.yml";

  private static final ManifestReader READER = new ManifestReader();
  private static final SignedManifestFormat FORMAT =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, READER);
  private static final Path NAME = Path.of("bombs.yaml");

  /** The signing step's directory inputs as init writes them. */
  private static final String SINGLE_PAIR =
      "          unsigned_dir: unsigned\n          signed_dir: signed\n";

  /** The signing step's dirs input: the policy's pair and one for apps/. */
  private static final String DIRS_WITH_APPS =
      "          dirs: |\n            unsigned:signed\n            apps/unsigned:apps/signed\n";

  private static final String APPS_PAIR = "  - unsigned: apps/unsigned\n    signed: apps/signed\n";

  @TempDir Path repo;

  @BeforeEach
  void goodRepository() throws IOException {
    write(
        "unsigned/app/service.yaml",
        """
        apiVersion: v1
        kind: Service
        metadata:
          name: api
          namespace: shop
        spec:
          selector: {app: api}
          ports:
            - port: 80
        """);
    write(
        "unsigned/app/flags.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  a: b\n");
    InitOptions options =
        InitOptions.of("acme", "deploy", "main")
            .withInventory(
                ManifestInventory.scan(repo, List.of(Path.of("unsigned")), new ManifestReader()));
    new RepositoryInitializer().write(repo, options);
  }

  private GateReport examine() {
    return new ChainDoctor(
            repo,
            Path.of(".countersign/policy.yaml"),
            Optional.of(new GitHubRepository("acme", "deploy")),
            "main",
            new ManifestReader())
        .examine();
  }

  @Test
  void initOutput_withItsManifests_reportsNothing() {
    GateReport report = examine();

    assertThat(report.findings()).isEmpty();
    assertThat(report.policiesApplied()).isEqualTo(1);
  }

  @Test
  void trustPolicyWithoutTheWorkflowIdentity_isReportedAtItsSigners() throws IOException {
    replace(".countersign/policy.yaml", "@refs/heads/main", "@refs/heads/master");

    List<GateFinding> findings = examine().findings();
    // The signer it has instead trusts another branch: reported too, as a warning.
    assertThat(findings)
        .extracting(GateFinding::rule)
        .containsExactlyInAnyOrder(
            ChainDoctor.RULE_TRUST_IDENTITY, ChainDoctor.RULE_TRUSTED_BRANCH);
    GateFinding finding =
        findings.stream()
            .filter(f -> f.rule().equals(ChainDoctor.RULE_TRUST_IDENTITY))
            .findFirst()
            .orElseThrow();

    assertThat(finding.location())
        .isEqualTo(".countersign/policy.yaml:" + lineOf(".countersign/policy.yaml", "signers:"));
    assertThat(finding.message())
        .contains(SIGN + ":" + lineOf(SIGN, "uses: countersign/countersign"), SUBJECT);
  }

  @Test
  void trustPolicySubjectRegexpThatAlsoMatchesAnotherBranch_isAnErrorAtTheSigner()
      throws IOException {
    // Matches the signing workflow on main, and on every other branch too.
    replace(
        ".countersign/policy.yaml",
        "subject: " + SUBJECT,
        "subjectRegExp: https://github\\.com/acme/deploy/\\.github/workflows/.*");

    GateFinding finding = single(ChainDoctor.RULE_TRUST_REGEXP);

    assertThat(finding.severity()).isEqualTo(GateFinding.Severity.ERROR);
    assertThat(finding.line()).isEqualTo(lineOf(".countersign/policy.yaml", "- issuer:"));
    assertThat(finding.message())
        .contains("also accepts another branch")
        .contains("@refs/heads/countersign-doctor-probe");
  }

  @Test
  void control_aTightTrustPolicyRegexp_isNotReported() throws IOException {
    replace(
        ".countersign/policy.yaml",
        "subject: " + SUBJECT,
        "subjectRegExp:"
            + " https://github\\.com/acme/deploy/\\.github/workflows/sign-on-merge\\.yml@refs/heads/main");

    assertThat(examine().findings()).isEmpty();
  }

  @Test
  void trustPolicySubjectOnAnotherBranchOfThisRepository_isAWarning() throws IOException {
    String policy = Files.readString(repo.resolve(".countersign/policy.yaml"));
    replace(
        ".countersign/policy.yaml",
        "    subject: " + SUBJECT + "\n",
        "    subject: "
            + SUBJECT
            + "\n  - issuer: https://token.actions.githubusercontent.com\n    subject: "
            + SUBJECT.replace("@refs/heads/main", "@refs/heads/adopt-countersign")
            + "\n");
    assertThat(policy).isNotEqualTo(Files.readString(repo.resolve(".countersign/policy.yaml")));

    GateReport report = examine();

    assertThat(report.findings())
        .singleElement()
        .satisfies(
            finding -> {
              assertThat(finding.rule()).isEqualTo(ChainDoctor.RULE_TRUSTED_BRANCH);
              assertThat(finding.severity()).isEqualTo(GateFinding.Severity.WARNING);
              assertThat(finding.message())
                  .contains("accepts signing on adopt-countersign, not on main");
            });
    assertThat(report.passed()).isTrue();
  }

  @Test
  void kyvernoSubjectThatDiffersFromTheSan_isReportedAtTheSubject() throws IOException {
    // A subject that "looks right" but is not the exact SAN Kyverno compares.
    replace(
        KYVERNO,
        "subject: \"" + SUBJECT + "\"",
        "subject: \"https://github.com/acme/deploy/.github/workflows/sign-on-merge.yml\"");

    GateFinding finding = single(ChainDoctor.RULE_KYVERNO_IDENTITY);

    assertThat(finding.location()).isEqualTo(KYVERNO + ":" + lineOf(KYVERNO, "subject:"));
    assertThat(finding.object()).isEqualTo("ClusterPolicy/countersign-verify-signed-manifests");
  }

  @Test
  void kyvernoEntryWithoutSubject_acceptsAnySigner() throws IOException {
    replace(
        KYVERNO, "subject: \"" + SUBJECT + "\"", "subjectRegExp: \"https://github.com/acme/.*\"");

    List<String> rules = examine().findings().stream().map(GateFinding::rule).toList();

    assertThat(rules)
        .contains(ChainDoctor.RULE_KYVERNO_ANY_SIGNER, ChainDoctor.RULE_KYVERNO_IDENTITY);
    GateFinding any =
        examine().findings().stream()
            .filter(f -> f.rule().equals(ChainDoctor.RULE_KYVERNO_ANY_SIGNER))
            .findFirst()
            .orElseThrow();
    assertThat(any.message()).contains("ignores subjectRegExp", "accepts a signature by anyone");
    assertThat(any.line()).isEqualTo(lineOf(KYVERNO, "- keyless:"));
  }

  @Test
  void kindOrNamespaceNoKyvernoRuleMatches_isReportedAtTheManifest() throws IOException {
    write(
        "unsigned/batch/cleanup.yaml",
        "# nightly cleanup\n"
            + "apiVersion: batch/v1\n"
            + "kind: CronJob\n"
            + "metadata:\n"
            + "  name: cleanup\n"
            + "  namespace: batch\n"
            + "spec:\n"
            + "  schedule: \"0 3 * * *\"\n"
            + "  jobTemplate:\n"
            + "    spec:\n"
            + "      template:\n"
            + "        spec:\n"
            + "          restartPolicy: Never\n"
            + "          containers: [{name: c, image: busybox}]\n");

    GateFinding finding = single(ChainDoctor.RULE_COVERAGE);

    assertThat(finding.location()).isEqualTo("unsigned/batch/cleanup.yaml:2");
    assertThat(finding.message())
        .contains("kind CronJob in namespace batch", "admits it signed or not", KYVERNO + ":");
  }

  @Test
  void dryRunOff_whileAManifestReliesOnServerDefaults_isReportedAtDryRun() throws IOException {
    replace(
        KYVERNO,
        "            enable: true\n            namespace: countersign-dryrun\n",
        "            enable: false\n");

    GateFinding finding = single(ChainDoctor.RULE_DRY_RUN);

    assertThat(finding.location()).isEqualTo(KYVERNO + ":" + lineOf(KYVERNO, "          dryRun:"));
    assertThat(finding.message())
        .contains(
            "unsigned/app/service.yaml:"
                + lineOf("unsigned/app/service.yaml", "- port: 80")
                + " Service/shop/api spec.ports.0.protocol (the API server sets protocol: TCP)");
  }

  @Test
  void signingJobWithoutPullRequestsWrite_isReportedAtItsPermissions() throws IOException {
    replace(
        SIGN,
        "      pull-requests: write   # when main is protected, countersign opens a pull request"
            + " instead\n",
        "");

    GateFinding finding = single(ChainDoctor.RULE_PERMISSIONS);

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "    permissions:"));
    assertThat(finding.message())
        .contains(
            "pull-requests: write (has none; run opens a pull request when the branch is"
                + " protected");
  }

  @Test
  void actionPinnedByTag_isReportedAtItsUsesLine() throws IOException {
    replace(
        ".github/workflows/check-on-pr.yml",
        "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2",
        "actions/checkout@v4");

    GateFinding finding = single(ChainDoctor.RULE_PINNED);

    assertThat(finding.location())
        .isEqualTo(
            ".github/workflows/check-on-pr.yml:"
                + lineOf(".github/workflows/check-on-pr.yml", "actions/checkout@v4"));
    assertThat(finding.message())
        .startsWith("actions/checkout@v4 is not pinned to a full commit SHA");
  }

  @Test
  void signingOnPullRequest_isReportedAtTheTrigger() throws IOException {
    replace(SIGN, "  push:\n", "  pull_request:\n    types: [closed]\n  push:\n");

    GateFinding finding = single(ChainDoctor.RULE_SIGNING_TRIGGER);

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "  pull_request:"));
  }

  @Test
  void signedFileWhoseSignerThePoliciesNoLongerAccept_isReportedAtTheDocument() throws IOException {
    // Real keyless signatures (public-good Sigstore, 2022) by identities this repository never
    // trusted.
    try (InputStream in =
        getClass()
            .getResourceAsStream(
                "/verification/k8s-manifest-sigstore/sample-configmap-keyless-multi-signed.yaml")) {
      Files.createDirectories(repo.resolve("signed"));
      Files.write(repo.resolve("signed/sample.yaml"), in.readAllBytes());
    }

    List<GateFinding> findings = examine().findings();

    assertThat(findings).extracting(GateFinding::rule).containsOnly(ChainDoctor.RULE_SIGNER);
    assertThat(findings).hasSize(2);
    assertThat(findings.get(0).location())
        .isEqualTo("signed/sample.yaml:" + findings.get(0).line());
    assertThat(findings.get(0).line()).isPositive();
    assertThat(findings)
        .anyMatch(f -> f.message().contains("trust policy no longer accepts"))
        .anyMatch(f -> f.message().contains("Kyverno rule manifests-signed-by-deploy"));
  }

  /**
   * kubectl-sigstore's keyed signatures (Key A, upstream fixtures), as an adopter's signed/ holds
   * them: init's policy and Kyverno rule trust only the signing workflow, so check rejects the
   * files on every pull request and the cluster rejects them; doctor must not say the chain holds.
   */
  @Test
  void signedFileWithAKeyedSignature_whenPolicyAndRuleListNoKeys_isReportedAtTheDocument()
      throws IOException {
    copyFixture("sample-configmap-multi-signed.yaml", "signed/sample.yaml");

    List<GateFinding> findings = examine().findings();

    assertThat(findings).extracting(GateFinding::rule).containsOnly(ChainDoctor.RULE_SIGNER);
    assertThat(findings).hasSize(2);
    assertThat(findings)
        .allMatch(f -> f.location().equals("signed/sample.yaml:" + f.line()) && f.line() > 0)
        .anyMatch(
            f ->
                f.message().contains("is signed with a key (no certificate)")
                    && f.message().contains("the trust policy lists no keys")
                    && f.message().contains("under keys in .countersign/policy.yaml"))
        .anyMatch(
            f ->
                f.message().contains("Kyverno rule manifests-signed-by-deploy")
                    && f.message().contains("lists only keyless signers"));
  }

  @Test
  void control_signedFileWithAKeyedSignature_whenPolicyAndRuleListKeys_isNotReported()
      throws IOException {
    copyFixture("sample-configmap-multi-signed.yaml", "signed/sample.yaml");
    copyFixture("key-a.pub", "keys/key-a.pub");
    replace(
        ".countersign/policy.yaml", "minSigners:", "keys:\n  - path: keys/key-a.pub\nminSigners:");
    replace(
        KYVERNO,
        "            - count: 1\n              entries:\n",
        "            - count: 1\n              entries:\n                - keys:\n"
            + "                    publicKeys: k8s://kyverno/key-a\n");

    List<GateFinding> findings = examine().findings();

    assertThat(findings).isEmpty();
  }

  /**
   * A message annotation without any signature annotation carries no signature at all, keyed or
   * keyless: saying it is signed with a key, and that listing the key would help, sends the user
   * after a key that does not exist. check reports the missing signature itself.
   */
  @Test
  void signedFileWithAMessageButNoSignature_isNotReportedAsSignedWithAKey() throws IOException {
    copyFixture("sample-configmap-multi-signed.yaml", "signed/sample.yaml");
    String signed = Files.readString(repo.resolve("signed/sample.yaml"));
    write(
        "signed/sample.yaml",
        signed
            .lines()
            .filter(line -> !line.contains("cosign.sigstore.dev/signature"))
            .map(line -> line + "\n")
            .collect(Collectors.joining()));

    List<GateFinding> findings = examine().findings();

    assertThat(findings)
        .noneMatch(f -> f.message().contains("is signed with a key"))
        .noneMatch(f -> f.message().contains("lists only keyless signers"));
  }

  /**
   * Each document carries another message that gunzips to almost the 1 MiB limit: decoded document
   * by document, a 1 MB file of 600 of them took doctor over a minute of gunzipping and YAML
   * parsing. The file's documents share one allowance (2 x 1 MiB + 1 MiB), so the documents past it
   * are left to check, which reports them as undecodable.
   */
  @Test
  void signedFileWhoseDocumentsEachCarryAnotherLargeMessage_isDecodedNoFurtherThanOneDocument()
      throws IOException {
    List<String> documents = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      // A small document carrying the message of a large one: the file stays under 1 MiB.
      Map<String, String> annotations =
          FORMAT.annotations(
              FORMAT.message(List.of(configMap("x" + i, 1_000_000))),
              0,
              new byte[] {1},
              Optional.empty(),
              Optional.empty());
      documents.add(
          new String(
              FORMAT.render(List.of(configMap("x" + i, 0)), annotations, false, List.of()),
              StandardCharsets.UTF_8));
    }
    write("signed/bombs.yaml", String.join("---\n", documents));

    List<GateFinding> findings = examine().findings();

    assertThat(findings).extracting(GateFinding::rule).containsOnly(ChainDoctor.RULE_SIGNER);
    assertThat(findings)
        .extracting(GateFinding::object)
        .contains("ConfigMap/x0", "ConfigMap/x2")
        .doesNotContain("ConfigMap/x3", "ConfigMap/x5");
  }

  /** Almost the largest message, carried by every document of a signed file: decoded once. */
  @Test
  void control_largeSignedFileOfSeveralDocuments_isReportedAtEveryDocument() throws IOException {
    List<ManifestDocument> unsigned = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      unsigned.add(configMap("x" + i, 160_000));
    }
    Map<String, String> annotations =
        FORMAT.annotations(
            FORMAT.message(unsigned), 0, new byte[] {1}, Optional.empty(), Optional.empty());
    write(
        "signed/large.yaml",
        new String(FORMAT.render(unsigned, annotations, false, List.of()), StandardCharsets.UTF_8));

    List<GateFinding> findings = examine().findings();

    assertThat(findings).extracting(GateFinding::rule).containsOnly(ChainDoctor.RULE_SIGNER);
    assertThat(findings)
        .extracting(GateFinding::object)
        .contains("ConfigMap/x0", "ConfigMap/x3", "ConfigMap/x5");
  }

  private static ManifestDocument configMap(String name, int dataLength) {
    String yaml =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
            + name
            + "\ndata:\n  k: "
            + "x".repeat(dataLength)
            + "\n";
    return READER.parse(yaml.getBytes(StandardCharsets.UTF_8), NAME).get(0);
  }

  @Test
  void signingStepWithADirectoryPairThePolicyDoesNotName_isAnErrorAtItsDirsInput()
      throws IOException {
    replace(SIGN, SINGLE_PAIR, DIRS_WITH_APPS);

    GateFinding finding = single(ChainDoctor.RULE_UNGATED_DIRECTORIES);

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "dirs: |"));
    assertThat(finding.severity()).isEqualTo(GateFinding.Severity.ERROR);
    assertThat(finding.message())
        .startsWith(
            "signs from apps/unsigned:apps/signed, which is not a directory pair of the trust"
                + " policy (unsigned:signed), so check judges no pull request that changes it")
        .contains("\"- unsigned: apps/unsigned\" with \"signed: apps/signed\"");
  }

  @Test
  void control_signingStepWithSeveralPairsThePolicyNames_isNotReported() throws IOException {
    replace(SIGN, SINGLE_PAIR, DIRS_WITH_APPS);
    replace(".countersign/policy.yaml", "    signed: signed\n", "    signed: signed\n" + APPS_PAIR);

    assertThat(examine().findings()).isEmpty();
  }

  @Test
  void signingStepWhoseSignedDirInputIsAnotherPairs_isAnErrorAtThatInput() throws IOException {
    replace(SIGN, "          signed_dir: signed\n", "          signed_dir: apps/signed\n");

    // No step signs from the policy's own pair any more: a warning beside the error.
    List<GateFinding> findings = examine().findings();
    assertThat(findings)
        .extracting(GateFinding::rule)
        .containsExactlyInAnyOrder(
            ChainDoctor.RULE_UNGATED_DIRECTORIES, ChainDoctor.RULE_UNSIGNED_DIRECTORIES);
    GateFinding finding =
        findings.stream()
            .filter(f -> f.rule().equals(ChainDoctor.RULE_UNGATED_DIRECTORIES))
            .findFirst()
            .orElseThrow();

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "signed_dir:"));
    assertThat(finding.message()).startsWith("signs from unsigned:apps/signed, which is not");
  }

  @Test
  void runScriptCallingCountersignRunWithAPairThePolicyDoesNotName_isAnErrorAtItsRunLine()
      throws IOException {
    replace(
        SIGN,
        "    steps:\n",
        "    steps:\n"
            + "      - run: |\n"
            + "          echo preparing\n"
            + "          java -jar countersign.jar run --key k.pem \\\n"
            + "            --unsigned-dir \"apps/unsigned/\" --signed-dir=apps/signed && echo"
            + " done\n");

    GateFinding finding = single(ChainDoctor.RULE_UNGATED_DIRECTORIES);

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "- run: |"));
    assertThat(finding.message()).startsWith("signs from apps/unsigned:apps/signed, which is not");
  }

  @Test
  void control_runScriptCallingCountersignRunWithThePolicysPair_isNotReported() throws IOException {
    replace(
        SIGN,
        "    steps:\n",
        "    steps:\n      - run: countersign run --dir ./unsigned:signed/ --no-push\n");

    assertThat(examine().findings()).isEmpty();
  }

  @Test
  void runScriptTakingItsPairFromShellVariables_isNotReported_asItsValueIsKnownOnlyWhenItRuns()
      throws IOException {
    // The shell expands these when the step runs, as the runner expands ${{ }}: doctor cannot
    // know the pair, and run itself refuses one the policy does not name.
    replace(
        SIGN,
        "    steps:\n",
        "    steps:\n"
            + "      - run: countersign run --unsigned-dir \"$IN\" --signed-dir ${OUT}\n"
            + "      - run: java -jar countersign.jar run --dir \"$(cat dirs.txt)\" --no-push\n"
            + "      - run: countersign run --dir `cat dirs.txt`:signed --no-push\n");

    assertThat(examine().findings()).isEmpty();
  }

  @Test
  void control_runScriptWithALiteralPairBesideAShellVariable_isStillAnErrorAtItsRunLine()
      throws IOException {
    replace(
        SIGN,
        "    steps:\n",
        "    steps:\n"
            + "      - run: countersign run --key \"$KEY\" --unsigned-dir apps/unsigned"
            + " --signed-dir apps/signed\n");

    GateFinding finding = single(ChainDoctor.RULE_UNGATED_DIRECTORIES);

    assertThat(finding.location()).isEqualTo(SIGN + ":" + lineOf(SIGN, "- run: countersign"));
    assertThat(finding.message()).startsWith("signs from apps/unsigned:apps/signed, which is not");
  }

  @Test
  void policyPairNoSigningWorkflowSignsFrom_isAWarningAtItsDirectories() throws IOException {
    replace(".countersign/policy.yaml", "    signed: signed\n", "    signed: signed\n" + APPS_PAIR);

    GateFinding finding = single(ChainDoctor.RULE_UNSIGNED_DIRECTORIES);

    assertThat(finding.location())
        .isEqualTo(
            ".countersign/policy.yaml:" + lineOf(".countersign/policy.yaml", "directories:"));
    assertThat(finding.severity()).isEqualTo(GateFinding.Severity.WARNING);
    assertThat(finding.message())
        .startsWith(
            "the trust policy's directory pair apps/unsigned:apps/signed is one no signing"
                + " workflow signs from (they sign from unsigned:signed)");
  }

  @Test
  void initOutputForOtherDirectories_signsFromThePolicysPair_andReportsNothing()
      throws IOException {
    Path other = repo.resolve("other");
    new RepositoryInitializer()
        .write(
            other,
            InitOptions.of("acme", "deploy", "main")
                .withDirectories(Path.of("envs/prod/in"), Path.of("envs/prod/out")));

    GateReport report =
        new ChainDoctor(
                other,
                Path.of(".countersign/policy.yaml"),
                Optional.of(new GitHubRepository("acme", "deploy")),
                "main",
                new ManifestReader())
            .examine();

    assertThat(report.findings()).isEmpty();
  }

  @Test
  void unreadableWorkflow_isAFindingNotACrash() throws IOException {
    write(
        ".github/workflows/broken.yml",
        "on: push\njobs:\n  a:\n    steps:\n      - run: grep \"a: b\" x\n        bad: [\n");

    GateFinding finding = single(ChainDoctor.RULE_UNREADABLE);

    assertThat(finding.uri()).isEqualTo(".github/workflows/broken.yml");
    assertThat(finding.message()).contains("is not valid YAML");
  }

  private void copyFixture(String name, String to) throws IOException {
    try (InputStream in =
        getClass().getResourceAsStream("/verification/k8s-manifest-sigstore/" + name)) {
      Files.createDirectories(repo.resolve(to).getParent());
      Files.write(repo.resolve(to), in.readAllBytes());
    }
  }

  private GateFinding single(String rule) {
    List<GateFinding> findings = examine().findings();
    assertThat(findings).as(findings.toString()).hasSize(1);
    assertThat(findings.get(0).rule()).isEqualTo(rule);
    assertThat(findings.get(0).check()).isEqualTo(GateFinding.Check.CHAIN);
    return findings.get(0);
  }

  private int lineOf(String file, String text) throws IOException {
    List<String> lines = Files.readAllLines(repo.resolve(file));
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " not in " + file);
  }

  private void replace(String file, String from, String to) throws IOException {
    String text = Files.readString(repo.resolve(file));
    assertThat(text).contains(from);
    Files.writeString(repo.resolve(file), text.replace(from, to));
  }

  private void write(String file, String text) throws IOException {
    Files.createDirectories(repo.resolve(file).getParent());
    Files.writeString(repo.resolve(file), text, StandardCharsets.UTF_8);
  }
}
