package dev.countersign.promotion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitRequest;
import dev.countersign.git.GitFixture;
import dev.countersign.git.GitIdentity;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.InMemoryPullRequestHost;
import dev.countersign.testing.SilentProgress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Create-or-update on the bot branch against a real bare origin and the in-memory host. */
class PullRequestPublisherTest {

  private static final String BOT = "countersign/promote-prod";
  private static final String DIGEST = "sha256:" + "ab".repeat(32);
  private static final PromotionPlan PLAN =
      PromotionPlan.of(FileChange.added("prod/a.yaml", DIGEST, "sha256:" + "cd".repeat(32), 7));
  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-22T05:00:00Z"), ZoneOffset.UTC);

  @TempDir Path tmp;
  private GitFixture git;
  private final InMemoryPullRequestHost host = new InMemoryPullRequestHost();

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "hi\n"), Set.of(), "initial");
  }

  @Test
  void firstRun_pushesTheBranch_andOpensThePullRequest_withTitleLabelsReviewersAndDraft()
      throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(false));
      Optional<String> tip = publisher.botBranchTip();
      String commit = commit(ws, "prod/a.yaml", "a: 1\n");

      PromotionResult result = publisher.publish(PLAN, Optional.of(commit), tip);

      assertThat(tip).isEmpty();
      assertThat(result.outcome()).isEqualTo(PromotionResult.Outcome.CREATED);
      assertThat(git.originHead(BOT)).isEqualTo(commit);
      PullRequestDraft opened = host.opened().get(0);
      assertThat(opened.head()).isEqualTo(BOT);
      assertThat(opened.labels()).containsExactly("promotion");
      assertThat(opened.reviewers()).containsExactly("octocat");
      assertThat(opened.teamReviewers()).containsExactly("platform");
      assertThat(opened.draft()).isTrue();
      assertThat(opened.body())
          .startsWith(PromotionBody.MARKER)
          .contains("<code>prod/a.yaml</code>");
    }
  }

  @Test
  void someoneElsePushedToTheBotBranch_leaseFails_nothingIsOverwritten() throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(false));
      publisher.publish(PLAN, Optional.of(commit(ws, "prod/a.yaml", "a: 1\n")), Optional.empty());
      Optional<String> seen = publisher.botBranchTip();
      String theirs =
          git.commitToOrigin(BOT, Map.of("notes.md", "their work\n"), Set.of(), "someone else");
      String ours = commit(ws, "prod/a.yaml", "a: 2\n");

      assertThatThrownBy(() -> publisher.publish(PLAN, Optional.of(ours), seen))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("The push to " + BOT + " was rejected")
          .hasMessageContaining("someone else pushed");
      assertThat(git.originHead(BOT)).isEqualTo(theirs);
      assertThat(host.updated()).isEmpty();
    }
  }

  @Test
  void branchCreatedSinceTheRunLooked_leaseOnAbsence_fails() throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(false));
      Optional<String> seen = publisher.botBranchTip();
      String theirs =
          git.commitToOrigin(BOT, Map.of("notes.md", "x\n"), Set.of(), "created meanwhile");

      assertThatThrownBy(
              () -> publisher.publish(PLAN, Optional.of(commit(ws, "prod/a.yaml", "a\n")), seen))
          .isInstanceOf(RemoteProblem.class);
      assertThat(git.originHead(BOT)).isEqualTo(theirs);
      assertThat(host.opened()).isEmpty();
    }
  }

  @Test
  void emptyPlan_withAnOpenPullRequest_closesIt_andDeletesTheBranchWhenAsked() throws Exception {
    int number =
        host.seedOpen(PullRequestDraft.of("old", PromotionBody.MARKER, BOT, "main")).number();
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PromotionResult result =
          publisher(ws, settings(true))
              .publish(new PromotionPlan(List.of()), Optional.empty(), Optional.empty());

      assertThat(result.outcome()).isEqualTo(PromotionResult.Outcome.CLOSED);
      assertThat(host.closed()).containsExactly(number);
      assertThat(host.deletedBranches()).containsExactly(BOT);
    }
  }

  @Test
  void emptyPlan_withoutAPullRequest_isNoop() throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PromotionResult result =
          publisher(ws, settings(true))
              .publish(new PromotionPlan(List.of()), Optional.empty(), Optional.empty());

      assertThat(result.outcome()).isEqualTo(PromotionResult.Outcome.NOOP);
      assertThat(host.closed()).isEmpty();
      assertThat(host.deletedBranches()).isEmpty();
    }
  }

  @Test
  void branchAlreadyHoldsThePlan_andThePullRequestIsCurrent_sendsNothing() throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(false));
      publisher.publish(PLAN, Optional.of(commit(ws, "prod/a.yaml", "a\n")), Optional.empty());

      PromotionResult again = publisher.publish(PLAN, Optional.empty(), publisher.botBranchTip());

      assertThat(again.outcome()).isEqualTo(PromotionResult.Outcome.NOOP);
      assertThat(host.updated()).isEmpty();
      assertThat(host.opened()).hasSize(1);
    }
  }

  @Test
  void newPlan_onAnOpenPullRequest_updatesTheBody() throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(false));
      publisher.publish(PLAN, Optional.of(commit(ws, "prod/a.yaml", "a\n")), Optional.empty());
      PromotionPlan bigger =
          new PromotionPlan(List.of(PLAN.changes().get(0), FileChange.removed("prod/old.yaml")));

      PromotionResult result =
          publisher.publish(
              bigger, Optional.of(commit(ws, "prod/b.yaml", "b\n")), publisher.botBranchTip());

      assertThat(result.outcome()).isEqualTo(PromotionResult.Outcome.UPDATED);
      assertThat(host.updated()).hasSize(1);
      assertThat(host.updated().get(0).draft().body())
          .contains("<code>prod/old.yaml</code> | removed");
    }
  }

  @Test
  void mergedBotBranch_withAnEmptyPlan_isDeletedWhenAsked_butAClosedUnmergedOneIsKept()
      throws Exception {
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      PullRequestPublisher publisher = publisher(ws, settings(true));
      PromotionResult opened =
          publisher.publish(PLAN, Optional.of(commit(ws, "prod/a.yaml", "a\n")), Optional.empty());
      int number = opened.pullRequest().orElseThrow().number();
      host.close(opened.pullRequest().get());

      PromotionResult unmerged =
          publisher.publish(new PromotionPlan(List.of()), Optional.empty(), Optional.empty());
      assertThat(unmerged.outcome()).isEqualTo(PromotionResult.Outcome.NOOP);
      assertThat(host.deletedBranches()).isEmpty();

      host.merge(number, git.originHead(BOT));
      PromotionResult merged =
          publisher.publish(new PromotionPlan(List.of()), Optional.empty(), Optional.empty());
      assertThat(merged.outcome()).isEqualTo(PromotionResult.Outcome.NOOP);
      assertThat(merged.detail()).contains("deleted " + BOT + ", whose pull request was merged");
      assertThat(host.deletedBranches()).containsExactly(BOT);
    }
  }

  @Test
  void pullRequestStepFailing_afterThePush_isAFailedResult_namingTheStateLeft() throws Exception {
    PullRequestHost failing =
        new PullRequestHost() {
          @Override
          public Optional<PullRequest> findOpen(String head, String base) {
            return Optional.empty();
          }

          @Override
          public PullRequest create(PullRequestDraft draft) {
            throw new RemoteProblem(
                "GitHub answered HTTP 502 (Bad Gateway) on 3 tries in a row while opening",
                "retry");
          }

          @Override
          public PullRequest update(PullRequest existing, PullRequestDraft draft) {
            throw new AssertionError();
          }

          @Override
          public void close(PullRequest pullRequest) {}

          @Override
          public void deleteBranch(String branch) {}

          @Override
          public boolean mergedAt(String head, String base, String commit) {
            return false;
          }

          @Override
          public Optional<Boolean> isProtected(String branch) {
            return Optional.empty();
          }
        };
    try (JGitWorkspace ws = JGitWorkspace.open(git.clone("ws", 0, false), CLOCK)) {
      String commit = commit(ws, "prod/a.yaml", "a\n");
      PromotionResult result =
          new PullRequestPublisher(ws, failing, git.remote(), new SilentProgress(), settings(false))
              .publish(PLAN, Optional.of(commit), Optional.empty());

      assertThat(result.outcome()).isEqualTo(PromotionResult.Outcome.FAILED);
      assertThat(result.commitId()).contains(commit);
      assertThat(result.headCommit()).contains(commit);
      assertThat(git.originHead(BOT)).isEqualTo(commit);
      assertThat(result.failure())
          .get()
          .isInstanceOf(RemoteProblem.class)
          .extracting(Throwable::getMessage)
          .asString()
          .endsWith(
              "State left: "
                  + BOT
                  + " now holds "
                  + commit.substring(0, 12)
                  + " but no pull request is open for it; the next run opens the pull request"
                  + " without signing again");
    }
  }

  @Test
  void defaultBranchNames_areStableAndSafe() {
    assertThat(PromotionSettings.promoteBranch("envs/prod/signed/"))
        .isEqualTo("countersign/promote-envs/prod/signed");
    assertThat(PromotionSettings.signBranch("main")).isEqualTo("countersign/sign-main");
    assertThat(PromotionSettings.promoteBranch("./a b/../c"))
        .isEqualTo("countersign/promote-a-b/-/c");
  }

  private PullRequestPublisher publisher(JGitWorkspace ws, PromotionSettings settings) {
    return new PullRequestPublisher(ws, host, git.remote(), new SilentProgress(), settings);
  }

  private static PromotionSettings settings(boolean deleteBranch) {
    return new PromotionSettings(
        "main",
        BOT,
        "Promote to prod",
        List.of("promotion"),
        List.of("octocat"),
        List.of("platform"),
        true,
        deleteBranch,
        "prod",
        List.of(),
        "",
        PromotionBody.Purpose.PROMOTE);
  }

  private static String commit(JGitWorkspace ws, String path, String content) {
    return ws.commit(
        ChangeSet.empty().write(path, content.getBytes(StandardCharsets.UTF_8)),
        new CommitRequest(
            "change " + path + "\n",
            GitIdentity.GITHUB_ACTIONS_BOT,
            GitIdentity.GITHUB_ACTIONS_BOT));
  }
}
