package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.testing.ChildJvm;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JGitWorkspaceTest {

  static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-03-04T05:06:07Z"), ZoneId.of("Europe/Berlin"));
  static final GitIdentity AUTHOR = new GitIdentity("Ada Author", "ada@example.com");
  static final GitIdentity BOT = GitIdentity.GITHUB_ACTIONS_BOT;

  @TempDir Path tmp;
  GitFixture fixture;

  @BeforeEach
  void origin() throws Exception {
    fixture = new GitFixture(tmp);
    fixture.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", "kind: A\n", "README.md", "hi\n"), Set.of(), "init");
  }

  private JGitWorkspace open(Path dir) {
    return JGitWorkspace.open(dir, CLOCK);
  }

  private static String commitOneFile(JGitWorkspace ws, String path, String text) {
    return ws.commit(
        ChangeSet.empty().write(path, text.getBytes(StandardCharsets.UTF_8)),
        new CommitRequest("add " + path + "\n", AUTHOR, BOT));
  }

  @Test
  void commit_repoConfigAsksForGpgSigningAndHasHooks_commitsUnsignedWithoutRunningHooks()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (Repository repo = GitFixture.open(clone)) {
      StoredConfig config = repo.getConfig();
      config.setBoolean("commit", null, "gpgsign", true);
      config.setString("gpg", null, "format", "openpgp");
      config.setString("user", null, "signingkey", "DEADBEEF");
      config.save();
    }
    Path marker = tmp.resolve("hook-ran");
    for (String hook : List.of("pre-commit", "commit-msg", "post-commit", "pre-push")) {
      Path file = clone.resolve(".git/hooks/" + hook);
      Files.createDirectories(file.getParent());
      Files.writeString(file, "#!/bin/sh\necho " + hook + " >> '" + marker + "'\nexit 1\n");
      file.toFile().setExecutable(true);
    }

    try (JGitWorkspace ws = open(clone)) {
      String id = commitOneFile(ws, "signed/a.yaml", "kind: A\n");
      PushOutcome outcome = ws.push(fixture.remote(), "main");

      assertThat(outcome).isEqualTo(new PushOutcome.Pushed("main", id, false));
      assertThat(fixture.originCommit("main").getRawGpgSignature()).isNull();
      assertThat(marker).doesNotExist();
    }
  }

  @Test
  void commit_indexHoldsWhatAnEarlierStepStaged_commitsHeadPlusTheChangeOnly_andKeepsItStaged()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("README.md"), "staged edit\n");
    Files.createDirectories(clone.resolve("signed"));
    Files.writeString(clone.resolve("signed/forged.yaml"), "kind: Forged\n");
    Files.writeString(clone.resolve("notes.txt"), "intent to add\n");
    git(clone, "add", "README.md", "signed/forged.yaml");
    git(clone, "update-index", "--chmod=+x", "unsigned/a.yaml");
    git(clone, "add", "--intent-to-add", "notes.txt");
    String staged = git(clone, "diff", "--cached", "--name-status");

    try (JGitWorkspace ws = open(clone)) {
      String id = commitOneFile(ws, "signed/a.yaml", "kind: A\n");

      assertThat(git(clone, "diff-tree", "--no-commit-id", "-r", "--name-status", id))
          .isEqualTo("A\tsigned/a.yaml\n");
      assertThat(git(clone, "diff", "--cached", "--name-status")).isEqualTo(staged);
      assertThat(ws.uncommittedChanges())
          .contains("README.md", "notes.txt", "signed/forged.yaml", "unsigned/a.yaml");
    }
  }

  /** What the run commits: the manifest signed into signed/, the unsigned one deleted. */
  private static ChangeSet signA() {
    return ChangeSet.empty()
        .write("signed/a.yaml", "kind: A\nsigned: yes\n".getBytes(StandardCharsets.UTF_8))
        .delete("unsigned/a.yaml");
  }

  @Test
  void commit_besideWhatAnEarlierStepLeftUncommittedElsewhere_commits_keepingItByteForByte()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("README.md"), "edited by an earlier step\n");
    Files.createDirectories(clone.resolve("signed"));
    Files.writeString(clone.resolve("signed/b.yaml"), "left by an earlier step\n");
    Files.writeString(clone.resolve("unsigned/b.yaml"), "staged by an earlier step\n");
    git(clone, "add", "unsigned/b.yaml");

    try (JGitWorkspace ws = open(clone)) {
      String id = ws.commit(signA(), new CommitRequest("sign\n", AUTHOR, BOT));

      assertThat(git(clone, "diff-tree", "--no-commit-id", "-r", "--name-status", id))
          .isEqualTo("A\tsigned/a.yaml\nD\tunsigned/a.yaml\n");
    }
    assertThat(clone.resolve("signed/a.yaml")).hasContent("kind: A\nsigned: yes");
    assertThat(clone.resolve("unsigned/a.yaml")).doesNotExist();
    assertThat(clone.resolve("README.md")).hasContent("edited by an earlier step");
    assertThat(clone.resolve("signed/b.yaml")).hasContent("left by an earlier step");
    assertThat(clone.resolve("unsigned/b.yaml")).hasContent("staged by an earlier step");
    assertThat(git(clone, "status", "--porcelain"))
        .isEqualTo(" M README.md\nA  unsigned/b.yaml\n?? signed/b.yaml\n");
  }

  @Test
  void commit_overAnEditedFileItDeletesAndAnUntrackedOneWhereItWrites_refusesNamingThem()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\nedited: by an earlier step\n");
    Files.createDirectories(clone.resolve("signed"));
    Files.writeString(clone.resolve("signed/a.yaml"), "left by an earlier step\n");
    String status = git(clone, "status", "--porcelain");

    try (JGitWorkspace ws = open(clone)) {
      GitWorkspace.Checkout start = ws.checkout();

      assertThatThrownBy(() -> ws.commit(signA(), new CommitRequest("sign\n", AUTHOR, BOT)))
          .isInstanceOf(UsageProblem.class)
          .hasMessage(
              "The checkout in "
                  + clone
                  + " has uncommitted changes to signed/a.yaml, unsigned/a.yaml that writing"
                  + " countersign's change, which writes or deletes them, would overwrite");
      assertThat(ws.checkout()).isEqualTo(start);
    }
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\nedited: by an earlier step");
    assertThat(clone.resolve("signed/a.yaml")).hasContent("left by an earlier step");
    assertThat(git(clone, "status", "--porcelain")).isEqualTo(status);
    try (var left = Files.list(clone.resolve("signed"))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("a.yaml");
    }
    assertThat(clone.resolve(".git/index.lock")).doesNotExist();
  }

  @Test
  void commit_overAStagedEditOfAFileItWrites_refusesNamingIt_leavingItStaged() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    fixture.commitToOrigin("main", Map.of("signed/a.yaml", "kind: A\n"), Set.of(), "signed");
    git(clone, "pull", "-q", "origin", "main");
    Files.writeString(clone.resolve("signed/a.yaml"), "kind: A\nstaged: by an earlier step\n");
    git(clone, "add", "signed/a.yaml");

    try (JGitWorkspace ws = open(clone)) {
      assertThatThrownBy(() -> ws.commit(signA(), new CommitRequest("sign\n", AUTHOR, BOT)))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to signed/a.yaml that");
    }
    assertThat(clone.resolve("signed/a.yaml")).hasContent("kind: A\nstaged: by an earlier step");
    assertThat(git(clone, "status", "--porcelain")).isEqualTo("M  signed/a.yaml\n");
  }

  /**
   * A checkout whose unsigned/a.yaml was committed with CRLF line ends under a {@code text}
   * attribute: {@code git add} would store it with LF, so git and jgit take it for modified though
   * its bytes are exactly the committed ones.
   */
  private Path crlfCheckout() throws Exception {
    fixture.commitToOrigin(
        "main",
        Map.of(".gitattributes", "*.yaml text\n", "unsigned/a.yaml", "kind: A\r\n"),
        Set.of(),
        "a manifest with CRLF line ends");
    // git's clone, as actions/checkout makes it: the file keeps its CRLF bytes (jgit's own
    // checkout would write LF).
    git(tmp, "clone", "-q", fixture.originDir().toString(), "ws");
    return tmp.resolve("ws");
  }

  @Test
  void commit_ofAFileCommittedWithCrlfUnderATextAttribute_movesIt_asItsBytesAreTheCommittedOnes()
      throws Exception {
    Path clone = crlfCheckout();

    try (JGitWorkspace ws = open(clone)) {
      ws.refuseToOverwriteUncommittedWork(ws.headCommitId(), signA());
      String id = ws.commit(signA(), new CommitRequest("sign\n", AUTHOR, BOT));

      assertThat(git(clone, "diff-tree", "--no-commit-id", "-r", "--name-status", id))
          .isEqualTo("A\tsigned/a.yaml\nD\tunsigned/a.yaml\n");
    }
    assertThat(clone.resolve("unsigned/a.yaml")).doesNotExist();
  }

  @Test
  void commit_ofAFileCommittedWithCrlfUnderATextAttribute_thatAnEarlierStepEdited_refusesNamingIt()
      throws Exception {
    Path clone = crlfCheckout();
    Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\r\nedited: yes\r\n");

    try (JGitWorkspace ws = open(clone)) {
      assertThatThrownBy(() -> ws.refuseToOverwriteUncommittedWork(ws.headCommitId(), signA()))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to unsigned/a.yaml that");
      assertThatThrownBy(() -> ws.commit(signA(), new CommitRequest("sign\n", AUTHOR, BOT)))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to unsigned/a.yaml that");
    }
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\r\nedited: yes\r\n");
  }

  @Test
  void uncommittedChanges_ofAFileCommittedWithCrlfUnderATextAttribute_areNone() throws Exception {
    Path clone = crlfCheckout();

    try (JGitWorkspace ws = open(clone)) {
      assertThat(ws.uncommittedChanges()).isEmpty();
    }
  }

  @Test
  void uncommittedChanges_ofAFileCommittedWithCrlfUnderATextAttribute_thatAStepEdited_listIt()
      throws Exception {
    Path clone = crlfCheckout();
    Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\r\nedited: yes\r\n");

    try (JGitWorkspace ws = open(clone)) {
      assertThat(ws.uncommittedChanges()).containsExactly("unsigned/a.yaml");
    }
  }

  @Test
  void refuseToOverwriteUncommittedWork_asksOnly_andPassesAFileAlreadyHoldingTheBytes()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.createDirectories(clone.resolve("signed"));
    Files.writeString(clone.resolve("signed/a.yaml"), "kind: A\nsigned: yes\n");
    Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\nedited\n");

    try (JGitWorkspace ws = open(clone)) {
      assertThatThrownBy(() -> ws.refuseToOverwriteUncommittedWork(ws.headCommitId(), signA()))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to unsigned/a.yaml that");
      // Once the edit is undone, only a file holding exactly what would be written is left.
      Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\n");

      ws.refuseToOverwriteUncommittedWork(ws.headCommitId(), signA());
    }
    assertThat(git(clone, "status", "--porcelain")).isEqualTo("?? signed/\n");
  }

  @Test
  void control_refuseToOverwriteUncommittedWork_onAnotherCommit_passesWhatTheMoveThereChanges()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = open(clone)) {
      String start = ws.headCommitId();
      String tip = commitOneFile(ws, "unsigned/a.yaml", "kind: A\nv2\n");
      ws.resetTo(start);
      Files.writeString(clone.resolve("notes.txt"), "left by a step\n");

      ws.refuseToOverwriteUncommittedWork(tip, putBackA());
    }
    assertThat(git(clone, "status", "--porcelain")).isEqualTo("?? notes.txt\n");
  }

  @Test
  void refuseToOverwriteUncommittedWork_onAnotherCommit_refusesAnEditOfAPathTheMoveThereChanges()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = open(clone)) {
      String start = ws.headCommitId();
      String tip = commitOneFile(ws, "unsigned/a.yaml", "kind: A\nv2\n");
      ws.resetTo(start);
      Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\nedited\n");

      // The change puts back what HEAD has, but the move to the tip first would overwrite it.
      assertThatThrownBy(() -> ws.refuseToOverwriteUncommittedWork(tip, putBackA()))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to unsigned/a.yaml that moving to");
    }
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\nedited\n");
  }

  /** Writes unsigned/a.yaml as the fixture's first commit has it. */
  private static ChangeSet putBackA() {
    return ChangeSet.empty().write("unsigned/a.yaml", "kind: A\n".getBytes(StandardCharsets.UTF_8));
  }

  /** A work tree on a branch with no commit yet ({@code git init}), {@code staged} added. */
  private Path unbornCheckout(Map<String, String> staged) throws Exception {
    Path dir = tmp.resolve("unborn");
    Git.init().setDirectory(dir.toFile()).setInitialBranch("main").call().close();
    for (Map.Entry<String, String> file : staged.entrySet()) {
      Files.createDirectories(dir.resolve(file.getKey()).getParent());
      Files.writeString(dir.resolve(file.getKey()), file.getValue());
      git(dir, "add", file.getKey());
    }
    return dir;
  }

  @Test
  void commit_onAnUnbornBranch_commitsTheChangeOnly_keepingAFileStagedElsewhere() throws Exception {
    Path dir = unbornCheckout(Map.of("notes.txt", "staged by an earlier step\n"));

    try (JGitWorkspace ws = open(dir)) {
      String id = commitOneFile(ws, "signed/a.yaml", "kind: A\n");

      assertThat(git(dir, "ls-tree", "-r", "--name-only", id)).isEqualTo("signed/a.yaml\n");
    }
    assertThat(dir.resolve("notes.txt")).hasContent("staged by an earlier step");
    assertThat(git(dir, "status", "--porcelain")).isEqualTo("A  notes.txt\n");
  }

  @Test
  void commit_onAnUnbornBranch_overAFileStagedWhereItWrites_refusesNamingIt_leavingItStaged()
      throws Exception {
    Path dir = unbornCheckout(Map.of("signed/a.yaml", "staged by an earlier step\n"));

    try (JGitWorkspace ws = open(dir)) {
      assertThatThrownBy(() -> commitOneFile(ws, "signed/a.yaml", "kind: A\n"))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to signed/a.yaml that");
    }
    assertThat(dir.resolve("signed/a.yaml")).hasContent("staged by an earlier step");
    assertThat(git(dir, "status", "--porcelain")).isEqualTo("A  signed/a.yaml\n");
  }

  @Test
  void commit_withTrailers_stampsIdentitiesFromClockInUtc() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    String message =
        CommitMessage.compose(
            "countersign: sign 1 manifest",
            "signed/a.yaml",
            CommitMessage.countersignTrailers("run-42", Optional.of(AUTHOR)));
    try (JGitWorkspace ws = open(clone)) {
      String id =
          ws.commit(
              ChangeSet.empty()
                  .write("signed/a.yaml", "x\n".getBytes(StandardCharsets.UTF_8))
                  .delete("unsigned/a.yaml"),
              new CommitRequest(message, AUTHOR, BOT));

      try (Repository repo = GitFixture.open(clone);
          var walk = new org.eclipse.jgit.revwalk.RevWalk(repo)) {
        RevCommit c = walk.parseCommit(repo.resolve(id));
        assertThat(c.getAuthorIdent().getName()).isEqualTo("Ada Author");
        assertThat(c.getAuthorIdent().getEmailAddress()).isEqualTo("ada@example.com");
        assertThat(c.getCommitterIdent().getEmailAddress())
            .isEqualTo("41898282+github-actions[bot]@users.noreply.github.com");
        assertThat(c.getAuthorIdent().getWhenAsInstant())
            .isEqualTo(Instant.parse("2026-03-04T05:06:07Z"));
        assertThat(c.getCommitterIdent().getZoneOffset()).isEqualTo(java.time.ZoneOffset.UTC);
        assertThat(c.getFooterLines("Signed-off-by"))
            .containsExactly("Ada Author <ada@example.com>");
        assertThat(c.getFooterLines(CommitMessage.MARKER_TRAILER)).containsExactly("run-42");
      }
      assertThat(ws.lastCommitMessage("HEAD")).isEqualTo(message);
      assertThat(CommitMessage.isCountersignCommit(ws.lastCommitMessage("HEAD"))).isTrue();
      assertThat(ws.readFiles(id, "unsigned")).isEmpty();
      assertThat(ws.readFiles(id, "signed")).containsOnlyKeys("signed/a.yaml");
      assertThat(clone.resolve("unsigned/a.yaml")).doesNotExist();
    }
  }

  @Test
  void apply_manyFiles_writesOnePackThatGitItselfReadsAndFscks() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    int n = ChangeWriter.PACK_FROM_BLOBS + 20;
    ChangeSet.Builder changes = ChangeSet.builder();
    for (int i = 0; i < n; i++) {
      changes.write(
          "signed/f" + i + ".yaml",
          ("kind: F\nmetadata: {name: f" + i + "}\n").getBytes(StandardCharsets.UTF_8));
    }
    changes.delete("unsigned/a.yaml");
    long packsBefore = packs(clone);
    try (JGitWorkspace ws = open(clone)) {
      String id = ws.commit(changes.build(), new CommitRequest("many\n", AUTHOR, BOT));

      assertThat(ws.readFiles(id, "signed")).hasSize(n);
      assertThat(packs(clone)).as("the blobs went into one new pack").isEqualTo(packsBefore + 1);
      assertThat(git(clone, "fsck", "--full", "--strict")).isEqualTo("");
      assertThat(git(clone, "cat-file", "-p", id + ":signed/f7.yaml"))
          .isEqualTo("kind: F\nmetadata: {name: f7}\n");
      assertThat(git(clone, "status", "--porcelain"))
          .as("index and work tree agree with the commit")
          .isEmpty();
    }
  }

  private static long packs(Path clone) throws Exception {
    Path dir = clone.resolve(".git/objects/pack");
    if (!Files.isDirectory(dir)) {
      return 0;
    }
    try (var files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(".pack")).count();
    }
  }

  private static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("git %s: %s", String.join(" ", args), out).isZero();
    return out;
  }

  @Test
  void apply_autocrlfConfigured_commitsTheExactBytes() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (Repository repo = GitFixture.open(clone)) {
      repo.getConfig().setString("core", null, "autocrlf", "true");
      repo.getConfig().save();
    }
    byte[] crlf = "kind: A\r\nmetadata: {}\r\n".getBytes(StandardCharsets.UTF_8);
    try (JGitWorkspace ws = open(clone)) {
      String id =
          ws.commit(
              ChangeSet.empty().write("signed/crlf.yaml", crlf),
              new CommitRequest("crlf\n", AUTHOR, BOT));

      assertThat(ws.readFile(id, "signed/crlf.yaml"))
          .hasValueSatisfying(b -> assertThat(b).isEqualTo(crlf));
      assertThat(Files.readAllBytes(clone.resolve("signed/crlf.yaml"))).isEqualTo(crlf);
    }
  }

  @Test
  void push_originMovedSinceClone_isRejectedNotThrown() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    String concurrent =
        fixture.commitToOrigin("main", Map.of("other.txt", "x"), Set.of(), "concurrent");
    try (JGitWorkspace ws = open(clone)) {
      commitOneFile(ws, "signed/a.yaml", "a");

      PushOutcome outcome = ws.push(fixture.remote(), "main");

      assertThat(outcome).isInstanceOf(PushOutcome.Rejected.class);
      assertThat(((PushOutcome.Rejected) outcome).status()).isEqualTo("REJECTED_NONFASTFORWARD");
      assertThat(fixture.originHead("main")).isEqualTo(concurrent);
    }
  }

  @Test
  void fetchAndReset_shallowDetachedClone_rebuildsOnFreshTipAndPushes() throws Exception {
    fixture.commitToOrigin("main", Map.of("second.txt", "2"), Set.of(), "second");
    Path clone = fixture.clone("ws", 1, true);
    assertThat(clone.resolve(".git/shallow")).exists();
    String concurrent =
        fixture.commitToOrigin("main", Map.of("other.txt", "x"), Set.of(), "concurrent");
    try (JGitWorkspace ws = open(clone)) {
      commitOneFile(ws, "signed/a.yaml", "a");
      assertThat(ws.push(fixture.remote(), "main")).isInstanceOf(PushOutcome.Rejected.class);

      String fresh = ws.fetch(fixture.remote(), "main");
      ws.resetTo(fresh);
      assertThat(ws.headCommitId()).isEqualTo(concurrent);
      assertThat(clone.resolve("other.txt")).hasContent("x");
      assertThat(clone.resolve("signed/a.yaml")).doesNotExist();
      String id = commitOneFile(ws, "signed/a.yaml", "a");

      assertThat(ws.push(fixture.remote(), "main"))
          .isEqualTo(new PushOutcome.Pushed("main", id, false));
      assertThat(fixture.originCommit("main").getParent(0).name()).isEqualTo(concurrent);
      assertThat(fixture.originFiles("main"))
          .containsKeys("other.txt", "signed/a.yaml", "second.txt");
    }
  }

  @Test
  void sameChange_sameParentAndTree_holdsAtTheShallowBoundary_anotherParentOrTreeDoesNot()
      throws Exception {
    String bot;
    try (JGitWorkspace other = open(fixture.clone("other", 0, false))) {
      bot = commitOneFile(other, "signed/a.yaml", "a");
      other.push(fixture.remote(), "bot");
    }
    Path clone = fixture.clone("ws", 1, true);
    String rebased;
    try (JGitWorkspace ws = open(clone)) {
      String base = ws.fetch(fixture.remote(), "main");
      assertThat(ws.fetchIfExists(fixture.remote(), "bot")).contains(bot);
      assertThat(clone.resolve(".git/shallow")).content().contains(bot);

      // The same change in the same second is the same commit, fetched one commit deep: committing
      // it again moves HEAD to it all the same.
      ws.resetTo(base);
      assertThat(commitOneFile(ws, "signed/a.yaml", "a")).isEqualTo(bot);
      ws.resetTo(base);
      String reworded =
          ws.commit(
              ChangeSet.empty().write("signed/a.yaml", "a".getBytes(StandardCharsets.UTF_8)),
              new CommitRequest("another message\n", AUTHOR, AUTHOR));
      // Another file besides; the same tree on another parent (a file added, then removed).
      String wider = commitOneFile(ws, "unsigned/evil.yaml", "evil");
      ws.resetTo(base);
      commitOneFile(ws, "unsigned/evil.yaml", "evil");
      rebased =
          ws.commit(
              ChangeSet.empty()
                  .delete("unsigned/evil.yaml")
                  .write("signed/a.yaml", "a".getBytes(StandardCharsets.UTF_8)),
              new CommitRequest("undo\n", AUTHOR, BOT));

      assertThat(reworded).isNotEqualTo(bot);
      assertThat(ws.sameChange(bot, reworded)).isTrue();
      assertThat(ws.sameChange(bot, wider)).isFalse();
      assertThat(ws.sameChange(bot, rebased)).isFalse();
    }
    try (Repository repo = GitFixture.open(clone);
        RevWalk walk = new RevWalk(repo)) {
      assertThat(walk.parseCommit(repo.resolve(rebased)).getTree())
          .isEqualTo(walk.parseCommit(repo.resolve(bot)).getTree());
    }
  }

  @Test
  void history_ofADirectory_listsEveryVersionUnderIt_sideBranchesIncluded_theStartsFilesFirst()
      throws Exception {
    fixture.commitToOrigin("main", Map.of("signed/a.yaml", "a: 1\n"), Set.of(), "a1");
    fixture.branchOnOrigin("side", "main");
    fixture.commitToOrigin("side", Map.of("signed/a.yaml", "a: side\n"), Set.of(), "on a side");
    fixture.commitToOrigin("main", Map.of("signed/b.yaml", "b: 1\n"), Set.of(), "b1");
    fixture.commitToOrigin("main", Map.of("signed/a.yaml", "a: 2\n"), Set.of(), "a2");
    fixture.commitToOrigin("main", Map.of(), Set.of("signed/b.yaml"), "b gone");
    Path clone = fixture.clone("ws", 0, false);
    String head;
    try (Git git = Git.open(clone.toFile())) {
      git.fetch().setRefSpecs("refs/heads/side:refs/remotes/origin/side").call();
      head =
          git.merge()
              .include(git.getRepository().resolve("refs/remotes/origin/side"))
              .setStrategy(org.eclipse.jgit.merge.MergeStrategy.OURS)
              .setMessage("merge side, keeping ours")
              .call()
              .getNewHead()
              .name();
    }

    try (JGitWorkspace ws = open(clone)) {
      Map<String, List<GitWorkspace.FileVersion>> history =
          ws.history(head, List.of("signed"), 100);

      assertThat(history).containsOnlyKeys("signed/a.yaml", "signed/b.yaml");
      assertThat(history.get("signed/a.yaml"))
          .extracting(v -> new String(v.bytes(), StandardCharsets.UTF_8))
          .containsExactly("a: 2\n", "a: side\n", "a: 1\n");
      assertThat(history.get("signed/a.yaml").get(0).commitId()).isEqualTo(head);
      assertThat(history.get("signed/b.yaml"))
          .extracting(v -> new String(v.bytes(), StandardCharsets.UTF_8))
          .containsExactly("b: 1\n");
    }
    // A shallow clone knows only its tip: what is there now.
    try (JGitWorkspace shallow = open(fixture.clone("shallow", 1, true))) {
      assertThat(shallow.history(shallow.headCommitId(), List.of("signed"), 100))
          .containsOnlyKeys("signed/a.yaml");
    }
  }

  @Test
  void resetTo_onBranch_detachesAndNeverMovesTheLocalBranch() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    String before;
    try (Repository repo = GitFixture.open(clone)) {
      before = repo.resolve("refs/heads/main").name();
    }
    fixture.commitToOrigin("main", Map.of("other.txt", "x"), Set.of(), "concurrent");
    try (JGitWorkspace ws = open(clone)) {
      ws.resetTo(ws.fetch(fixture.remote(), "main"));
    }
    try (Repository repo = GitFixture.open(clone)) {
      assertThat(repo.resolve("refs/heads/main").name()).isEqualTo(before);
      assertThat(repo.exactRef(Constants.HEAD).isSymbolic()).isFalse();
    }
  }

  @Test
  void resetTo_movesOnlyThePathsThatDiffer_keepingWhatAnEarlierStepLeftUncommitted()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("README.md"), "edited by an earlier step\n");
    Files.writeString(clone.resolve("staged.txt"), "staged by an earlier step\n");
    Files.writeString(clone.resolve("untracked.txt"), "left by an earlier step\n");
    git(clone, "add", "staged.txt");
    String status = git(clone, "status", "--porcelain");
    String fresh =
        fixture.commitToOrigin(
            "main", Map.of("other.txt", "x\n"), Set.of("unsigned/a.yaml"), "concurrent");
    try (JGitWorkspace ws = open(clone)) {
      ws.resetTo(ws.fetch(fixture.remote(), "main"));

      assertThat(ws.headCommitId()).isEqualTo(fresh);
    }
    assertThat(clone.resolve("other.txt")).hasContent("x");
    assertThat(clone.resolve("unsigned/a.yaml")).doesNotExist();
    assertThat(clone.resolve("README.md")).hasContent("edited by an earlier step");
    assertThat(clone.resolve("staged.txt")).hasContent("staged by an earlier step");
    assertThat(clone.resolve("untracked.txt")).hasContent("left by an earlier step");
    assertThat(git(clone, "status", "--porcelain")).isEqualTo(status);
  }

  @Test
  void resetTo_overAFileCommittedWithCrlfUnderATextAttribute_thatTheTargetChanges_movesIt()
      throws Exception {
    Path clone = crlfCheckout();
    String fresh =
        fixture.commitToOrigin(
            "main", Map.of("unsigned/a.yaml", "kind: A\r\nmerged: yes\r\n"), Set.of(), "edit");
    try (JGitWorkspace ws = open(clone)) {
      ws.resetTo(ws.fetch(fixture.remote(), "main"));

      assertThat(ws.headCommitId()).isEqualTo(fresh);
    }
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\r\nmerged: yes\r\n");
  }

  @Test
  void resetTo_fromAnUnbornBranch_checksOutTheCommit_keepingAFileStagedElsewhere()
      throws Exception {
    Path dir = unbornCheckout(Map.of("notes.txt", "staged by an earlier step\n"));
    try (JGitWorkspace ws = open(dir)) {
      String tip = ws.fetch(fixture.remote(), "main");

      ws.resetTo(tip);

      assertThat(ws.headCommitId()).isEqualTo(tip);
    }
    assertThat(dir.resolve("unsigned/a.yaml")).hasContent("kind: A");
    assertThat(dir.resolve("notes.txt")).hasContent("staged by an earlier step");
    assertThat(git(dir, "status", "--porcelain")).isEqualTo("A  notes.txt\n");
  }

  @Test
  void resetTo_fromAnUnbornBranch_overAFileStagedWhereTheCommitHasOne_refusesNamingIt()
      throws Exception {
    Path dir = unbornCheckout(Map.of("README.md", "staged by an earlier step\n"));
    try (JGitWorkspace ws = open(dir)) {
      String tip = ws.fetch(fixture.remote(), "main");

      assertThatThrownBy(() -> ws.resetTo(tip))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to README.md that moving to");
    }
    assertThat(dir.resolve("README.md")).hasContent("staged by an earlier step");
    assertThat(dir.resolve("unsigned")).doesNotExist();
    assertThat(git(dir, "status", "--porcelain")).isEqualTo("A  README.md\n");
  }

  @Test
  void resetTo_overAnEditedFileOrAnUntrackedOneTheTargetChanges_refusesNamingThem_movingNothing()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("README.md"), "edited by an earlier step\n");
    Files.writeString(clone.resolve("other.txt"), "left by an earlier step\n");
    String before = fixture.originHead("main");
    fixture.commitToOrigin(
        "main", Map.of("README.md", "merged\n", "other.txt", "x\n"), Set.of(), "concurrent");
    try (JGitWorkspace ws = open(clone)) {
      GitWorkspace.Checkout start = ws.checkout();
      String fresh = ws.fetch(fixture.remote(), "main");

      assertThatThrownBy(() -> ws.resetTo(fresh))
          .isInstanceOf(UsageProblem.class)
          .hasMessage(
              "The checkout in "
                  + clone
                  + " has uncommitted changes to README.md, other.txt that moving to "
                  + CommitIds.abbreviate(fresh)
                  + ", which changes them, would overwrite");
      assertThat(ws.checkout()).isEqualTo(start);
      assertThat(start.commitId()).isEqualTo(before);
    }
    assertThat(clone.resolve("README.md")).hasContent("edited by an earlier step");
    assertThat(clone.resolve("other.txt")).hasContent("left by an earlier step");
    assertThat(git(clone, "status", "--porcelain")).isEqualTo(" M README.md\n?? other.txt\n");
    assertThat(clone.resolve(".git/index.lock")).doesNotExist();
  }

  @Test
  void push_protectedBranch_isRefusedWithTheRemotesMessageVerbatim() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    fixture.protectBranch("main");
    String before = fixture.originHead("main");
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      commitOneFile(ws, "signed/a.yaml", "a");

      PushOutcome outcome = ws.push(fixture.remote(), "main");

      assertThat(outcome).isInstanceOf(PushOutcome.Refused.class);
      PushOutcome.Refused refused = (PushOutcome.Refused) outcome;
      assertThat(refused.reason()).isEqualTo("pre-receive hook declined");
      assertThat(refused.remoteMessages())
          .contains("error: GH006: Protected branch update failed for refs/heads/main.")
          .contains("error: Changes must be made through a pull request.");
      assertThat(fixture.originHead("main")).isEqualTo(before);
      // Another branch is not protected: the same workspace can push there.
      assertThat(ws.push(fixture.remote(), "promote/signed"))
          .isInstanceOf(PushOutcome.Pushed.class);
    }
  }

  @Test
  void pushWithLease_remoteBranchMovedOrAbsent_honoursTheLease() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = open(clone)) {
      String first = commitOneFile(ws, "signed/a.yaml", "a");
      assertThat(ws.pushWithLease(fixture.remote(), "promote/x", Optional.empty()))
          .isEqualTo(new PushOutcome.Pushed("promote/x", first, false));
      // Rewrite: a new commit not descending from what is on the remote branch.
      ws.resetTo(fixture.originHead("main"));
      String second = commitOneFile(ws, "signed/b.yaml", "b");

      PushOutcome stale =
          ws.pushWithLease(fixture.remote(), "promote/x", Optional.of(fixture.originHead("main")));
      PushOutcome fresh = ws.pushWithLease(fixture.remote(), "promote/x", Optional.of(first));

      assertThat(stale).isInstanceOf(PushOutcome.Rejected.class);
      assertThat(((PushOutcome.Rejected) stale).status()).isEqualTo("REJECTED_REMOTE_CHANGED");
      assertThat(fresh).isEqualTo(new PushOutcome.Pushed("promote/x", second, false));
      assertThat(fixture.originHead("promote/x")).isEqualTo(second);
    }
  }

  @Test
  void open_directoryWithoutGit_explainsToRunCheckout() throws Exception {
    Path empty = Files.createDirectories(tmp.resolve("empty"));

    assertThatThrownBy(() -> JGitWorkspace.open(empty, CLOCK))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage("not a git repository: " + empty.toAbsolutePath())
        .satisfies(
            e ->
                assertThat(((EnvironmentProblem) e).hint())
                    .hasValue("perhaps you should run actions/checkout before countersign"));
  }

  @Test
  void open_repositoryMidRebase_isRefusedWithHowToAbort() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.createDirectories(clone.resolve(".git/rebase-merge"));

    assertThatThrownBy(() -> JGitWorkspace.open(clone, CLOCK))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("is in the middle of an operation")
        .satisfies(
            e ->
                assertThat(((EnvironmentProblem) e).hint())
                    .hasValueSatisfying(h -> assertThat(h).contains("git rebase --abort")));
  }

  @Test
  void fetch_neverCollectsGarbage_whateverTheRepositorysGcSettings() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (Repository repo = GitFixture.open(clone)) {
      // Settings under which jgit collects after every fetch, in the fetching thread; by default
      // it does so in a background thread that outlives the handing of the workspace to its owner.
      StoredConfig config = repo.getConfig();
      config.setInt("gc", null, "autoPackLimit", 1);
      config.setBoolean("gc", null, "autoDetach", false);
      config.save();
    }
    fixture.commitToOrigin("main", Map.of("README.md", "more\n"), Set.of(), "more");
    List<String> packsBefore = packNames(clone);

    try (JGitWorkspace ws = open(clone)) {
      ws.fetch(fixture.remote(), "main");
      fixture.commitToOrigin("main", Map.of("README.md", "even more\n"), Set.of(), "more");
      ws.fetch(fixture.remote(), "main");
    }

    assertThat(packNames(clone))
        .as("the clone's pack and one per fetch, not repacked")
        .hasSize(3)
        .containsAll(packsBefore);
    assertThat(clone.resolve(".git/gc.log.lock")).doesNotExist();
  }

  private static List<String> packNames(Path workTree) throws Exception {
    try (var files = Files.list(workTree.resolve(".git/objects/pack"))) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pack")).toList();
    }
  }

  @Test
  void fetch_unknownBranch_isARemoteProblemNamingTheBranch() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = open(clone)) {
      assertThatThrownBy(() -> ws.fetch(fixture.remote(), "nope"))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageStartingWith("The remote has no branch nope while fetching refs/heads/nope");
    }
  }

  @Test
  void push_httpsWithToken_sendsOnlyOurPreemptiveBasicAuthAndNeverPrintsTheToken()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (Repository repo = GitFixture.open(clone)) {
      // What actions/checkout v4/v5 persists; jgit would otherwise send it instead of our token.
      repo.getConfig()
          .setString(
              "http", "http://127.0.0.1/", "extraheader", "AUTHORIZATION: basic Y2hlY2tvdXQ=");
      repo.getConfig().save();
    }
    List<List<String>> authorizations = new ArrayList<>();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          synchronized (authorizations) {
            authorizations.add(
                exchange.getRequestHeaders().getOrDefault("Authorization", List.of()));
          }
          exchange.sendResponseHeaders(403, -1);
          exchange.close();
        });
    server.start();
    try (JGitWorkspace ws = open(clone)) {
      commitOneFile(ws, "signed/a.yaml", "a");
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/o/r.git";

      assertThatThrownBy(() -> ws.push(GitRemote.withToken(url, "s3cr3t-token"), "main"))
          .isInstanceOf(RemoteProblem.class)
          .satisfies(e -> assertThat(e.getMessage()).doesNotContain("s3cr3t-token"))
          .satisfies(
              e ->
                  assertThat(((RemoteProblem) e).hint())
                      .hasValue(
                          "perhaps you should give the token contents: write permission on this"
                              + " repository"));
    } finally {
      server.stop(0);
    }
    String expected =
        "Basic "
            + Base64.getEncoder()
                .encodeToString("x-access-token:s3cr3t-token".getBytes(StandardCharsets.UTF_8));
    assertThat(authorizations).isNotEmpty();
    assertThat(authorizations.get(0)).containsExactly(expected);
  }

  @Test
  void push_httpsWithoutToken_explainsToPassOne() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          exchange.getResponseHeaders().add("WWW-Authenticate", "Basic realm=\"GitHub\"");
          exchange.sendResponseHeaders(401, -1);
          exchange.close();
        });
    server.start();
    try (JGitWorkspace ws = open(clone)) {
      commitOneFile(ws, "signed/a.yaml", "a");
      String url = "http://127.0.0.1:" + server.getAddress().getPort() + "/o/r.git";

      assertThatThrownBy(() -> ws.push(GitRemote.anonymous(url), "main"))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageStartingWith(
              "Git transport failed while pushing to refs/heads/main of " + url + ": ")
          .satisfies(
              e ->
                  assertThat(((RemoteProblem) e).hint())
                      .hasValue("perhaps you should pass a token (the token input, or --token)"));
    } finally {
      server.stop(0);
    }
  }

  @Test
  void sanitize_urlWithCredentials_hidesThem() {
    assertThat(GitRemote.sanitize("failed https://x-access-token:ghs_abc@github.com/o/r.git: 403"))
        .isEqualTo("failed https://***@github.com/o/r.git: 403");
    assertThat(GitRemote.withToken("https://u:p@github.com/o/r.git", "t").url())
        .isEqualTo("https://***@github.com/o/r.git");
  }

  @Test
  void apply_parentIsASymlinkInTheWorkTree_refusesBeforeWritingAnything_nothingOutsideChanges()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.createSymbolicLink(clone.resolve("signed"), outside);
    Files.createSymbolicLink(clone.resolve("victim.yaml"), outside.resolve("victim.yaml"));

    try (JGitWorkspace ws = open(clone)) {
      ChangeSet changes =
          ChangeSet.empty()
              .write("a-first.yaml", new byte[] {'x'})
              .write("signed/team/a.yaml", new byte[] {'x'})
              .delete("unsigned/a.yaml");
      assertThatThrownBy(() -> ws.apply(changes))
          .isInstanceOf(dev.countersign.support.problems.InputProblem.class)
          .hasMessageStartingWith("signed: is a symbolic link");
      assertThatThrownBy(() -> ws.apply(ChangeSet.empty().write("victim.yaml", new byte[] {'x'})))
          .isInstanceOf(dev.countersign.support.problems.InputProblem.class)
          .hasMessageStartingWith("victim.yaml: is a symbolic link");
    }
    assertThat(outside).isEmptyDirectory();
    assertThat(clone.resolve("a-first.yaml")).doesNotExist();
    assertThat(clone.resolve("unsigned/a.yaml")).exists();
  }

  /** Three signed files and the removal of their source, as a signing commit applies them. */
  private static ChangeSet threeSignedFiles() {
    return ChangeSet.empty()
        .write("signed/a.yaml", "kind: A\nsigned: yes\n".getBytes(StandardCharsets.UTF_8))
        .write("signed/b.yaml", "kind: B\n".getBytes(StandardCharsets.UTF_8))
        .write("signed/c.yaml", "kind: C\n".getBytes(StandardCharsets.UTF_8))
        .delete("unsigned/a.yaml");
  }

  @Test
  void control_apply_writesEveryFileAndStagesExactlyThose() throws Exception {
    Path clone = fixture.clone("ws", 0, false);

    try (JGitWorkspace ws = open(clone)) {
      ws.apply(threeSignedFiles());
    }

    assertThat(clone.resolve("signed/a.yaml")).hasContent("kind: A\nsigned: yes\n");
    try (Git git = Git.open(clone.toFile())) {
      var status = git.status().call();
      assertThat(status.getAdded())
          .containsExactlyInAnyOrder("signed/a.yaml", "signed/b.yaml", "signed/c.yaml");
      assertThat(status.getRemoved()).containsExactly("unsigned/a.yaml");
      assertThat(status.getUntracked()).isEmpty();
    }
  }

  @Test
  void apply_aWriteFailingHalfway_leavesTheWorkTreeAndIndexAsTheyWere() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    // The second file cannot be handed to the workspace's owner (what a failing chown throws);
    // a full disk fails at the same point.
    int[] files = {0};
    java.util.function.Consumer<Path> failingOnTheSecondFile =
        path -> {
          if (Files.isRegularFile(path) && ++files[0] == 2) {
            throw new EnvironmentProblem(
                "Could not give " + path + " to the workspace owner", null);
          }
        };

    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK, failingOnTheSecondFile)) {
      assertThatThrownBy(() -> ws.apply(threeSignedFiles()))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessageContaining("to the workspace owner");
    }

    assertThat(clone.resolve("signed")).doesNotExist();
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\n");
    assertThat(clone.resolve(".git/index.lock")).doesNotExist();
    try (Git git = Git.open(clone.toFile())) {
      assertThat(git.status().call().isClean()).isTrue();
    }
  }

  @Test
  void control_apply_inAProcessLeftToFinish_writesEveryFile() throws Exception {
    Path clone = fixture.clone("ws", 0, false);

    ChildJvm child = startApplying(clone, "finish");

    assertThat(child.awaitExit()).as(child.output()).isZero();
    assertThat(clone.resolve("signed/a.yaml")).hasContent("kind: A\nsigned: yes\n");
    assertThat(git(clone, "status", "--porcelain"))
        .isEqualTo("A  signed/a.yaml\nA  signed/b.yaml\nA  signed/c.yaml\nD  unsigned/a.yaml\n");
    assertThat(temporaryFiles(clone)).isEmpty();
  }

  @Test
  void apply_inAProcessStoppedBySigtermWhileWritingFiles_leavesNoTemporaryFileBehind()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);

    ChildJvm child = startApplying(clone, "stall");
    try {
      while (!child.output().contains("written beside its target") && child.isAlive()) {
        Thread.sleep(20);
      }
      assertThat(temporaryFiles(clone)).as(child.output()).hasSize(1);
      assertThat(child.stopWithSigterm()).isEqualTo(143);
    } finally {
      child.kill();
    }

    assertThat(temporaryFiles(clone)).isEmpty();
    assertThat(clone.resolve("signed")).doesNotExist();
    assertThat(clone.resolve(".git/index.lock")).doesNotExist();
    assertThat(git(clone, "status", "--porcelain")).isEmpty();
  }

  /**
   * A JVM running {@link ApplyingProcess} on {@code clone}: {@code finish} or {@code stall} (waits
   * after the first file is written beside its target).
   */
  private ChildJvm startApplying(Path clone, String how) throws Exception {
    return ChildJvm.start(
        tmp.resolve("child.out"), Map.of(), ApplyingProcess.class, clone.toString(), how);
  }

  /** countersign's temporary files anywhere in the work tree, {@code .git} left out. */
  private static List<Path> temporaryFiles(Path clone) throws Exception {
    return ChildJvm.temporaryFiles(clone, clone.resolve(".git"));
  }

  /** Applies {@link #threeSignedFiles} to the work tree {@code args[0]}, as a run does. */
  static final class ApplyingProcess {
    public static void main(String[] args) throws Exception {
      boolean stall = args[1].equals("stall");
      java.util.function.Consumer<Path> afterWrite =
          path -> {
            if (stall && path.getFileName().toString().startsWith(".countersign-")) {
              System.out.println("written beside its target: " + path);
              System.out.flush();
              try {
                Thread.sleep(60_000);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            }
          };
      try (JGitWorkspace ws = JGitWorkspace.open(Path.of(args[0]), CLOCK, afterWrite)) {
        ws.apply(threeSignedFiles());
      }
    }
  }

  @Test
  void apply_aDirectoryWhereASignedFileGoes_isRefusedNamingIt_beforeAnythingIsWritten()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.createDirectories(clone.resolve("signed/b.yaml"));

    try (JGitWorkspace ws = open(clone)) {
      // Nothing that HEAD has: what a step before countersign left there, in the way.
      assertThatThrownBy(() -> ws.apply(threeSignedFiles()))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("has uncommitted changes to signed/b.yaml that");
    }

    try (var left = Files.list(clone.resolve("signed"))) {
      assertThat(left.map(p -> p.getFileName().toString())).containsExactly("b.yaml");
    }
    assertThat(clone.resolve("unsigned/a.yaml")).exists();
    assertThat(clone.resolve(".git/index.lock")).doesNotExist();
  }

  @Test
  void restore_afterACommitAndAReset_putsHeadBackOnItsBranch_untrackedFilesStay() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("notes.txt"), "untracked\n");
    try (JGitWorkspace ws = open(clone)) {
      GitWorkspace.Checkout start = ws.checkout();
      assertThat(start.branch()).hasValue("refs/heads/main");
      String made = commitOneFile(ws, "signed/a.yaml", "kind: A\n");
      ws.resetTo(made);

      ws.restore(start);

      assertThat(ws.checkout()).isEqualTo(start);
      assertThat(ws.uncommittedChanges()).isEmpty();
    }
    assertThat(clone.resolve("signed/a.yaml")).doesNotExist();
    assertThat(clone.resolve("notes.txt")).hasContent("untracked\n");
    try (Repository repository = GitFixture.open(clone)) {
      assertThat(repository.exactRef("refs/heads/main").getObjectId().name())
          .isEqualTo(fixture.originHead("main"));
    }
  }

  @Test
  void recordPush_fromAnotherBranchAfterARetry_putsThatBranchBack_andMovesOnlyMatchingTracking()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (Git git = Git.open(clone.toFile())) {
      git.checkout().setCreateBranch(true).setName("feature").call();
      git.remoteAdd()
          .setName("mirror")
          .setUri(new org.eclipse.jgit.transport.URIish("file:///elsewhere"))
          .call();
      git.fetch()
          .setRemote("origin")
          .setRefSpecs("+refs/heads/main:refs/remotes/mirror/main")
          .call();
    }
    String base = fixture.originHead("main");
    try (JGitWorkspace ws = open(clone)) {
      GitWorkspace.Checkout start = ws.checkout();
      commitOneFile(ws, "signed/a.yaml", "first attempt\n");
      ws.resetTo(base);
      String pushed = commitOneFile(ws, "signed/a.yaml", "second attempt\n");

      ws.recordPush(start, fixture.remote(), "main", pushed);

      assertThat(ws.checkout()).isEqualTo(new GitWorkspace.Checkout(Optional.empty(), pushed));
      assertThat(ws.uncommittedChanges()).isEmpty();
    }
    try (Repository repo = GitFixture.open(clone)) {
      assertThat(repo.exactRef("refs/heads/feature").getObjectId().name()).isEqualTo(base);
      assertThat(repo.exactRef("refs/heads/main").getObjectId().name()).isEqualTo(base);
      assertThat(repo.exactRef("refs/remotes/origin/main").getObjectId().name()).isNotEqualTo(base);
      assertThat(repo.exactRef("refs/remotes/mirror/main").getObjectId().name())
          .as("another remote's URL")
          .isEqualTo(base);
    }
  }

  @Test
  void restore_whenHeadNeverMoved_leavesUncommittedEditsAlone_whichAreListed() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    Files.writeString(clone.resolve("README.md"), "an edit\n");
    Files.delete(clone.resolve("unsigned/a.yaml"));
    Files.writeString(clone.resolve("untracked.txt"), "new\n");
    try (JGitWorkspace ws = open(clone)) {
      GitWorkspace.Checkout start = ws.checkout();

      ws.restore(start);

      assertThat(ws.uncommittedChanges()).containsExactly("README.md", "unsigned/a.yaml");
    }
    assertThat(clone.resolve("README.md")).hasContent("an edit\n");
  }

  @Test
  void entries_listsLinksDirectoriesAndSizesWithoutLoading_andTheDirectoryItselfWhenItIsALink()
      throws Exception {
    fixture.commitToOrigin("main", Map.of("signed/team/x.yaml", "kind: X\n"), Set.of(), "x");
    fixture.commitSymlinkToOrigin("main", "signed/link", "../x");
    fixture.commitSymlinkToOrigin("main", "unsigned2", "unsigned");
    String head = fixture.commitSymlinkToOrigin("main", "envs", "../x");
    try (JGitWorkspace ws = open(fixture.clone("ws", 0, false))) {
      assertThat(ws.entries(head, "signed"))
          .containsExactly(
              new GitWorkspace.TreeEntry("signed/link", GitWorkspace.TreeEntry.Kind.LINK, 4),
              new GitWorkspace.TreeEntry("signed/team", GitWorkspace.TreeEntry.Kind.DIRECTORY, 0),
              new GitWorkspace.TreeEntry(
                  "signed/team/x.yaml", GitWorkspace.TreeEntry.Kind.FILE, 8));
      assertThat(ws.entries(head, "unsigned2"))
          .containsExactly(
              new GitWorkspace.TreeEntry("unsigned2", GitWorkspace.TreeEntry.Kind.LINK, 8));
      assertThat(ws.entries(head, "envs/prod/signed"))
          .containsExactly(new GitWorkspace.TreeEntry("envs", GitWorkspace.TreeEntry.Kind.LINK, 4));
      assertThat(ws.entries(head, "nothing")).isEmpty();
    }
  }

  @Test
  void entriesNamed_listsEveryFileLinkAndSubmoduleOfThatName_atAnyDepth_andNoOtherName()
      throws Exception {
    fixture.commitToOrigin(
        "main",
        Map.of(
            ".sourceignore", "a\n",
            "docs/deep/.sourceignore", "bc\n",
            "docs/x.sourceignore", "no\n",
            "docs/.sourceignore.bak", "no\n",
            "other/.sourceignore/inside.yaml", "a directory of that name is not listed\n"),
        Set.of(),
        "x");
    String head = fixture.commitSymlinkToOrigin("main", "envs/.sourceignore", "../docs");
    try (JGitWorkspace ws = open(fixture.clone("ws", 0, false))) {
      assertThat(ws.entriesNamed(head, ".sourceignore"))
          .containsExactly(
              new GitWorkspace.TreeEntry(".sourceignore", GitWorkspace.TreeEntry.Kind.FILE, 2),
              new GitWorkspace.TreeEntry(
                  "docs/deep/.sourceignore", GitWorkspace.TreeEntry.Kind.FILE, 3),
              new GitWorkspace.TreeEntry(
                  "envs/.sourceignore", GitWorkspace.TreeEntry.Kind.LINK, 7));
      assertThat(ws.entriesNamed(head, "missing")).isEmpty();
    }
  }

  @Test
  void readFilesOfPaths_answersExactlyAsReadFileDoesForEachPath() throws Exception {
    fixture.commitToOrigin(
        "main",
        Map.of("signed/team/x.yaml", "kind: X\n", "signed/team/dir/y.yaml", "kind: Y\n"),
        Set.of(),
        "x");
    fixture.commitSymlinkToOrigin("main", "signed/link", "../unsigned");
    String head = fixture.commitSymlinkToOrigin("main", "envs", "unsigned");
    try (JGitWorkspace ws = open(fixture.clone("ws", 0, false))) {
      // Files, a directory, a link, a path below a link and a missing path.
      List<String> paths =
          List.of(
              "unsigned/a.yaml",
              "signed/team/x.yaml",
              "signed/team/dir",
              "signed/link",
              "signed/link/a.yaml",
              "envs/a.yaml",
              "missing.yaml");
      SortedMap<String, byte[]> read = ws.readFiles(head, paths);
      assertThat(read).containsOnlyKeys("unsigned/a.yaml", "signed/team/x.yaml");
      for (String path : paths) {
        assertThat(Optional.ofNullable(read.get(path)).map(String::new))
            .as(path)
            .isEqualTo(ws.readFile(head, path).map(String::new));
      }
      assertThat(ws.readFiles(head, List.of())).isEmpty();
    }
  }

  @Test
  void workTreeDifferences_freshCheckout_hasNone_evenWithExecutableBitsAndNonManifestEdits()
      throws Exception {
    String head =
        fixture.commitToOrigin(
            "main", Map.of("signed/team/x.yaml", "kind: X\n"), Set.of(), "signed");
    Path clone = fixture.clone("ws", 0, false);
    clone.resolve("signed/team/x.yaml").toFile().setExecutable(true);
    Files.writeString(clone.resolve("README.md"), "edited\n");
    try (JGitWorkspace ws = open(clone)) {
      assertThat(
              ws.workTreeDifferences(
                  head, List.of("unsigned/a.yaml", "signed/team/x.yaml", "neither.yaml")))
          .isEmpty();
      assertThat(ws.workTreeDifferences(head, List.of())).isEmpty();
    }
  }

  @Test
  void workTreeDifferences_editedMissingAndUntrackedFiles_areEachNamed() throws Exception {
    String head =
        fixture.commitToOrigin(
            "main",
            Map.of("signed/team/x.yaml", "kind: X\n", "signed/team/y.yaml", "kind: Y\n"),
            Set.of(),
            "signed");
    Path clone = fixture.clone("ws", 0, false);
    // One byte more, the same length with another byte, gone, and new.
    Files.writeString(clone.resolve("unsigned/a.yaml"), "kind: A\r\n");
    Files.writeString(clone.resolve("signed/team/x.yaml"), "kind: Z\n");
    Files.delete(clone.resolve("signed/team/y.yaml"));
    Files.writeString(clone.resolve("signed/team/new.yaml"), "kind: N\n");
    try (JGitWorkspace ws = open(clone)) {
      assertThat(
              ws.workTreeDifferences(
                  head,
                  List.of(
                      "unsigned/a.yaml",
                      "signed/team/x.yaml",
                      "signed/team/y.yaml",
                      "signed/team/new.yaml")))
          .containsExactly(
              Map.entry("signed/team/new.yaml", GitWorkspace.WorkTreeDifference.NOT_IN_COMMIT),
              Map.entry("signed/team/x.yaml", GitWorkspace.WorkTreeDifference.CHANGED),
              Map.entry("signed/team/y.yaml", GitWorkspace.WorkTreeDifference.NOT_IN_WORK_TREE),
              Map.entry("unsigned/a.yaml", GitWorkspace.WorkTreeDifference.CHANGED));
    }
  }

  @Test
  void workTreeDifferences_aLinkInTheWorkTree_isNeverFollowed() throws Exception {
    String head = fixture.originHead("main");
    Path clone = fixture.clone("ws", 0, false);
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("a.yaml"), "kind: A\n");
    Files.delete(clone.resolve("unsigned/a.yaml"));
    Files.delete(clone.resolve("unsigned"));
    Files.createSymbolicLink(clone.resolve("unsigned"), outside);
    Files.createSymbolicLink(clone.resolve("b.yaml"), outside.resolve("a.yaml"));
    try (JGitWorkspace ws = open(clone)) {
      assertThatThrownBy(() -> ws.workTreeDifferences(head, List.of("unsigned/a.yaml")))
          .isInstanceOf(dev.countersign.support.problems.InputProblem.class)
          .hasMessageStartingWith("unsigned: is a symbolic link");
      assertThatThrownBy(() -> ws.workTreeDifferences(head, List.of("b.yaml")))
          .isInstanceOf(dev.countersign.support.problems.InputProblem.class)
          .hasMessageStartingWith("b.yaml: is a symbolic link");
    }
  }

  @Test
  void commitContent_rewritingAnExecutableFile_isAPlainWrite_asForARegularOne() throws Exception {
    fixture.commitToOrigin("main", Map.of("signed/regular.yaml", "kind: R\n"), Set.of(), "r");
    fixture.commitExecutableToOrigin("main", "signed/executable.yaml", "kind: X\n");
    try (JGitWorkspace ws = open(fixture.clone("ws", 0, false))) {
      String id =
          ws.commit(
              ChangeSet.empty()
                  .write("signed/regular.yaml", "kind: R2\n".getBytes(StandardCharsets.UTF_8))
                  .write("signed/executable.yaml", "kind: X2\n".getBytes(StandardCharsets.UTF_8))
                  .delete("unsigned/a.yaml"),
              new CommitRequest("re-sign\n", AUTHOR, BOT));

      CommitContent content = ws.commitContent(id);

      assertThat(content.changes().writes())
          .containsOnlyKeys("signed/executable.yaml", "signed/regular.yaml");
      assertThat(content.changes().writes().get("signed/executable.yaml"))
          .isEqualTo("kind: X2\n".getBytes(StandardCharsets.UTF_8));
      assertThat(content.changes().deletes()).containsExactly("unsigned/a.yaml");
    }
  }
}
