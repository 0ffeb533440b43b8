package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate judges the change the event asks about. Its verdict is recorded for the event's head
 * commit, so a checkout of anything else (the base branch, as a default actions/checkout leaves it
 * on pull_request_target; a commit pushed to the branch after the event) would lend that commit a
 * pass earned by other content. Each pull request here adds a NetworkPolicy that the base's
 * governance policy refuses, so a checkout the gate judges fails with exit 1, and one it refuses
 * fails with exit 3, never 0.
 */
class CheckedOutChangeTest {

  private static final String ALLOW_ALL = "unsigned/net/allow-all.yaml";

  @TempDir Path tmp;
  private PullRequestGate gate;
  private GitFixture git;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
    git = gate.git();
  }

  @Test
  void checkoutOfTheBase_asPullRequestTargetLeavesIt_isRefused() throws Exception {
    String head = pullRequestHead();
    Path base = git.clone("base", 1, true);

    CliRun run = gate.check(base, head, Map.of("GITHUB_EVENT_NAME", "pull_request_target"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.out())
        .contains("::error title=countersign")
        .contains(
            "The checkout is commit "
                + git.originHead("main").substring(0, 12)
                + ", which is neither the pull_request_target event's head commit "
                + head.substring(0, 12)
                + " nor GitHub's merge of it");
  }

  @Test
  void control_checkoutOfTheHead_onPullRequestTarget_isJudged() throws Exception {
    String head = pullRequestHead();
    Path ws = git.cloneBranch("head", "feature", 1);

    CliRun run = gate.check(ws, head, Map.of("GITHUB_EVENT_NAME", "pull_request_target"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("::error file=" + ALLOW_ALL + ",");
  }

  @Test
  void checkoutOfACommitPushedAfterTheEvent_isRefused() throws Exception {
    String head = pullRequestHead();
    // The author pushes a clean commit on top before the job checks out the branch by name; the
    // pass would be recorded for the head, which still holds the allow-all policy.
    git.commitToOrigin("feature", Map.of(), Set.of(ALLOW_ALL), "clean up");
    Path later = git.cloneBranch("later", "feature", 1);

    CliRun run = gate.check(later, head, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.out()).contains("neither the pull_request event's head commit");
  }

  @Test
  void control_checkoutOfGitHubsMergeCommit_isJudged_evenInAShallowClone() throws Exception {
    String head = pullRequestHead();
    String merge = git.mergeOnOrigin("pull-7-merge", "main", "feature");
    Path ws = git.cloneBranch("merge", "pull-7-merge", 1);

    CliRun run = gate.check(ws, head, Map.of("GITHUB_SHA", merge));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("::error file=" + ALLOW_ALL + ",");
  }

  @Test
  void mergeBuiltOnANewerBase_isJudgedByThatBasesRules_notThePayloadsOlderOne() throws Exception {
    // The payload's base commit predates a policy main has since gained; GitHub built the merge
    // on main as it is now, and that is what lands.
    String policy = "policies/deny-allow-all-ingress.yaml";
    String rule = gate.seed().read(policy);
    git.commitToOrigin("main", Map.of(), Set.of(policy), "drop the policy for a while");
    gate.baseIsMain();
    git.commitToOrigin("main", Map.of(policy, rule), Set.of(), "bring the policy back");
    String head = pullRequestHead();
    String merge = git.mergeOnOrigin("pull-7-merge", "main", "feature");
    Path ws = git.cloneBranch("merge", "pull-7-merge", 0);

    CliRun run = gate.check(ws, head, Map.of("GITHUB_SHA", merge));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=" + ALLOW_ALL + ",")
        .doesNotContain("this change adds a file of the gate's rules");
  }

  @Test
  void mergeCommitTheEventDoesNotName_isRefused() throws Exception {
    String head = pullRequestHead();
    git.mergeOnOrigin("pull-7-merge", "main", "feature");
    Path ws = git.cloneBranch("merge", "pull-7-merge", 1);

    // On pull_request_target GITHUB_SHA is the base's tip, never the merge.
    CliRun run =
        gate.check(
            ws,
            head,
            Map.of(
                "GITHUB_EVENT_NAME",
                "pull_request_target",
                "GITHUB_SHA",
                git.originHead("pull-7-merge")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.out()).contains("nor GitHub's merge of it");
  }

  @Test
  void payloadNamingNoHeadCommit_isRefused() throws Exception {
    pullRequestHead();
    Path ws = git.cloneBranch("head", "feature", 1);

    CliRun run = gate.check(ws, "not-a-commit", Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.out()).contains("The pull_request event names no head commit");
  }

  /** Pushes branch {@code feature} adding the refused NetworkPolicy; returns its head commit. */
  private String pullRequestHead() throws Exception {
    git.branchOnOrigin("feature", "main");
    return git.commitToOrigin(
        "feature", Map.of(ALLOW_ALL, GateRepository.ALLOW_ALL_INGRESS), Set.of(), "allow all");
  }
}
