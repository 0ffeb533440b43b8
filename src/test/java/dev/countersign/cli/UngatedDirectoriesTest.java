package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.git.CommitIds;
import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check} judges the directory pairs of the base commit's trust policy; {@code run} signs
 * from the pairs its own options name. End to end through the Action entry (a bare origin whose
 * main holds a {@link PullRequestGate} trust policy naming unsigned/ and signed/ and a governance
 * policy refusing a NetworkPolicy that allows ingress from everywhere; keyless signing against the
 * loopback Sigstore stack): a signing workflow with {@code dirs: apps/unsigned:apps/signed} would
 * sign with the trusted identity what no gate ever judged, so {@code run} refuses, in every mode,
 * before anything is signed, when the checked-out commit's trust policy names no such pair.
 */
@RequiresSigstoreStack
class UngatedDirectoriesTest {

  private static final String APPS = "apps/unsigned:apps/signed";
  private static final String APPS_ALLOW_ALL = "apps/unsigned/allow-all.yaml";
  private static final String BOT = "countersign/sign-main";

  /** ALLOW_ALL_INGRESS with its ingress from the frontend only, which the policies accept. */
  private static final String FRONTEND_INGRESS =
      GateRepository.ALLOW_ALL_INGRESS.replace(
          "  - {}", "  - from:\n    - podSelector: {matchLabels: {app: frontend}}");

  /** The policy of main with a second pair for apps/. */
  private static final String POLICY_WITH_APPS =
      GateRepository.POLICY.replace(
          "    signed: signed\n",
          "    signed: signed\n  - unsigned: apps/unsigned\n    signed: apps/signed\n");

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private PullRequestGate gate;
  private GitFixture git;
  private FakeGitHub github;

  UngatedDirectoriesTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void setUp() throws Exception {
    gate = new PullRequestGate(tmp);
    git = gate.git();
    github = FakeGitHub.start(ActionTestEnv.TOKEN);
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void mergedManifestUnderAPairThePolicyDoesNotName_passedCheck_andRunRefusesToSignIt()
      throws Exception {
    Map<String, String> pullRequest = Map.of(APPS_ALLOW_ALL, GateRepository.ALLOW_ALL_INGRESS);
    // No rule of main's policy looks at apps/: the gate passes what its governance refuses.
    CliRun check = gate.check(gate.pullRequest(pullRequest, Set.of(), 0), Map.of());
    assertThat(check.exitCode()).as(check.all()).isZero();
    git.commitToOrigin("main", pullRequest, Set.of(), "merge the pull request");

    Path ws = git.clone("ws-run", 1, true);
    CliRun run = run(ws, Map.of("INPUT_DIRS", APPS));

    assertRefusedBeforeSigning(
        run, ws, "apps/unsigned:apps/signed", APPS_ALLOW_ALL, "apps/signed/allow-all.yaml");
  }

  @Test
  void control_theSameManifestUnderThePolicysPair_failsCheck() throws Exception {
    CliRun check =
        gate.check(
            gate.pullRequest(
                Map.of("unsigned/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS), Set.of(), 0),
            Map.of());

    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(check.out()).contains("must not allow ingress from everywhere");
  }

  @Test
  void signedDirectoryOfAnotherPair_isRefusedToo_thoughItsUnsignedSideIsGated() throws Exception {
    // unsigned/ is judged, but nothing verifies what lands in apps/signed/ or edits it later.
    git.commitToOrigin(
        "main", Map.of("unsigned/net.yaml", FRONTEND_INGRESS), Set.of(), "merge the pull request");
    Path ws = git.clone("ws-run", 1, true);

    CliRun run =
        run(ws, Map.of("INPUT_UNSIGNED_DIR", "unsigned", "INPUT_SIGNED_DIR", "apps/signed"));

    assertRefusedBeforeSigning(
        run, ws, "unsigned:apps/signed", "unsigned/net.yaml", "apps/signed/net.yaml");
  }

  @Test
  void pullRequestMode_refusesAPairThePolicyDoesNotName_andProposesNothing() throws Exception {
    git.commitToOrigin(
        "main", Map.of(APPS_ALLOW_ALL, FRONTEND_INGRESS), Set.of(), "merge the pull request");
    Path ws = git.clone("ws-run", 1, true);

    CliRun run = run(ws, Map.of("INPUT_DIRS", APPS, "INPUT_MODE", "pull-request"));

    assertRefusedBeforeSigning(
        run, ws, "apps/unsigned:apps/signed", APPS_ALLOW_ALL, "apps/signed/allow-all.yaml");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void scheduledRefresh_refusesAPairThePolicyDoesNotName_beforeSigningWhatItsGeneratorWrote()
      throws Exception {
    Path ws = git.clone("ws-refresh", 1, true);
    Files.createDirectories(ws.resolve("apps/unsigned"));
    Files.writeString(ws.resolve(APPS_ALLOW_ALL), FRONTEND_INGRESS);

    CliRun run =
        run(
            ws,
            Map.of("INPUT_DIRS", APPS, "INPUT_MODE", "pull-request", "INPUT_FROM_WORKTREE", "true"),
            "schedule",
            scheduleEvent());

    assertRefusedBeforeSigning(
        run, ws, "apps/unsigned:apps/signed", APPS_ALLOW_ALL, "apps/signed/allow-all.yaml");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void scheduledRefresh_refusesAPairTheBaseTipsPolicyNoLongerNames_thoughTheCheckoutsDoes()
      throws Exception {
    // The checkout names apps/; while the generator ran, main stopped gating it. The generated
    // content is signed for main and judged by main's rules, so main's policy must name the pair:
    // check verifies nothing under apps/signed/ on the refresh's pull request or any later one.
    git.commitToOrigin(
        "main", Map.of(".countersign/policy.yaml", POLICY_WITH_APPS), Set.of(), "gate apps/");
    Path ws = git.clone("ws-refresh", 1, true);
    git.commitToOrigin(
        "main", Map.of(".countersign/policy.yaml", GateRepository.POLICY), Set.of(), "drop apps/");
    Files.createDirectories(ws.resolve("apps/unsigned"));
    Files.writeString(ws.resolve(APPS_ALLOW_ALL), FRONTEND_INGRESS);

    CliRun run = refresh(ws, APPS);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .contains(
            "apps/unsigned:apps/signed is not a directory pair of the trust policy"
                + " .countersign/policy.yaml in commit "
                + CommitIds.abbreviate(git.originHead("main")))
        .contains("(unsigned:signed)");
    assertThat(stack.stats().certificates()).as("no certificate: %s", run.all()).isZero();
    assertThat(stack.stats().logEntries()).as("no log entry").isZero();
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void control_scheduledRefresh_signsAndProposesFromAPairTheBaseTipsPolicyNames() throws Exception {
    git.commitToOrigin(
        "main", Map.of(".countersign/policy.yaml", POLICY_WITH_APPS), Set.of(), "gate apps/");
    Path ws = git.clone("ws-refresh", 1, true);
    git.commitToOrigin("main", Map.of("unsigned/app/flags.yaml", flags()), Set.of(), "other work");
    Files.createDirectories(ws.resolve("apps/unsigned"));
    Files.writeString(ws.resolve(APPS_ALLOW_ALL), FRONTEND_INGRESS);

    CliRun run = refresh(ws, APPS);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertThat(git.originFiles(BOT)).containsKey("apps/signed/allow-all.yaml");
  }

  @Test
  void anEarlierStepAddingThePairToTheWorkTreesPolicy_doesNotMakeItGated() throws Exception {
    git.commitToOrigin(
        "main", Map.of(APPS_ALLOW_ALL, FRONTEND_INGRESS), Set.of(), "merge the pull request");
    Path ws = git.clone("ws-run", 1, true);
    Files.writeString(ws.resolve(".countersign/policy.yaml"), POLICY_WITH_APPS);

    CliRun run = run(ws, Map.of("INPUT_DIRS", APPS));

    assertRefusedBeforeSigning(
        run, ws, "apps/unsigned:apps/signed", APPS_ALLOW_ALL, "apps/signed/allow-all.yaml");
  }

  @Test
  void control_severalPairsThePolicyNames_checkJudgesEach_andRunSignsFromEach() throws Exception {
    git.commitToOrigin(
        "main", Map.of(".countersign/policy.yaml", POLICY_WITH_APPS), Set.of(), "gate apps/");
    gate.baseIsMain();
    CliRun refused =
        gate.check(
            gate.pullRequest(Map.of(APPS_ALLOW_ALL, GateRepository.ALLOW_ALL_INGRESS), Set.of(), 0),
            Map.of());
    assertThat(refused.exitCode()).as(refused.all()).isEqualTo(ExitCode.REJECTED.code());
    Map<String, String> accepted =
        Map.of(APPS_ALLOW_ALL, FRONTEND_INGRESS, "unsigned/app/flags.yaml", flags());
    CliRun passed = gate.check(gate.pullRequest(accepted, Set.of(), 0), Map.of());
    assertThat(passed.exitCode()).as(passed.all()).isZero();
    git.commitToOrigin("main", accepted, Set.of(), "merge the pull request");

    CliRun run =
        run(git.clone("ws-run", 1, true), Map.of("INPUT_DIRS", "unsigned:signed\n" + APPS));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles("main"))
        .containsKeys("apps/signed/allow-all.yaml", "signed/app/flags.yaml")
        .doesNotContainKeys(APPS_ALLOW_ALL, "unsigned/app/flags.yaml");
    assertThat(stack.stats().logEntries()).isEqualTo(2);
  }

  @Test
  void pullRequestAddingAPairAndContentUnderIt_isJudgedThereByTheBasesRules() throws Exception {
    // main's rules judge the change, but after the merge its policy names apps/, and run signs
    // from it: the content it brings there is judged now, by main's governance policies.
    CliRun check =
        gate.check(
            gate.pullRequest(
                Map.of(
                    ".countersign/policy.yaml",
                    POLICY_WITH_APPS,
                    APPS_ALLOW_ALL,
                    GateRepository.ALLOW_ALL_INGRESS),
                Set.of(),
                0),
            Map.of());

    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(check.out())
        .contains("file=" + APPS_ALLOW_ALL)
        .contains("must not allow ingress from everywhere");
  }

  @Test
  void control_pullRequestAddingAPairAndContentTheRulesAccept_passesWithTheRuleChangeReported()
      throws Exception {
    CliRun check =
        gate.check(
            gate.pullRequest(
                Map.of(
                    ".countersign/policy.yaml", POLICY_WITH_APPS, APPS_ALLOW_ALL, FRONTEND_INGRESS),
                Set.of(),
                0),
            Map.of());

    assertThat(check.exitCode()).as(check.all()).isZero();
    assertThat(check.out()).contains("countersign/rules-changed");
  }

  @Test
  void control_aSubdirectoryOfAPolicyPairMovedToTheSameSubdirectory_isGated_andSigned()
      throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/team/flags.yaml", flags()), Set.of(), "merge the pull request");

    CliRun run =
        run(git.clone("ws-run", 1, true), Map.of("INPUT_DIRS", "unsigned/team:signed/team"));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles("main")).containsKey("signed/team/flags.yaml");
  }

  @Test
  void subdirectoryMovedToAnotherSubdirectory_isRefused() throws Exception {
    // check maps unsigned/team/x to signed/team/x; a run writing signed/other/x makes a file
    // whose own path the gate would refuse on the next pull request, and whose unsigned source
    // it judged against another target.
    git.commitToOrigin(
        "main", Map.of("unsigned/team/flags.yaml", flags()), Set.of(), "merge the pull request");
    Path ws = git.clone("ws-run", 1, true);

    CliRun run = run(ws, Map.of("INPUT_DIRS", "unsigned/team:signed/other"));

    assertRefusedBeforeSigning(
        run,
        ws,
        "unsigned/team:signed/other",
        "unsigned/team/flags.yaml",
        "signed/other/flags.yaml");
  }

  @Test
  void policyDirectoryTurnedIntoALink_isNoPolicyThatLetsAnyPairBeSigned() throws Exception {
    // check finds no policy behind the link and fails; a run must not take it for a repository
    // without a gate and sign from any pair.
    git.commitToOrigin(
        "main",
        Map.of(APPS_ALLOW_ALL, FRONTEND_INGRESS),
        Set.of(".countersign/policy.yaml", ".countersign/cosign.pub"),
        "remove the policy directory");
    git.commitSymlinkToOrigin("main", ".countersign", "docs");
    Path ws = git.clone("ws-run", 1, true);

    CliRun run = run(ws, Map.of("INPUT_DIRS", APPS));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains(".countersign is not a directory");
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().logEntries()).isZero();
    assertThat(git.originFiles("main")).containsKey(APPS_ALLOW_ALL);
  }

  @Test
  void control_withoutATrustPolicyFile_runSignsFromThePairsItIsGiven() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(APPS_ALLOW_ALL, FRONTEND_INGRESS),
        Set.of(".countersign/policy.yaml"),
        "no trust policy");

    CliRun run = run(git.clone("ws-run", 1, true), Map.of("INPUT_DIRS", APPS));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles("main"))
        .containsKey("apps/signed/allow-all.yaml")
        .doesNotContainKey(APPS_ALLOW_ALL);
  }

  /**
   * The run ended with exit 2 naming {@code pair}, the policy file and its pairs, having asked for
   * no certificate, made no log entry, pushed nothing and sent GitHub nothing; {@code source} is
   * still in the checkout and {@code target} is not.
   */
  private void assertRefusedBeforeSigning(
      CliRun run, Path ws, String pair, String source, String target) throws Exception {
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .contains("::error title=countersign usage problem::")
        .contains(
            pair
                + " is not a directory pair of the trust policy .countersign/policy.yaml in commit"
                + " ")
        .contains("(unsigned:signed)");
    assertThat(stack.stats().certificates()).as("no certificate: %s", run.all()).isZero();
    assertThat(stack.stats().logEntries()).as("no log entry").isZero();
    assertThat(git.originHead("main")).isEqualTo(GitFixture.headOf(ws));
    assertThat(ws.resolve(source)).exists();
    assertThat(ws.resolve(target)).doesNotExist();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  private CliRun run(Path ws, Map<String, String> inputs) {
    return run(ws, inputs, "pull_request", ActionTestEnv.mergedPullRequestEvent());
  }

  /** The Action's run in {@code ws} for {@code eventName}, signing keylessly on the stack. */
  private CliRun run(Path ws, Map<String, String> inputs, String eventName, String event) {
    Map<String, String> env = ActionTestEnv.of(stack, tmp, ws, eventName, event);
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.putAll(inputs);
    stack.resetStats();
    return CliRun.run(env, "action");
  }

  /** The scheduled refresh: signs what the generator wrote under {@code dirs}, proposes it. */
  private CliRun refresh(Path ws, String dirs) throws Exception {
    return run(
        ws,
        Map.of("INPUT_DIRS", dirs, "INPUT_MODE", "pull-request", "INPUT_FROM_WORKTREE", "true"),
        "schedule",
        scheduleEvent());
  }

  private static String flags() {
    return ActionPipelineTest.configMap("flags", "on");
  }

  private static String scheduleEvent() throws Exception {
    try (InputStream in =
        UngatedDirectoriesTest.class.getResourceAsStream("/action/events/schedule.minimal.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
