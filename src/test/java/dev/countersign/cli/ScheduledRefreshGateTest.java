package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled refresh's pull request before the merge gate, end to end through the Action entry:
 * main holds a trust policy naming the key the refresh signs with and the governance policies
 * ({@link PullRequestGate}); the refresh signs what its generator wrote and proposes it on the bot
 * branch ({@link FakeGitHub}); {@code check} then judges a checkout of that branch on a
 * pull_request event, as the required check does. The generator's content was never under an
 * unsigned directory of a pull request, so this is the only gate it meets.
 */
class ScheduledRefreshGateTest {

  private static final String TOKEN = "ghs_refreshGateTestToken0123456789";
  private static final String BOT = "countersign/sign-main";

  @TempDir Path tmp;
  private PullRequestGate gate;
  private FakeGitHub github;

  @BeforeEach
  void setUp() throws Exception {
    gate = new PullRequestGate(tmp);
    github = FakeGitHub.start(TOKEN);
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void generatedNetworkPolicyBreakingAGovernancePolicy_isRefusedByTheGateOnTheRefreshPullRequest()
      throws Exception {
    CliRun refresh = refresh(GateRepository.ALLOW_ALL_INGRESS);
    assertThat(refresh.exitCode()).as(refresh.all()).isZero();
    assertThat(ActionTestEnv.outputs(tmp.resolve("output"))).containsEntry("result", "created");

    CliRun check = gate.check(gate.git().cloneBranch("ws-bot", BOT, 0), Map.of());

    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(check.out())
        .contains(
            "::error file=signed/net/allow-all.yaml,line=4,title=countersign"
                + " governance::NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow"
                + " ingress from everywhere");
  }

  @Test
  void control_generatedNetworkPolicyTheGovernancePoliciesAccept_passesTheGate() throws Exception {
    CliRun refresh =
        refresh(
            GateRepository.ALLOW_ALL_INGRESS.replace(
                "  - {}", "  - from:\n    - podSelector: {matchLabels: {app: frontend}}"));
    assertThat(refresh.exitCode()).as(refresh.all()).isZero();
    assertThat(ActionTestEnv.outputs(tmp.resolve("output"))).containsEntry("result", "created");

    CliRun check = gate.check(gate.git().cloneBranch("ws-bot", BOT, 0), Map.of());

    assertThat(check.exitCode()).as(check.all()).isZero();
    assertThat(check.out()).contains("check passed: 0 errors, 0 warnings");
  }

  /**
   * A scheduled run: a checkout of main, the generator's output in {@code unsigned/net/}, then the
   * Action's refresh signing with the key main's trust policy names.
   */
  private CliRun refresh(String generated) throws Exception {
    Path ws = gate.git().clone("ws-refresh", 1, true);
    Path file = ws.resolve("unsigned/net/allow-all.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, generated);
    Path event = tmp.resolve("schedule.json");
    try (var in = getClass().getResourceAsStream("/action/events/schedule.minimal.json")) {
      Files.write(event, in.readAllBytes());
    }
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
    env.put("INPUT_TOKEN", TOKEN);
    env.put("INPUT_MODE", "pull-request");
    env.put("INPUT_FROM_WORKTREE", "true");
    env.put("INPUT_KEY", gate.signingKey().toString());
    env.put("COSIGN_PASSWORD", "correct horse");
    return CliRun.run(env, "action");
  }
}
