package dev.countersign.cli;

import static dev.countersign.cli.GitHubSession.BOT;
import static dev.countersign.git.GitFixture.git;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What countersign's commit holds: HEAD plus its own change (signed files written, unsigned sources
 * removed), whatever a step before it left staged in the index. Such a change would otherwise be
 * pushed under countersign's committer and message, where a reviewer of the history takes it for
 * the mechanical signing change, and a commit that touches only signed files passes the loop guard
 * as countersign's own.
 */
class SigningCommitContentTest {

  /** Exactly what signing the two manifests of the setup changes. */
  private static final Map<String, String> SIGNING_CHANGE =
      Map.of(
          "signed/config/flags.yaml", "A 100644",
          "signed/egress/payments.yaml", "A 100644",
          "unsigned/config/flags.yaml", "D",
          "unsigned/egress/payments.yaml", "D");

  @TempDir Path tmp;
  private GitHubSession s;
  private String mainHead;

  @BeforeEach
  void setUp() throws Exception {
    s = new GitHubSession(tmp);
    mainHead =
        s.git.commitToOrigin(
            "main",
            Map.of(
                "unsigned/config/flags.yaml",
                ActionPipelineTest.configMap("flags", "on"),
                "unsigned/egress/payments.yaml",
                ActionPipelineTest.networkPolicy("payments-egress"),
                "docs/keep.md",
                "kept\n",
                "scripts/tool.sh",
                "#!/bin/sh\n"),
            Set.of(),
            "add manifests");
  }

  @AfterEach
  void tearDown() {
    s.close();
  }

  /**
   * What a workflow step before countersign may leave in the index: a forged signed file and a
   * document added, an edit, a deletion, an executable bit, an intent-to-add entry. (An unsigned
   * manifest staged with other content than HEAD's is in the way of the run itself, which stops
   * then: FailedRunCheckoutTest.)
   */
  private static void stageAStepsChanges(Path ws) throws Exception {
    Files.writeString(
        ws.resolve("signed/config/forged.yaml"),
        ActionPipelineTest.configMap("forged", "on"),
        java.nio.file.StandardOpenOption.CREATE_NEW);
    Files.writeString(ws.resolve("docs/new.md"), "added by a step\n");
    Files.writeString(ws.resolve("README.md"), "edited by a step\n");
    Files.writeString(ws.resolve("notes.txt"), "intent to add\n");
    git(ws, "add", "signed/config/forged.yaml", "docs/new.md", "README.md");
    git(ws, "rm", "--quiet", "--cached", "docs/keep.md");
    git(ws, "update-index", "--chmod=+x", "scripts/tool.sh");
    git(ws, "add", "--intent-to-add", "notes.txt");
  }

  /** {@code git status} of the tracked files, one line each. */
  private static String status(Path ws) throws Exception {
    return git(ws, "status", "--porcelain", "--untracked-files=no");
  }

  private Path cloneWithSignedDir() throws Exception {
    Path ws = s.git.clone("ws", 0, false);
    Files.createDirectories(ws.resolve("signed/config"));
    return ws;
  }

  @Test
  void control_nothingStaged_thePushedCommitIsExactlyTheSigningChange() throws Exception {
    Path ws = cloneWithSignedDir();

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originChanges("main")).isEqualTo(SIGNING_CHANGE);
    assertThat(git(ws, "status", "--porcelain", "--untracked-files=no")).isEmpty();
  }

  @Test
  void stagedChangesBeforeTheRun_areNotPushed_andStayStaged() throws Exception {
    Path ws = cloneWithSignedDir();
    stageAStepsChanges(ws);
    String staged = status(ws);

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originChanges("main")).isEqualTo(SIGNING_CHANGE);
    assertThat(s.git.originFiles("main").get("signed/config/flags.yaml")).contains("value: \"on\"");
    s.assertVerifies("main");
    // The step's changes are still staged, for the step after countersign; nothing is lost.
    assertThat(staged).contains("M  README.md\n", "A  signed/config/forged.yaml\n");
    assertThat(status(ws)).isEqualTo(staged);
  }

  @Test
  void pullRequestMode_stagedChangesBeforeTheRun_areNotOnTheBotBranch() throws Exception {
    Path ws = cloneWithSignedDir();
    stageAStepsChanges(ws);

    CliRun run = s.runIn(ws, s.env(), "--mode", "pull-request");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originChanges(BOT)).isEqualTo(SIGNING_CHANGE);
    assertThat(s.git.originFiles(BOT).get("signed/config/flags.yaml")).contains("value: \"on\"");
  }

  @Test
  void control_pullRequestMode_nothingStaged_theBotBranchHoldsExactlyTheSigningChange()
      throws Exception {
    Path ws = cloneWithSignedDir();

    CliRun run = s.runIn(ws, s.env(), "--mode", "pull-request");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originChanges(BOT)).isEqualTo(SIGNING_CHANGE);
  }

  @Test
  void protectedBranch_stagedChangesBeforeTheRun_areNotInTheProposedCommit() throws Exception {
    s.git.protectBranch("main");
    Path ws = cloneWithSignedDir();
    stageAStepsChanges(ws);

    CliRun run = s.runIn(ws, s.env());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
    assertThat(s.git.originChanges(BOT)).isEqualTo(SIGNING_CHANGE);
  }
}
