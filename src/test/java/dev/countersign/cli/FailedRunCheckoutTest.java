package dev.countersign.cli;

import static dev.countersign.cli.GitHubSession.BOT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import dev.countersign.support.Sleeper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.Status;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a failed {@code countersign run} leaves in the checkout (and, for contrast, one that pushed)
 * for the job's next step: HEAD on its branch at the commit it started from, {@code unsigned/} as
 * it was, nothing staged or changed. A signing commit left at HEAD is one the loop guard takes for
 * a finished run, so countersign run again in the same job (a retry step) would report "nothing to
 * do" while nothing was pushed.
 */
class FailedRunCheckoutTest {

  @TempDir Path tmp;
  private GitHubSession s;
  private String mainHead;

  @BeforeEach
  void setUp() throws Exception {
    s = new GitHubSession(tmp);
    mainHead = s.addTwoManifestsToMain();
  }

  @AfterEach
  void tearDown() {
    s.close();
  }

  @Test
  void control_aPushThatLands_leavesTheCheckoutOnMainAtThePushedCommit() throws Exception {
    Path ws = s.git.clone("ws", 0, false);

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originFiles("main")).containsKey("signed/config/flags.yaml");
    assertCheckout(ws, "refs/heads/main", s.git.originHead("main"));
    assertThat(ws.resolve("unsigned/config/flags.yaml")).doesNotExist();
  }

  @Test
  void aPushThatLandsOnTheSecondAttempt_leavesMainHeadAndOriginMainAtThePushedCommit()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    // Another merge lands after the checkout: the first push loses the race, the second lands.
    s.git.commitToOrigin("main", Map.of("docs/other.md", "another merge\n"), Set.of(), "other");

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all()).contains("(attempt 2,");
    String pushed = s.git.originHead("main");
    // Not main on the first attempt's commit, which was never pushed, with HEAD detached.
    assertCheckout(ws, "refs/heads/main", pushed);
    try (Repository repository = GitFixture.open(ws)) {
      assertThat(repository.exactRef("refs/remotes/origin/main").getObjectId().name())
          .as("origin/main, as a later step's git status compares with it")
          .isEqualTo(pushed);
    }
    assertThat(ws.resolve("docs/other.md")).exists();

    // A later step of the job that runs countersign again finds its own commit: nothing to do.
    CliRun again = s.runIn(ws, s.env());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).contains("was made by countersign");
    assertThat(s.git.originHead("main")).isEqualTo(pushed);
  }

  @Test
  void pushRejectedOnEveryAttempt_exits4_theCheckoutIsAsItWas_andTheNextRunThereSigns()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    Map<String, String> unsignedBefore = files(ws.resolve("unsigned"));
    // Another merge lands after the checkout: the one push allowed loses the race.
    s.git.commitToOrigin("main", Map.of("docs/other.md", "another merge\n"), Set.of(), "other");
    String raced = s.git.originHead("main");

    CliRun failed = s.runIn(ws, s.env(), "--push-attempts", "1");

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(failed.err()).contains("The push to main was rejected 1 times");
    assertThat(s.git.originHead("main")).isEqualTo(raced);
    assertCheckout(ws, "refs/heads/main", mainHead);
    assertThat(files(ws.resolve("unsigned"))).isEqualTo(unsignedBefore);
    assertThat(ws.resolve("signed")).doesNotExist();

    // A retry step of the same job: it signs and pushes, it does not take the unpushed commit
    // for a finished run.
    CliRun retry = s.runIn(ws, s.env());

    assertThat(retry.exitCode()).as(retry.all()).isZero();
    assertThat(retry.all()).doesNotContain("was made by countersign");
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml", "docs/other.md")
        .noneMatch(p -> p.startsWith("unsigned/"));
    s.assertVerifies("main");
  }

  @Test
  void protectedBranchWithNowhereToPropose_exits3_theCheckoutIsAsItWas_andARetryFailsAgain()
      throws Exception {
    s.git.protectBranch("main");
    Path ws = s.git.clone("ws", 0, false);
    Map<String, String> env = new HashMap<>(s.env());
    env.remove("GITHUB_REPOSITORY");

    CliRun refused = s.runIn(ws, env);

    assertThat(refused.exitCode()).as(refused.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(refused.err()).contains("refused the push to main");
    assertCheckout(ws, "refs/heads/main", mainHead);
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();

    CliRun retry = s.runIn(ws, env);

    assertThat(retry.exitCode())
        .as("a retry meets the same refusal instead of reporting nothing to do: " + retry.all())
        .isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
  }

  @Test
  void aFailedRun_putsBackOnlyWhatItChanged_keepingWhatAnEarlierStepLeftUncommitted()
      throws Exception {
    s.git.protectBranch("main");
    Path ws = s.git.clone("ws", 0, false);
    Map<String, String> env = new HashMap<>(s.env());
    env.remove("GITHUB_REPOSITORY");
    leaveUncommittedWork(ws);

    CliRun refused = s.runIn(ws, env);

    assertThat(refused.exitCode()).as(refused.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(refused.err()).contains("refused the push to main");
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertThat(ws.resolve("signed")).doesNotExist();
    assertUncommittedWorkKept(ws, "refs/heads/main", mainHead);
  }

  @Test
  void aPushThatLandsOnTheSecondAttempt_keepsWhatAnEarlierStepLeftUncommitted() throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    leaveUncommittedWork(ws);
    // The first push loses the race: the retry starts from the fresh tip.
    s.git.commitToOrigin("main", Map.of("docs/other.md", "another merge\n"), Set.of(), "other");

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all()).contains("(attempt 2,");
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "docs/other.md")
        .doesNotContain("notes/plan.md", "build/report.txt")
        .noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(s.git.originFiles("main")).containsEntry("README.md", "hello\n");
    assertThat(ws.resolve("docs/other.md")).hasContent("another merge");
    assertThat(ws.resolve("signed/config/flags.yaml")).exists();
    assertUncommittedWorkKept(ws, "refs/heads/main", s.git.originHead("main"));
  }

  @Test
  void pushRejectedOnEveryAttempt_keepsWhatAnEarlierStepLeftUncommitted() throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    leaveUncommittedWork(ws);
    s.git.commitToOrigin("main", Map.of("docs/other.md", "another merge\n"), Set.of(), "other");
    // Another merge lands during every wait too, so the second attempt loses the race again.
    List<String> raced = new ArrayList<>();
    Sleeper anotherMerge =
        delay -> {
          try {
            raced.add(
                s.git.commitToOrigin(
                    "main",
                    Map.of("docs/other.md", "merge " + raced.size() + "\n"),
                    Set.of(),
                    "other " + raced.size()));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        };

    CliRun failed = s.runIn(anotherMerge, ws, s.env(), "--push-attempts", "2");

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(failed.err()).contains("The push to main was rejected 2 times");
    assertThat(raced).hasSize(1);
    assertThat(s.git.originHead("main")).isEqualTo(raced.get(0));
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertThat(ws.resolve("signed")).doesNotExist();
    assertUncommittedWorkKept(ws, "refs/heads/main", mainHead);
  }

  @Test
  void aLostRaceOverAFileAnEarlierStepEdited_exits2NamingIt_andKeepsTheEdit() throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    leaveUncommittedWork(ws);
    // The merge that wins the race changes the very file the earlier step edited: moving to it
    // would overwrite the edit.
    String raced =
        s.git.commitToOrigin("main", Map.of("README.md", "hello, merged\n"), Set.of(), "other");

    CliRun failed = s.runIn(ws, s.env());

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(failed.err())
        .contains("README.md")
        .contains("uncommitted")
        .contains("would overwrite");
    assertThat(s.git.originHead("main")).isEqualTo(raced);
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertThat(ws.resolve("signed")).doesNotExist();
    assertUncommittedWorkKept(ws, "refs/heads/main", mainHead);
  }

  @Test
  void mergedPullRequestRunStartingFromTheBranchTip_keepsWhatAnEarlierStepLeftUncommitted()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    leaveUncommittedWork(ws);
    // A pull_request run starts from the branch as the remote has it, here one merge ahead.
    s.git.commitToOrigin("main", Map.of("docs/other.md", "another merge\n"), Set.of(), "other");
    Path event = tmp.resolve("event.json");
    Files.writeString(event, ActionTestEnv.mergedPullRequestEvent());
    Map<String, String> env = new HashMap<>(s.env());
    env.put("GITHUB_EVENT_NAME", "pull_request");
    env.put("GITHUB_EVENT_PATH", event.toString());

    CliRun run = s.runIn(ws, env);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all()).contains("Starting from main at").contains("(attempt 1,");
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "docs/other.md")
        .doesNotContain("notes/plan.md", "build/report.txt");
    assertThat(ws.resolve("docs/other.md")).hasContent("another merge");
    assertUncommittedWorkKept(ws, "refs/heads/main", s.git.originHead("main"));
  }

  @Test
  void control_aPushThatLands_keepsWhatAnEarlierStepLeftUncommittedElsewhere() throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    leaveUncommittedWork(ws);

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml")
        .doesNotContain("notes/plan.md", "build/report.txt")
        .noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(s.git.originFiles("main")).containsEntry("README.md", "hello\n");
    s.assertVerifies("main");
    assertUncommittedWorkKept(ws, "refs/heads/main", s.git.originHead("main"));
  }

  @Test
  void anEarlierStepsEditOfAnUnsignedManifest_exits2NamingIt_beforeSigning_andKeepsTheEdit()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    // Signing the committed bytes and deleting the file would throw this edit away.
    String edit = ActionPipelineTest.configMap("flags", "edited by an earlier step");
    Files.writeString(ws.resolve("unsigned/config/flags.yaml"), edit);

    CliRun failed = s.runIn(ws, s.env());

    assertRefusedBeforeSigning(failed, ws, "unsigned/config/flags.yaml");
    assertThat(ws.resolve("unsigned/config/flags.yaml")).hasContent(edit);
    assertThat(ws.resolve("signed")).doesNotExist();
    assertOnlyUncommitted(ws, " M unsigned/config/flags.yaml\n");
  }

  @Test
  void anEarlierStepsEditOfASignedFileTheRunReplaces_exits2NamingIt_andKeepsTheEdit()
      throws Exception {
    assertThat(s.runIn(s.git.clone("first", 0, false), s.env()).exitCode()).isZero();
    // A new version of the manifest is merged: the run replaces signed/config/flags.yaml.
    mainHead =
        s.git.commitToOrigin(
            "main",
            Map.of("unsigned/config/flags.yaml", ActionPipelineTest.configMap("flags", "off")),
            Set.of(),
            "flags off");
    Path ws = s.git.clone("ws", 0, false);
    Path signed = ws.resolve("signed/config/flags.yaml");
    String edit = Files.readString(signed) + "# edited by an earlier step\n";
    Files.writeString(signed, edit);

    CliRun failed = s.runIn(ws, s.env());

    assertRefusedBeforeSigning(failed, ws, "signed/config/flags.yaml");
    assertThat(signed).hasContent(edit);
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertOnlyUncommitted(ws, " M signed/config/flags.yaml\n");
  }

  @Test
  void anUntrackedFileWhereTheRunWritesASignedOne_exits2NamingIt_andKeepsTheFile()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    Files.createDirectories(ws.resolve("signed/config"));
    Files.writeString(ws.resolve("signed/config/flags.yaml"), "left by an earlier step\n");

    CliRun failed = s.runIn(ws, s.env());

    assertRefusedBeforeSigning(failed, ws, "signed/config/flags.yaml");
    assertThat(ws.resolve("signed/config/flags.yaml")).hasContent("left by an earlier step");
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertOnlyUncommitted(ws, "?? signed/\n");
  }

  @Test
  void pullRequestMode_aStagedEditOfAnUnsignedManifest_exits2NamingIt_andKeepsTheEdit()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    String edit = ActionPipelineTest.configMap("flags", "staged by an earlier step");
    Files.writeString(ws.resolve("unsigned/config/flags.yaml"), edit);
    GitFixture.git(ws, "add", "unsigned/config/flags.yaml");

    CliRun failed = s.runIn(ws, s.env(), "--mode", "pull-request");

    assertRefusedBeforeSigning(failed, ws, "unsigned/config/flags.yaml");
    assertThat(s.git.originHead(BOT)).isNull();
    assertThat(s.writes()).isEmpty();
    assertThat(ws.resolve("unsigned/config/flags.yaml")).hasContent(edit);
    assertOnlyUncommitted(ws, "M  unsigned/config/flags.yaml\n");
  }

  /**
   * {@code run} stopped with exit code 2 naming {@code path} as holding uncommitted work, before
   * anything was signed, and pushed nothing: main is where it was, and so is the checkout.
   */
  private void assertRefusedBeforeSigning(CliRun run, Path ws, String path) throws Exception {
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains(path).contains("uncommitted").contains("would overwrite");
    assertThat(run.all()).as("nothing signed").doesNotContain("Signing ");
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
    try (Repository repository = GitFixture.open(ws)) {
      assertThat(repository.getFullBranch()).isEqualTo("refs/heads/main");
      assertThat(repository.resolve("HEAD").name()).isEqualTo(mainHead);
    }
  }

  /** git status of {@code ws} is exactly {@code porcelain}, and no index lock is left. */
  private static void assertOnlyUncommitted(Path ws, String porcelain) throws Exception {
    assertThat(GitFixture.git(ws, "status", "--porcelain")).isEqualTo(porcelain);
    assertThat(ws.resolve(".git/index.lock")).doesNotExist();
  }

  /**
   * What a step before countersign leaves and a step after it expects: a tracked file edited, a new
   * file staged, an untracked file; none of it committed.
   */
  private static void leaveUncommittedWork(Path ws) throws Exception {
    Files.writeString(ws.resolve("README.md"), "hello, edited by an earlier step\n");
    Files.createDirectories(ws.resolve("notes"));
    Files.writeString(ws.resolve("notes/plan.md"), "staged by an earlier step\n");
    Files.createDirectories(ws.resolve("build"));
    Files.writeString(ws.resolve("build/report.txt"), "untracked, from an earlier step\n");
    try (Repository repository = GitFixture.open(ws);
        Git git = new Git(repository)) {
      git.add().addFilepattern("notes/plan.md").call();
    }
  }

  /**
   * {@link #leaveUncommittedWork}'s files byte for byte, git status saying exactly that of them,
   * and HEAD on {@code branch} at {@code commit}.
   */
  private static void assertUncommittedWorkKept(Path ws, String branch, String commit)
      throws Exception {
    assertThat(ws.resolve("README.md")).hasContent("hello, edited by an earlier step");
    assertThat(ws.resolve("notes/plan.md")).hasContent("staged by an earlier step");
    assertThat(ws.resolve("build/report.txt")).hasContent("untracked, from an earlier step");
    try (Repository repository = GitFixture.open(ws);
        Git git = new Git(repository)) {
      assertThat(repository.getFullBranch()).isEqualTo(branch);
      assertThat(repository.resolve("HEAD").name()).isEqualTo(commit);
      Status status = git.status().call();
      assertThat(status.getModified()).containsExactly("README.md");
      assertThat(status.getAdded()).containsExactly("notes/plan.md");
      assertThat(status.getChanged()).isEmpty();
      assertThat(status.getRemoved()).isEmpty();
      assertThat(status.getMissing()).isEmpty();
      assertThat(status.getUntracked()).containsExactly("build/report.txt");
    }
    assertThat(ws.resolve(".git/index.lock")).doesNotExist();
  }

  @Test
  void pullRequestStepFailing_exits4_theCheckoutIsAsItWas_andARetryThereOpensOnePullRequest()
      throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    s.github.failNext("POST", ".*/repos/" + FakeGitHub.REPOSITORY + "/pulls", 502, "", 3);

    CliRun failed = s.runIn(ws, s.env(), "--mode", "pull-request");

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(failed.err()).contains("State left: " + BOT + " now holds");
    String tip = s.git.originHead(BOT);
    assertThat(s.github.hosted(273)).isEmpty();
    assertCheckout(ws, "refs/heads/main", mainHead);

    CliRun retry = s.runIn(ws, s.env(), "--mode", "pull-request");

    assertThat(retry.exitCode()).as(retry.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "created");
    assertThat(s.git.originHead(BOT)).as("nothing re-signed or pushed").isEqualTo(tip);
    assertThat(s.github.hosted(273)).hasValueSatisfying(pr -> assertThat(pr.open()).isTrue());
    assertThat(s.github.hosted(274)).isEmpty();
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
  }

  /** HEAD is on {@code branch} at {@code commit}, with nothing staged, changed or missing. */
  private static void assertCheckout(Path ws, String branch, String commit) throws Exception {
    try (Repository repository = GitFixture.open(ws);
        Git git = new Git(repository)) {
      Ref head = repository.exactRef("HEAD");
      assertThat(head.isSymbolic()).as("HEAD is on a branch").isTrue();
      assertThat(head.getTarget().getName()).isEqualTo(branch);
      assertThat(head.getObjectId().name()).isEqualTo(commit);
      Status status = git.status().call();
      assertThat(status.getUncommittedChanges()).as("uncommitted changes").isEmpty();
      assertThat(status.getUntracked()).as("untracked files").isEmpty();
    }
    assertThat(ws.resolve(".git/index.lock")).doesNotExist();
  }

  /** Every file under {@code dir}, by relative path. */
  private static Map<String, String> files(Path dir) throws Exception {
    Map<String, String> files = new HashMap<>();
    try (var walk = Files.walk(dir)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(dir.relativize(p).toString(), Files.readString(p));
      }
    }
    return files;
  }
}
