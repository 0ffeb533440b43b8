package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.git.GitFixture;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.nist.NISTNamedCurves;
import org.bouncycastle.crypto.signers.StandardDSAEncoding;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The merge gate on pull requests, end to end through the Action entry: a bare origin whose main
 * branch holds a trust policy, a trusted key, governance policies and manifests signed with that
 * key; a pull request branch on top; a checkout of the pull request (detached, shallow where
 * actions/checkout would be); a real pull_request event payload naming the base commit; real
 * signatures. Each attack has its benign control.
 */
class CheckPullRequestTest {

  private static final String ATTACKER_PASSWORD = "attacker";

  @TempDir Path tmp;
  private PullRequestGate gate;
  private GitFixture git;
  private GateRepository seed;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
    git = gate.git();
    seed = gate.seed();
  }

  // --- the base branch's rules judge the pull request ----------------------------------------

  @Test
  void pullRequestAddingItsOwnKey_andASignedFileSignedWithIt_fails() throws Exception {
    Path attackerKey = attackerKey();
    String evil = signWith(attackerKey, "app/evil.yaml", GateRepository.ALLOW_ALL_INGRESS);
    String policy =
        seed.read(".countersign/policy.yaml")
            .replace(
                "  - path: .countersign/cosign.pub\n",
                "  - path: .countersign/cosign.pub\n  - path: .countersign/attacker.pub\n");

    CliRun run =
        check(
            pullRequest(
                Map.of(
                    ".countersign/policy.yaml", policy,
                    ".countersign/attacker.pub",
                        Files.readString(attackerKey.resolveSibling("attacker.pub")),
                    "signed/app/evil.yaml", evil),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/evil.yaml,")
        .contains("does not verify with the key")
        .contains(
            "::warning file=.countersign/policy.yaml,title=countersign policy::this change changes"
                + " a file of the gate's rules")
        .contains(
            "::warning file=.countersign/attacker.pub,title=countersign policy::this change adds a"
                + " file of the gate's rules");
  }

  @ParameterizedTest
  @CsvSource({"../outside/policy.yaml, is outside the repository", "., is the repository root"})
  void policyPathNotInsideTheRepository_isAnInputErrorNamingIt_notAnInternalError(
      String policy, String reason) throws Exception {
    Path ws = pullRequest(Map.of("README.md", "a change\n"), Set.of(), 1);

    CliRun run = check(ws, Map.of("INPUT_POLICY", policy));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out()).contains(reason);
  }

  @Test
  void signedFileThePullRequestLeavesAlone_failingUnderTheBasesRules_isNotBlamedOnTheChange()
      throws Exception {
    // main rotates its key without signing its files again: they fail under main's own rules.
    attackerKey();
    git.commitToOrigin(
        "main",
        Map.of(".countersign/cosign.pub", Files.readString(tmp.resolve("attacker/attacker.pub"))),
        Set.of(),
        "rotate the signing key");
    gate.baseIsMain();

    CliRun run = check(pullRequest(Map.of("README.md", "a change\n"), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("sign it again on the base branch (move it to unsigned/app/config.yaml")
        .doesNotContain("undo the change here");
  }

  @Test
  void control_signedFileTheChangeEdits_isStillToldToUndoTheEdit() throws Exception {
    String edited = seed.read("signed/app/config.yaml").replace("mode: production", "mode: debug");

    CliRun run =
        check(pullRequest(Map.of("signed/app/config.yaml", edited), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("undo the change here and make it in unsigned/app/config.yaml")
        .doesNotContain("sign it again on the base branch");
  }

  @Test
  void mergeQueue_alsoJudgesByTheBaseCommitsRules() throws Exception {
    Path ws =
        pullRequest(
            Map.of("unsigned/net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS),
            Set.of("policies/deny-allow-all-ingress.yaml"),
            1);
    Path event = tmp.resolve("merge-group.json");
    Files.writeString(
        event,
        "{\"action\":\"checks_requested\",\"merge_group\":{\"base_sha\":\""
            + gate.baseSha()
            + "\",\"base_ref\":\"refs/heads/main\",\"head_sha\":\""
            + GitFixture.headOf(ws)
            + "\",\"head_ref\":\"refs/heads/gh-readonly-queue/main/pr-7\"}}");

    CliRun run =
        check(
            ws, Map.of("GITHUB_EVENT_NAME", "merge_group", "GITHUB_EVENT_PATH", event.toString()));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("::error file=unsigned/net/allow-all.yaml,");
  }

  @Test
  void control_pullRequestAddingAKeyButNoSignedFile_passesWithTheRuleChangeReported()
      throws Exception {
    Path attackerKey = attackerKey();
    String policy =
        seed.read(".countersign/policy.yaml")
            .replace(
                "  - path: .countersign/cosign.pub\n",
                "  - path: .countersign/cosign.pub\n  - path: .countersign/second.pub\n");

    CliRun run =
        check(
            pullRequest(
                Map.of(
                    ".countersign/policy.yaml",
                    policy,
                    ".countersign/second.pub",
                    Files.readString(attackerKey.resolveSibling("attacker.pub"))),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains("::warning file=.countersign/second.pub,")
        .contains("check passed: 0 errors, 2 warnings");
  }

  /**
   * The governance parameters bind every admission policy that declares a paramKind: a pull request
   * that edits them is judged by the base's, but its version rules after the merge, so reviewers
   * are told, as for the policy file, keys and policies.
   */
  @Test
  void pullRequestEditingTheGovernanceParameters_reportsTheRuleChange() throws Exception {
    String policy =
        seed.read(".countersign/policy.yaml")
            .replace(
                "  policies: [policies]\n",
                "  policies: [policies]\n  params: .countersign/params.yaml\n");
    git.commitToOrigin(
        "main",
        Map.of(
            ".countersign/policy.yaml",
            policy,
            ".countersign/params.yaml",
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: limits\ndata:\n  max: \"3\"\n"),
        Set.of(),
        "governance parameters");
    gate.baseIsMain();

    CliRun untouched =
        check(
            pullRequest(Map.of("unsigned/app/other.yaml", CONFIG_MAP_OTHER), Set.of(), 1),
            Map.of());
    assertThat(untouched.exitCode()).as(untouched.all()).isZero();
    assertThat(untouched.out()).doesNotContain(".countersign/params.yaml");

    CliRun edited =
        check(
            pullRequest(
                Map.of(
                    ".countersign/params.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: limits\ndata:\n  max:"
                        + " \"300\"\n"),
                Set.of(),
                1),
            Map.of());
    assertThat(edited.exitCode()).as(edited.all()).isZero();
    assertThat(edited.out())
        .contains(
            "::warning file=.countersign/params.yaml,title=countersign policy::this change changes"
                + " a file of the gate's rules");
  }

  @Test
  void pullRequestDeletingTheAdmissionPolicyItViolates_fails() throws Exception {
    Path ws =
        pullRequest(
            Map.of("unsigned/net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS),
            Set.of("policies/deny-allow-all-ingress.yaml"),
            1);

    CliRun run = check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/allow-all.yaml,line=1,title=countersign"
                + " governance::NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow"
                + " ingress from everywhere")
        .contains(
            "::warning file=policies/deny-allow-all-ingress.yaml,title=countersign policy::this"
                + " change deletes");

    // Only an explicit choice for local runs takes the work tree's rules.
    CliRun local = check(ws, Map.of("INPUT_POLICY_FROM", "worktree"));
    assertThat(local.exitCode()).as(local.all()).isZero();
  }

  private static final String CONFIG_MAP_OTHER =
      GateRepository.CONFIG_MAP.replace("app-config", "other-config");

  @Test
  void control_pullRequestAddingACompliantManifest_passes() throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of(
                    "unsigned/net/from-frontend.yaml",
                    """
                    apiVersion: networking.k8s.io/v1
                    kind: NetworkPolicy
                    metadata:
                      name: from-frontend
                      namespace: shop
                    spec:
                      podSelector: {}
                      ingress:
                      - from:
                        - podSelector:
                            matchLabels:
                              app: frontend
                    """),
                Set.of(),
                1),
            Map.of());

    assertPassedWithoutAFinding(run);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "annotations: [1]    | 6 | metadata.annotations of document 1 must be a mapping, not a"
            + " list",
        "annotations: \"s\"   | 6 | metadata.annotations of document 1 must be a mapping, not a"
            + " string",
        "labels: [app]       | 6 | metadata.labels of document 1 must be a mapping, not a list",
        "labels: {tier: 1}   | 6 | label \"tier\" of document 1 must be a string, not the integer"
            + " 1",
      })
  void pullRequestAddingAManifestWhoseAnnotationsOrLabelsAreNotAMappingOfStrings_failsOnThatLine(
      String field, int line, String what) throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of(
                    "unsigned/odd.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n  namespace: shop\n  "
                        + field
                        + "\ndata:\n  a: b\n"),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .containsPattern(
            "(?m)^::error file=unsigned/odd\\.yaml,line="
                + line
                + ",title=countersign manifest::"
                + Pattern.quote(what)
                + ", perhaps you should .* \\(countersign/readable-manifest\\)$")
        .contains("check failed: 1 error, 0 warnings");
    assertThat(run.all()).doesNotContain("this is a bug in countersign");
  }

  @Test
  void pullRequestBreakingTheTrustPolicy_failsNamingIt() throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of(
                    ".countersign/policy.yaml",
                    "apiVersion: countersign.dev/v1alpha1\nkind: TrustPolicy\n"),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.countersign/policy.yaml,")
        .contains("the trust policy names no signer");
  }

  // --- signed/ changes only the way countersign changes it ----------------------------------

  @Test
  void rollbackToAnOlderValidlySignedVersion_fails() throws Exception {
    String v1 = mainMovesOnToV2();

    CliRun run = checkPullRequestWriting(Map.of("signed/app/config.yaml", v1));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("replays an earlier signed version of this file");
  }

  @Test
  void rollbackWithTheOldSignatureFlippedToItsOtherValidForm_fails() throws Exception {
    // (r, n - s) verifies as well as (r, s) and anyone can compute it: as text it is a signature
    // no earlier version carried, but it is the same signing.
    String v1 = mainMovesOnToV2();
    String flipped = flipSignature(v1);
    assertThat(flipped).isNotEqualTo(v1);

    CliRun run = checkPullRequestWriting(Map.of("signed/app/config.yaml", flipped));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("replays an earlier signed version of this file")
        .doesNotContain("does not verify");
  }

  @Test
  void mergeKeySlippedIntoASignedFileAfterTheKeyItOverrides_fails() throws Exception {
    // The YAML spec keeps greeting: hello (what was signed); go-yaml, which kubectl and Argo CD
    // use, applies << where it stands and would apply greeting: evil.
    String signed = seed.read("signed/app/config.yaml");
    assertThat(signed).contains("  greeting: hello\n");
    String slipped =
        signed.replace("  greeting: hello\n", "  greeting: hello\n  <<: {greeting: evil}\n");

    CliRun run = checkPullRequestWriting(Map.of("signed/app/config.yaml", slipped));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("is set before the merge key <<");
  }

  @Test
  void sarifFileALinkInThePullRequestPointsAway_isRefused_andTheLinkedFileIsUntouched()
      throws Exception {
    // The Action runs as root; the pull request's link would aim the SARIF write at the runner's
    // files.
    Path outside = tmp.resolve("runner-home/.gitconfig");
    Files.createDirectories(outside.getParent());
    Files.writeString(outside, "[user]\n\tname = runner\n");
    git.branchOnOrigin("sarif-link", "main");
    git.commitSymlinkToOrigin("sarif-link", "countersign.sarif", outside.toString());
    Path ws = git.cloneBranch("ws-sarif-link", "sarif-link", 1);

    CliRun run = check(ws, Map.of("INPUT_SARIF_FILE", ws.resolve("countersign.sarif").toString()));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.all()).contains("countersign.sarif").contains("is a symbolic link");
    assertThat(Files.readString(outside)).isEqualTo("[user]\n\tname = runner\n");
  }

  @Test
  void retiredSignedContentPutBackAtANewPath_fails() throws Exception {
    // Signed once, deleted by a reviewed change; the base no longer holds the object anywhere, so
    // the own-path rule has nothing to compare with. Today's governance would refuse it unsigned.
    seed.sign("app/netpol.yaml", GateRepository.ALLOW_ALL_INGRESS);
    String retired = seed.read("signed/app/netpol.yaml");
    git.commitToOrigin("main", Map.of("signed/app/netpol.yaml", retired), Set.of(), "signed");
    git.commitToOrigin("main", Map.of(), Set.of("signed/app/netpol.yaml"), "retire allow-all");
    gate.baseIsMain();

    CliRun run = checkPullRequestWriting(Map.of("signed/app/netpol-restored.yaml", retired));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/netpol-restored.yaml,")
        .contains("replays the signature of signed/app/netpol.yaml as committed in ")
        .contains("retired signed content put back at another path");
  }

  @Test
  void control_aPromotionCopyingWhatTheBaseHoldsToAnotherPairsSignedDirectory_passes()
      throws Exception {
    String twoPairs =
        GateRepository.POLICY.replace(
            "  - unsigned: unsigned\n    signed: signed\n",
            "  - unsigned: unsigned\n    signed: signed\n"
                + "  - unsigned: prod/unsigned\n    signed: prod/signed\n");
    git.commitToOrigin(
        "main", Map.of(".countersign/policy.yaml", twoPairs), Set.of(), "a prod environment");
    gate.baseIsMain();

    CliRun run =
        checkPullRequestWriting(
            Map.of("prod/signed/app/config.yaml", seed.read("signed/app/config.yaml")));

    assertPassedWithoutAFinding(run);
  }

  @Test
  void droppingOneDocumentFromAValidlySignedMultiDocumentFile_fails() throws Exception {
    String signed = signedTwoDocumentFileOnMain();
    String dropped = signed.substring(0, signed.lastIndexOf("---\n"));

    CliRun run =
        check(pullRequest(Map.of("signed/app/multi.yaml", dropped), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/multi.yaml,")
        .contains("the file holds 1 document(s) but its signed message holds 2");
  }

  @Test
  void documentSeparatorBetweenYaml11LineBreaksInASignedFile_fails() throws Exception {
    // U+2028 (like U+0085 and U+2029) is a line break to YAML 1.1, so countersign's parser and
    // go-yaml both read "---" between two of them as a document marker, and countersign would see
    // both signed documents. apimachinery's YAMLReader (kubectl, Argo CD, Flux) splits the stream
    // only at "---" lines ended by "\n", and go-yaml reads the first document of a chunk: the
    // cluster gets "first" alone (sigs.k8s.io/yaml 1.3.0 on gopkg.in/yaml.v2 2.4.0 behind the
    // YAMLReader read one ConfigMap from this file). A diff shows one long line.
    String signed = signedTwoDocumentFileOnMain();
    int separator = signed.lastIndexOf("\n---\n");
    String hidden =
        signed.substring(0, separator) + "\u2028---\u2028" + signed.substring(separator + 5);

    CliRun run = check(pullRequest(Map.of("signed/app/multi.yaml", hidden), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .containsPattern(
            "(?m)^::error file=signed/app/multi\\.yaml,line=\\d+,title=countersign signature::"
                + "contains the character U\\+2028 .*\\(countersign/readable-manifest\\)$");
  }

  @Test
  void floatKeyUnquotedInASignedFile_fails() throws Exception {
    // Written unquoted, the signed key "1.0" is the float 1: sigs.k8s.io/yaml (kubectl, Argo CD)
    // turns a float key into Go's shortest float32 text, "1" (oracle: sigs.k8s.io/yaml 1.3.0 gave
    // {"1":"one"}), so the cluster would get another key than the one signed.
    seed.sign("app/numbers.yaml", GateRepository.CONFIG_MAP + "  \"1.0\": one\n");
    String signed = seed.read("signed/app/numbers.yaml");
    git.commitToOrigin("main", Map.of("signed/app/numbers.yaml", signed), Set.of(), "numbers");
    gate.baseIsMain();
    assertThat(signed).contains("  \"1.0\": one\n");
    String unquoted = signed.replace("  \"1.0\": one\n", "  1.0: one\n");

    CliRun run =
        check(pullRequest(Map.of("signed/app/numbers.yaml", unquoted), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("::error file=signed/app/numbers.yaml,");
  }

  @Test
  void control_aCommentAddedToASignedMultiDocumentFile_passes() throws Exception {
    // The signed file is compared with its message as YAML: what no parser reads does not count.
    String signed = signedTwoDocumentFileOnMain();
    String commented = signed.replace("\n---\n", "\n# the second object\n---\n");
    assertThat(commented).isNotEqualTo(signed);

    CliRun run =
        check(pullRequest(Map.of("signed/app/multi.yaml", commented), Set.of(), 1), Map.of());

    assertPassedWithoutAFinding(run);
  }

  /** signed/app/multi.yaml on main: two ConfigMaps, "first" and "second", signed as one file. */
  private String signedTwoDocumentFileOnMain() throws Exception {
    String both =
        GateRepository.CONFIG_MAP.replace("app-config", "first")
            + "---\n"
            + GateRepository.CONFIG_MAP.replace("app-config", "second");
    seed.sign("app/multi.yaml", both);
    String signed = seed.read("signed/app/multi.yaml");
    git.commitToOrigin("main", Map.of("signed/app/multi.yaml", signed), Set.of(), "multi");
    gate.baseIsMain();
    return signed;
  }

  @Test
  void copyingASignedFileToAnotherPath_fails() throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of("signed/app/copy.yaml", seed.read("signed/app/config.yaml")), Set.of(), 1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/copy.yaml,")
        .contains(
            "holds ConfigMap/shop/app-config, which the base branch has at signed/app/config.yaml");
  }

  /**
   * The path taken is another signed object's own: only the object's name tells the two slots
   * apart, as neither file is new to the base branch.
   */
  @Test
  void copyingASignedFileOverAnotherSignedObjectsFile_fails() throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of("signed/app/deployment.yaml", seed.read("signed/app/config.yaml")),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/deployment.yaml,")
        .contains(
            "holds ConfigMap/shop/app-config, which the base branch has at signed/app/config.yaml");
  }

  @Test
  void movingASignedFileToAnotherPath_fails_andTheDeletionIsReported() throws Exception {
    CliRun run =
        check(
            pullRequest(
                Map.of("signed/other/config.yaml", seed.read("signed/app/config.yaml")),
                Set.of("signed/app/config.yaml"),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/other/config.yaml,")
        .contains("a signed file copied or moved to another path")
        .contains(
            "::warning file=signed/app/config.yaml,title=countersign signature::is deleted by this"
                + " change");
  }

  @Test
  void control_theSigningWorkflowsPullRequest_movingReviewedContentToSigned_passes()
      throws Exception {
    String content = GateRepository.CONFIG_MAP.replace("app-config", "new-config");
    git.commitToOrigin(
        "main", Map.of("unsigned/app/new.yaml", content), Set.of(), "reviewed and merged");
    gate.baseIsMain();
    seed.sign("app/new.yaml", content);

    CliRun run =
        check(
            pullRequest(
                Map.of("signed/app/new.yaml", seed.read("signed/app/new.yaml")),
                Set.of("unsigned/app/new.yaml"),
                1),
            Map.of());

    assertPassedWithoutAFinding(run);
  }

  @Test
  void control_aNewSignatureOfChangedContentAtTheSamePath_passes_andADeletionIsOnlyReported()
      throws Exception {
    seed.sign(
        "app/config.yaml",
        GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: refreshed"));

    CliRun run =
        check(
            pullRequest(
                Map.of("signed/app/config.yaml", seed.read("signed/app/config.yaml")),
                Set.of("signed/app/deployment.yaml"),
                0),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains("::warning file=signed/app/deployment.yaml,")
        .contains("check passed: 0 errors, 1 warning");
  }

  // --- signed content that arrives already signed ---------------------------------------------

  @Test
  void signedFileBreakingAGovernancePolicy_asTheScheduledRefreshProposesIt_fails()
      throws Exception {
    // The refresh signs what its generator wrote, which no gate judged while unsigned, and
    // proposes only the signed file: the trusted key's signature is valid and new, at its own path.
    seed.sign("net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS);

    CliRun run =
        checkPullRequestWriting(
            Map.of("signed/net/allow-all.yaml", seed.read("signed/net/allow-all.yaml")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=signed/net/allow-all.yaml,line=4,title=countersign"
                + " governance::NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow"
                + " ingress from everywhere");
  }

  @Test
  void control_aCompliantSignedFileAsTheScheduledRefreshProposesIt_passes() throws Exception {
    seed.sign(
        "net/allow-all.yaml",
        GateRepository.ALLOW_ALL_INGRESS.replace(
            "  - {}", "  - from:\n    - podSelector: {matchLabels: {app: frontend}}"));

    CliRun run =
        checkPullRequestWriting(
            Map.of("signed/net/allow-all.yaml", seed.read("signed/net/allow-all.yaml")));

    assertPassedWithoutAFinding(run);
  }

  @Test
  void control_aSignedFileBreakingAGovernancePolicyThePullRequestLeavesAlone_isNotJudgedAgain()
      throws Exception {
    // Governance judges what a change brings, as on the unsigned side: a signed file already on
    // the base (signed before a rule it breaks was added, say) does not block unrelated changes.
    seed.sign("net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS);
    git.commitToOrigin(
        "main",
        Map.of("signed/net/allow-all.yaml", seed.read("signed/net/allow-all.yaml")),
        Set.of(),
        "signed before the rule");
    gate.baseIsMain();

    CliRun run = checkPullRequestWriting(Map.of("README.md", "unrelated\n"));

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  @Test
  void baseCommitMissingFromTheClone_andNotFetchable_isAnEnvironmentProblem() throws Exception {
    Path ws =
        pullRequest(
            Map.of("unsigned/a.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"),
            Set.of(),
            1);
    gate.baseSha("0123456789abcdef0123456789abcdef01234567");

    CliRun run = check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.all()).contains("The base commit " + gate.baseSha() + " is not in the clone");
  }

  // --- helpers -------------------------------------------------------------------------------

  /**
   * main replaces the signed config with a newly signed v2, which the next pull requests target.
   *
   * @return the signed v1 it replaced
   */
  private String mainMovesOnToV2() throws Exception {
    String v1 = seed.read("signed/app/config.yaml");
    seed.sign(
        "app/config.yaml", GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: hi"));
    git.commitToOrigin(
        "main",
        Map.of("signed/app/config.yaml", seed.read("signed/app/config.yaml")),
        Set.of(),
        "v2");
    gate.baseIsMain();
    return v1;
  }

  private Path pullRequest(Map<String, String> writes, Set<String> deletes, int depth)
      throws Exception {
    return gate.pullRequest(writes, deletes, depth);
  }

  private CliRun check(Path ws, Map<String, String> extra) throws IOException {
    return gate.check(ws, extra);
  }

  /** {@code check} on a pull request that writes {@code files} on the base, at full depth. */
  private CliRun checkPullRequestWriting(Map<String, String> files) throws Exception {
    return check(pullRequest(files, Set.of(), 0), Map.of());
  }

  private static void assertPassedWithoutAFinding(CliRun run) {
    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  /** {@code signedFile} with its ECDSA signature (r, s) replaced by the other valid (r, n - s). */
  static String flipSignature(String signedFile) {
    Matcher annotation =
        Pattern.compile("cosign\\.sigstore\\.dev/signature: (\\S+)").matcher(signedFile);
    assertThat(annotation.find()).as("a signature annotation").isTrue();
    byte[] der = Base64.getDecoder().decode(annotation.group(1));
    BigInteger n = NISTNamedCurves.getByName("P-256").getN();
    try {
      BigInteger[] rs = StandardDSAEncoding.INSTANCE.decode(n, der);
      byte[] flipped = StandardDSAEncoding.INSTANCE.encode(n, rs[0], n.subtract(rs[1]));
      return signedFile.replace(annotation.group(1), Base64.getEncoder().encodeToString(flipped));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path attackerKey() {
    Path key = tmp.resolve("attacker/attacker.key");
    KeyPairFiles.generate(
        key,
        key.resolveSibling("attacker.pub"),
        ATTACKER_PASSWORD.toCharArray(),
        new SecureRandom());
    return key;
  }

  /** {@code content} signed with {@code key} by the sign command, as an attacker could. */
  private String signWith(Path key, String relative, String content) throws IOException {
    Path file = tmp.resolve("attacker/files").resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", ATTACKER_PASSWORD),
            "sign",
            "--key",
            key.toString(),
            file.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }
}
