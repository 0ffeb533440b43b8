package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled refresh against the base branch's rules, end to end through the Action entry: main
 * holds a trust policy naming a key and the governance policies ({@link PullRequestGate}); the
 * refresh signs what its generator wrote and proposes it on the bot branch ({@link FakeGitHub}).
 * The generator's content is never under an unsigned directory of a pull request, so the refresh
 * judges it by main's rules before signing (a certificate and a log entry are not taken back), and
 * {@code check} judges the signed files the refresh's pull request brings.
 */
@RequiresSigstoreStack
class ScheduledRefreshGateTest {

  private static final String BOT = "countersign/sign-main";
  private static final String GENERATED = "unsigned/net/allow-all.yaml";

  /** ALLOW_ALL_INGRESS with its ingress from the frontend only, which the policies accept. */
  private static final String FRONTEND_INGRESS =
      GateRepository.ALLOW_ALL_INGRESS.replace(
          "  - {}", "  - from:\n    - podSelector: {matchLabels: {app: frontend}}");

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private PullRequestGate gate;
  private FakeGitHub github;

  ScheduledRefreshGateTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void setUp() throws Exception {
    gate = new PullRequestGate(tmp);
    github = FakeGitHub.start(ActionTestEnv.TOKEN);
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void generatedNetworkPolicyBreakingAGovernancePolicy_stopsTheRefreshBeforeAnythingIsSigned()
      throws Exception {
    assertRefusedBeforeSigning(
        keylessRefresh(Map.of(GENERATED, GateRepository.ALLOW_ALL_INGRESS)),
        "::error file="
            + GENERATED
            + ",line=1,title=countersign governance::NetworkPolicy/shop/allow-all: a"
            + " NetworkPolicy must not allow ingress from everywhere");
  }

  @Test
  void control_generatedNetworkPolicyTheGovernancePoliciesAccept_isSignedAndProposed()
      throws Exception {
    CliRun refresh = keylessRefresh(Map.of(GENERATED, FRONTEND_INGRESS));

    assertThat(refresh.exitCode()).as(refresh.all()).isZero();
    assertThat(stack.stats().certificates()).isEqualTo(1);
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertThat(ActionTestEnv.outputs(tmp.resolve("output"))).containsEntry("result", "created");
    assertThat(gate.git().originFiles(BOT)).containsKey("signed/net/allow-all.yaml");
  }

  @Test
  void generatorRewritingThePolicyFiles_theBaseCommitsPoliciesStillJudge() throws Exception {
    // The generator runs in the same job: it can rewrite the work tree's trust policy and
    // governance policies, but the rules come from main's commit.
    Map<String, String> written = new HashMap<>();
    written.put(GENERATED, GateRepository.ALLOW_ALL_INGRESS);
    written.put(
        ".countersign/policy.yaml",
        GateRepository.POLICY.replace("governance:\n  policies: [policies]\n", ""));
    written.put(
        "policies/deny-allow-all-ingress.yaml",
        Files.readString(gate.seed().root().resolve("policies/require-team-label.yaml")));

    assertRefusedBeforeSigning(
        keylessRefresh(written),
        "::error file="
            + GENERATED
            + ",line=1,title=countersign governance::NetworkPolicy/shop/allow-all: a"
            + " NetworkPolicy must not allow ingress from everywhere");
  }

  @Test
  void generatedObjectWithoutAName_stopsTheRefreshBeforeAnythingIsSigned() throws Exception {
    assertRefusedBeforeSigning(
        keylessRefresh(Map.of(GENERATED, FRONTEND_INGRESS.replace("  name: allow-all\n", ""))),
        "::error file="
            + GENERATED
            + ",line=3,title=countersign manifest::NetworkPolicy: has no metadata.name");
  }

  @Test
  void generatedObjectMainHoldsSignedAtAnotherPath_stopsTheRefreshBeforeAnythingIsSigned()
      throws Exception {
    // Signed into signed/app/zz-config.yaml beside main's signed/app/config.yaml, the one
    // ConfigMap would be in signed/ twice: Flux's build fails, Argo CD applies the later file.
    String generated = "unsigned/app/zz-config.yaml";
    assertRefusedBeforeSigning(
        keylessRefresh(
            Map.of(
                generated,
                GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: replaced"))),
        "::error file="
            + generated
            + ",line=1,title=countersign manifest::ConfigMap/shop/app-config: is also in"
            + " signed/app/config.yaml (line "
            + gate.seed().lineOf("signed/app/config.yaml", "apiVersion: ")
            + ")");
  }

  @Test
  void generatedChangeHoldingArgoCdsSkipMarker_stopsTheRefreshBeforeAnythingIsSigned()
      throws Exception {
    // Signed and merged, signed/app/config.yaml would verify, and Argo CD would skip the file and
    // prune the ConfigMap it deployed.
    assertRefusedBeforeSigning(
        keylessRefresh(
            Map.of(
                "unsigned/app/config.yaml",
                GateRepository.CONFIG_MAP.replace(
                    "greeting: hello", "greeting: \"\\x2bargocd:skip-file-rendering\""))),
        "::error file=unsigned/app/config.yaml,line=7,title=countersign manifest::"
            + "ConfigMap/shop/app-config: once signed, the file would hold"
            + " +argocd:skip-file-rendering");
  }

  @Test
  void generatedChangeMakingADeployedObjectAHook_stopsTheRefreshBeforeAnythingIsSigned()
      throws Exception {
    // Signed and merged, Argo CD would prune the ConfigMap main deploys from
    // signed/app/config.yaml and keep it only as a hook, deleted after each sync.
    assertRefusedBeforeSigning(
        keylessRefresh(
            Map.of(
                "unsigned/app/config.yaml",
                GateRepository.CONFIG_MAP.replace(
                    "  namespace: shop\n",
                    "  namespace: shop\n  annotations:\n    argocd.argoproj.io/hook: PostSync\n"
                        + "    argocd.argoproj.io/hook-delete-policy: HookSucceeded\n"))),
        "::error file=unsigned/app/config.yaml,line=7,title=countersign manifest::"
            + "ConfigMap/shop/app-config: argocd.argoproj.io/hook: PostSync makes the object an"
            + " Argo CD PostSync hook");
  }

  @Test
  void control_generatedChangeOfAnObjectAtItsOwnPath_isSignedAndProposed() throws Exception {
    CliRun refresh =
        keylessRefresh(
            Map.of(
                "unsigned/app/config.yaml",
                GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: refreshed")));

    assertThat(refresh.exitCode()).as(refresh.all()).isZero();
    assertThat(stack.stats().certificates()).isEqualTo(1);
    assertThat(gate.git().originFiles(BOT)).containsKey("signed/app/config.yaml");
  }

  @Test
  void control_refreshedNetworkPolicyTheGovernancePoliciesAccept_passesTheGate() throws Exception {
    CliRun refresh = keyedRefresh(FRONTEND_INGRESS);
    assertThat(refresh.exitCode()).as(refresh.all()).isZero();
    assertThat(ActionTestEnv.outputs(tmp.resolve("output"))).containsEntry("result", "created");

    CliRun check = gate.check(gate.git().cloneBranch("ws-bot", BOT, 0), Map.of());

    assertThat(check.exitCode()).as(check.all()).isZero();
    assertThat(check.out()).contains("check passed: 0 errors, 0 warnings");
  }

  /**
   * The refresh ended with exit 1 and {@code annotation}, having asked for no certificate, made no
   * log entry, pushed nothing and sent GitHub nothing.
   */
  private void assertRefusedBeforeSigning(CliRun refresh, String annotation) throws Exception {
    assertThat(refresh.exitCode()).as(refresh.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(refresh.out()).contains(annotation);
    assertThat(stack.stats().certificates()).as("no certificate: %s", refresh.all()).isZero();
    assertThat(stack.stats().logEntries()).as("no log entry").isZero();
    assertThat(ActionTestEnv.outputs(tmp.resolve("output"))).containsEntry("result", "rejected");
    assertThat(gate.git().originHead(BOT)).isNull();
    assertThat(gate.git().originHead("main")).isEqualTo(gate.baseSha());
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  /**
   * A scheduled run signing keylessly on the loopback stack: a checkout of main, the generator's
   * {@code written} files (paths relative to the checkout), then the Action's refresh.
   */
  private CliRun keylessRefresh(Map<String, String> written) throws Exception {
    Path ws = checkout(written);
    Map<String, String> env = ActionTestEnv.of(stack, tmp, ws, "schedule", scheduleEvent());
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("INPUT_MODE", "pull-request");
    env.put("INPUT_FROM_WORKTREE", "true");
    stack.resetStats();
    return CliRun.run(env, "action");
  }

  /**
   * A scheduled run signing with the key main's trust policy names, so {@code check} verifies what
   * it proposes.
   */
  private CliRun keyedRefresh(String generated) throws Exception {
    Path ws = checkout(Map.of(GENERATED, generated));
    Path event = tmp.resolve("schedule.json");
    Files.writeString(event, scheduleEvent());
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", "schedule");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_WORKSPACE", ws.toString());
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("GITHUB_REF", "refs/heads/main");
    env.put("GITHUB_RUN_ID", "778");
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_TOKEN", ActionTestEnv.TOKEN);
    env.put("INPUT_MODE", "pull-request");
    env.put("INPUT_FROM_WORKTREE", "true");
    env.put("INPUT_KEY", gate.signingKey().toString());
    env.put("COSIGN_PASSWORD", "correct horse");
    return CliRun.run(env, "action");
  }

  /** A checkout of main with the generator's files written into it (uncommitted). */
  private Path checkout(Map<String, String> written) throws Exception {
    Path ws = gate.git().clone("ws-refresh", 1, true);
    for (Map.Entry<String, String> file : written.entrySet()) {
      Path path = ws.resolve(file.getKey());
      Files.createDirectories(path.getParent());
      Files.writeString(path, file.getValue());
    }
    return ws;
  }

  private static String scheduleEvent() throws Exception {
    try (InputStream in =
        ScheduledRefreshGateTest.class.getResourceAsStream(
            "/action/events/schedule.minimal.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
