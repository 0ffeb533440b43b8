package dev.countersign.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.git.CommitAuthorship;
import dev.countersign.git.CommitMessage;
import dev.countersign.git.GitFixture;
import dev.countersign.git.GitIdentity;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.SilentProgress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReconcileJobTest {

  static final Clock CLOCK = Clock.fixed(Instant.parse("2026-05-06T07:08:09Z"), ZoneOffset.UTC);

  @TempDir Path tmp;
  GitFixture fixture;
  final List<Duration> sleeps = new ArrayList<>();

  @BeforeEach
  void origin() throws Exception {
    fixture = new GitFixture(tmp);
    fixture.commitToOrigin(
        "main",
        Map.of(
            "README.md", "readme\n",
            "unsigned/a.yaml", "kind: A\n",
            "unsigned/apps/b.yml", "kind: B\n",
            "unsigned/notes.txt", "not a manifest\n"),
        Set.of(),
        "Merge pull request #1");
  }

  private ReconcileOptions.Builder options() {
    return ReconcileOptions.builder("main", fixture.remote())
        .authorship(authorship(GitIdentity.GITHUB_ACTIONS_BOT, "run-7", false))
        .backoff(Duration.ofMillis(100));
  }

  /** Commits by {@code author}, committed by github-actions[bot]. */
  private static CommitAuthorship authorship(GitIdentity author, String runId, boolean signoff) {
    return new CommitAuthorship(author, GitIdentity.GITHUB_ACTIONS_BOT, runId, signoff);
  }

  private ReconcileResult run(Path clone, SigningStep signer, ReconcileOptions options) {
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      return new ReconcileJob(
              ws,
              signer,
              new SilentProgress(),
              CLOCK,
              sleeps::add,
              new Random(42),
              options,
              new ManifestTree(ManifestReader.DEFAULT_MAX_BYTES))
          .run();
    }
  }

  @Test
  void run_unsignedManifests_movesThemAllToSignedInOneCommit() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    int before = fixture.originCommitCount("main");

    ReconcileResult result =
        run(
            clone,
            new FakeSigningStep(),
            options()
                .authorship(authorship(GitIdentity.GITHUB_ACTIONS_BOT, "run-7", true))
                .build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(result.signedFiles()).containsExactly("signed/a.yaml", "signed/apps/b.yml");
    assertThat(result.commitId()).hasValue(fixture.originHead("main"));
    assertThat(fixture.originCommitCount("main")).isEqualTo(before + 1);
    assertThat(fixture.originFiles("main"))
        .containsExactly(
            Map.entry("README.md", "readme\n"),
            Map.entry("signed/a.yaml", "kind: A\n" + FakeSigningStep.SIGNATURE),
            Map.entry("signed/apps/b.yml", "kind: B\n" + FakeSigningStep.SIGNATURE),
            Map.entry("unsigned/notes.txt", "not a manifest\n"));
    RevCommit commit = fixture.originCommit("main");
    assertThat(commit.getFullMessage())
        .isEqualTo(
            "countersign: sign 2 manifests\n\n"
                + "unsigned/a.yaml -> signed/a.yaml\n"
                + "unsigned/apps/b.yml -> signed/apps/b.yml\n\n"
                + "Countersign-Run: run-7\n"
                + "Signed-off-by: github-actions[bot]"
                + " <41898282+github-actions[bot]@users.noreply.github.com>\n");
    assertThat(commit.getCommitterIdent().getWhenAsInstant()).isEqualTo(CLOCK.instant());
    assertThat(clone.resolve("signed/a.yaml")).hasContent("kind: A\n" + FakeSigningStep.SIGNATURE);
    assertThat(clone.resolve("unsigned/a.yaml")).doesNotExist();
  }

  @Test
  void run_secondTimeOnAFreshClone_isNoopAndPushesNothing() throws Exception {
    run(fixture.clone("first", 0, false), new FakeSigningStep(), options().build());
    String head = fixture.originHead("main");
    FakeSigningStep signer = new FakeSigningStep();

    ReconcileResult again = run(fixture.clone("second", 0, false), signer, options().build());

    assertThat(again.outcome()).isEqualTo(ReconcileResult.Outcome.NOOP);
    assertThat(again.detail())
        .startsWith("the head commit ")
        .contains("was made by countersign (Countersign-Run: run-7)");
    assertThat(signer.calls).hasValue(0);
    assertThat(fixture.originHead("main")).isEqualTo(head);
  }

  @Test
  void run_nothingUnderUnsigned_isNoopWithReason() throws Exception {
    fixture.commitToOrigin(
        "main", Map.of(), Set.of("unsigned/a.yaml", "unsigned/apps/b.yml"), "cleanup");
    String head = fixture.originHead("main");

    ReconcileResult result =
        run(fixture.clone("ws", 0, false), new FakeSigningStep(), options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.NOOP);
    assertThat(result.detail())
        .isEqualTo("no manifests under unsigned/ at " + head.substring(0, 12));
    assertThat(fixture.originHead("main")).isEqualTo(head);
  }

  /**
   * Attack (issue 9, finding 8): a pull request commit whose message ends in the marker trailer and
   * that even forges countersign's committer is not countersign's: it adds an unsigned manifest,
   * which countersign never does, so it is signed like any other.
   */
  @Test
  void run_headCommitForgingTrailerAndCommitter_butAddingUnsignedFiles_isStillSigned()
      throws Exception {
    PersonIdent forged =
        new PersonIdent(
            GitIdentity.GITHUB_ACTIONS_BOT.name(), GitIdentity.GITHUB_ACTIONS_BOT.email());
    fixture.commitToOrigin(
        "main",
        Map.of("unsigned/c.yaml", "kind: C\n"),
        Set.of(),
        "countersign: sign 1 manifest\n\nCountersign-Run: 99\n",
        forged);
    FakeSigningStep signer = new FakeSigningStep();

    ReconcileResult result = run(fixture.clone("ws", 0, false), signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(fixture.originFiles("main"))
        .containsKey("signed/c.yaml")
        .doesNotContainKey("unsigned/c.yaml");
  }

  @Test
  void run_headCommitWithTrailerFromAnotherCommitter_isNotSkipped() throws Exception {
    fixture.commitToOrigin(
        "main", Map.of(), Set.of("unsigned/apps/b.yml"), "cleanup\n\nCountersign-Run: 98\n");
    FakeSigningStep signer = new FakeSigningStep();

    ReconcileResult result = run(fixture.clone("ws", 0, false), signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(fixture.originFiles("main")).containsKey("signed/a.yaml");
  }

  /**
   * Control: countersign's own shape of commit (signed files written, unsigned removed) is skipped.
   */
  @Test
  void run_headCommitWithTrailerCommitterAndOnlySignedChanges_isNoopEvenWithUnsignedLeft()
      throws Exception {
    PersonIdent bot =
        new PersonIdent(
            GitIdentity.GITHUB_ACTIONS_BOT.name(), GitIdentity.GITHUB_ACTIONS_BOT.email());
    fixture.commitToOrigin(
        "main",
        Map.of("signed/a.yaml", "kind: A\n" + FakeSigningStep.SIGNATURE),
        Set.of("unsigned/a.yaml"),
        "countersign: sign 1 manifest\n\nCountersign-Run: 97\n",
        bot);
    String head = fixture.originHead("main");
    FakeSigningStep signer = new FakeSigningStep();

    ReconcileResult result = run(fixture.clone("ws", 0, false), signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.NOOP);
    assertThat(result.detail()).contains("was made by countersign (Countersign-Run: 97)");
    assertThat(signer.calls).hasValue(0);
    assertThat(fixture.originHead("main")).isEqualTo(head);
  }

  @Test
  void run_concurrentUnrelatedCommitBeforePush_retriesOnFreshBaseAndKeepsBoth() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    List<String> concurrent = new ArrayList<>();
    FakeSigningStep signer =
        new FakeSigningStep(
            call -> {
              if (call == 1) {
                concurrent.add(
                    fixture.commitToOrigin(
                        "main", Map.of("docs/other.md", "x\n"), Set.of(), "docs"));
              }
            });

    ReconcileResult result = run(clone, signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(result.attempts()).isEqualTo(2);
    assertThat(fixture.originCommit("main").getParent(0).name()).isEqualTo(concurrent.get(0));
    assertThat(fixture.originFiles("main"))
        .containsKeys("docs/other.md", "signed/a.yaml", "signed/apps/b.yml")
        .doesNotContainKeys("unsigned/a.yaml", "unsigned/apps/b.yml");
    // The retry reused the signatures: nothing was signed twice.
    assertThat(signer.signedSources).containsExactly("unsigned/a.yaml", "unsigned/apps/b.yml");
    assertThat(sleeps).hasSize(1);
    assertThat(sleeps.get(0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(150));
  }

  @Test
  void run_concurrentCommitChangesTheSameUnsignedFile_recomputesAndSignsTheNewContent()
      throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    FakeSigningStep signer =
        new FakeSigningStep(
            call -> {
              if (call == 1) {
                fixture.commitToOrigin(
                    "main", Map.of("unsigned/a.yaml", "kind: A\nversion: 2\n"), Set.of(), "bump a");
              }
            });

    ReconcileResult result = run(clone, signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(fixture.originFiles("main"))
        .containsEntry("signed/a.yaml", "kind: A\nversion: 2\n" + FakeSigningStep.SIGNATURE)
        .doesNotContainKey("unsigned/a.yaml");
    assertThat(signer.signedSources)
        .containsExactly("unsigned/a.yaml", "unsigned/apps/b.yml", "unsigned/a.yaml");
  }

  @Test
  void run_twoJobsOnTwoClonesAtOnce_bothFilesEndUpSigned() throws Exception {
    Path first = fixture.clone("first", 0, false);
    fixture.commitToOrigin(
        "main", Map.of("unsigned/c.yaml", "kind: C\n"), Set.of(), "Merge pull request #2");
    Path second = fixture.clone("second", 0, false);
    CyclicBarrier bothSigned = new CyclicBarrier(2);
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      Future<ReconcileResult> a =
          pool.submit(
              () ->
                  run(
                      first,
                      new FakeSigningStep(
                          call -> {
                            if (call == 1) {
                              bothSigned.await(20, TimeUnit.SECONDS);
                            }
                          }),
                      options()
                          .authorship(authorship(GitIdentity.GITHUB_ACTIONS_BOT, "run-a", false))
                          .build()));
      Future<ReconcileResult> b =
          pool.submit(
              () ->
                  run(
                      second,
                      new FakeSigningStep(
                          call -> {
                            if (call == 1) {
                              bothSigned.await(20, TimeUnit.SECONDS);
                            }
                          }),
                      options()
                          .authorship(authorship(GitIdentity.GITHUB_ACTIONS_BOT, "run-b", false))
                          .build()));

      ReconcileResult ra = a.get(60, TimeUnit.SECONDS);
      ReconcileResult rb = b.get(60, TimeUnit.SECONDS);

      assertThat(List.of(ra.outcome(), rb.outcome()))
          .contains(ReconcileResult.Outcome.PUSHED)
          .doesNotContain(ReconcileResult.Outcome.REFUSED, ReconcileResult.Outcome.DRY_RUN);
      // The first clone is behind origin, so at least one push lost the race and was retried.
      assertThat(ra.attempts() + rb.attempts()).isGreaterThanOrEqualTo(2);
    } finally {
      pool.shutdownNow();
    }
    assertThat(fixture.originFiles("main").keySet())
        .containsExactly(
            "README.md",
            "signed/a.yaml",
            "signed/apps/b.yml",
            "signed/c.yaml",
            "unsigned/notes.txt");
  }

  @Test
  void run_signingFails_nothingWrittenCommittedOrPushed() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    String originBefore = fixture.originHead("main");
    String headBefore;
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      headBefore = ws.headCommitId();
    }
    InputProblem failure =
        new InputProblem(Path.of("unsigned/apps/b.yml"), 1, "not a manifest", null);
    SigningStep failing =
        inputs -> {
          throw failure;
        };

    assertThatThrownBy(() -> run(clone, failing, options().build())).isSameAs(failure);

    assertThat(fixture.originHead("main")).isEqualTo(originBefore);
    assertThat(clone.resolve("unsigned/a.yaml")).hasContent("kind: A\n");
    assertThat(clone.resolve("unsigned/apps/b.yml")).hasContent("kind: B\n");
    assertThat(clone.resolve("signed")).doesNotExist();
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      assertThat(ws.headCommitId()).isEqualTo(headBefore);
    }
  }

  @Test
  void run_detachedShallowCloneWithARace_pushesToTheGivenBranch() throws Exception {
    fixture.commitToOrigin("main", Map.of("second.txt", "2\n"), Set.of(), "second");
    Path clone = fixture.clone("ws", 1, true);
    FakeSigningStep signer =
        new FakeSigningStep(
            call -> {
              if (call == 1) {
                fixture.commitToOrigin(
                    "main", Map.of("unsigned/d.yaml", "kind: D\n"), Set.of(), "add d");
              }
            });

    ReconcileResult result = run(clone, signer, options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(result.signedFiles())
        .containsExactly("signed/a.yaml", "signed/apps/b.yml", "signed/d.yaml");
    assertThat(fixture.originFiles("main"))
        .containsKeys("second.txt", "signed/d.yaml")
        .doesNotContainKey("unsigned/d.yaml");
  }

  @Test
  void run_existingSignatureStillHolds_onlyRemovesTheUnsignedCopy() throws Exception {
    fixture.commitToOrigin(
        "main",
        Map.of("signed/a.yaml", FakeSigningStep.signedText("kind: A\n")),
        Set.of(),
        "Merge pull request #3");

    ReconcileResult result =
        run(fixture.clone("ws", 0, false), new FakeSigningStep(), options().build());

    assertThat(result.signedFiles()).containsExactly("signed/apps/b.yml");
    assertThat(result.unchangedFiles()).containsExactly("signed/a.yaml");
    assertThat(fixture.originFiles("main")).doesNotContainKey("unsigned/a.yaml");
    assertThat(fixture.originCommit("main").getFullMessage())
        .contains("unsigned/a.yaml -> signed/a.yaml (signature unchanged)\n");
  }

  @Test
  void run_protectedBranch_isRefusedWithTheRemotesMessageAndCommitKeptLocally() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    fixture.protectBranch("main");
    String before = fixture.originHead("main");

    ReconcileResult result = run(clone, new FakeSigningStep(), options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.REFUSED);
    assertThat(result.detail())
        .startsWith("pre-receive hook declined\n")
        .contains("GH006: Protected branch update failed for refs/heads/main.")
        .contains("Changes must be made through a pull request.");
    assertThat(result.attempts()).isEqualTo(1);
    assertThat(fixture.originHead("main")).isEqualTo(before);
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      assertThat(result.commitId()).hasValue(ws.headCommitId());
      assertThat(CommitMessage.isCountersignCommit(ws.lastCommitMessage("HEAD"))).isTrue();
    }
  }

  @Test
  void run_dryRun_signsNothingAndChangesNothing() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    String before = fixture.originHead("main");
    FakeSigningStep signer = new FakeSigningStep();

    ReconcileResult result = run(clone, signer, options().dryRun(true).build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.DRY_RUN);
    assertThat(result.signedFiles()).containsExactly("signed/a.yaml", "signed/apps/b.yml");
    assertThat(signer.calls).hasValue(0);
    assertThat(fixture.originHead("main")).isEqualTo(before);
    assertThat(clone.resolve("unsigned/a.yaml")).exists();
    assertThat(clone.resolve("signed")).doesNotExist();
  }

  @Test
  void run_branchKeepsMovingUnderneath_givesUpAfterPushAttemptsWithAHint() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    // Every signing round sees a.yaml changed again on origin, so every push loses the race.
    FakeSigningStep signer =
        new FakeSigningStep(
            call ->
                fixture.commitToOrigin(
                    "main",
                    Map.of("unsigned/a.yaml", "kind: A\nv: " + call + "\n"),
                    Set.of(),
                    "bump " + call));

    assertThatThrownBy(() -> run(clone, signer, options().pushAttempts(3).build()))
        .isInstanceOf(RemoteProblem.class)
        .hasMessageStartingWith(
            "The push to main was rejected 3 times (last: REJECTED_NONFASTFORWARD")
        .satisfies(
            e ->
                assertThat(((RemoteProblem) e).hint())
                    .hasValueSatisfying(h -> assertThat(h).contains("concurrency group")));
    assertThat(sleeps).hasSize(2);
    assertThat(sleeps.get(1)).isBetween(Duration.ofMillis(100), Duration.ofMillis(300));
  }

  @Test
  void run_customDirPairsAndIdentities_areUsed() throws Exception {
    fixture.commitToOrigin("main", Map.of("team/in/x.yaml", "kind: X\n"), Set.of(), "team");
    GitIdentity ada = GitIdentity.parse("Ada <ada@example.com>");

    ReconcileResult result =
        run(
            fixture.clone("ws", 0, false),
            new FakeSigningStep(),
            options()
                .dirs(List.of(DirPair.parse("team/in:team/out")))
                .authorship(authorship(ada, "run-7", false))
                .commitSubject("Sign team manifests")
                .build());

    assertThat(result.signedFiles()).containsExactly("team/out/x.yaml");
    assertThat(fixture.originFiles("main")).containsKeys("team/out/x.yaml", "unsigned/a.yaml");
    RevCommit commit = fixture.originCommit("main");
    assertThat(commit.getShortMessage()).isEqualTo("Sign team manifests");
    assertThat(commit.getAuthorIdent().getName()).isEqualTo("Ada");
    assertThat(commit.getCommitterIdent().getName()).isEqualTo("github-actions[bot]");
    assertThat(Files.exists(tmp.resolve("ws/team/out/x.yaml"))).isTrue();
  }

  @Test
  void run_startFromRemoteOnAFeatureCheckout_pushesOnlyTheSigningCommit() throws Exception {
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      ws.commit(
          dev.countersign.git.ChangeSet.empty()
              .write("wip.txt", "unfinished\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
          new dev.countersign.git.CommitRequest(
              "wip\n", GitIdentity.GITHUB_ACTIONS_BOT, GitIdentity.GITHUB_ACTIONS_BOT));
    }
    String mainBefore = fixture.originHead("main");

    ReconcileResult result =
        run(clone, new FakeSigningStep(), options().startFromRemote(true).build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(fixture.originCommit("main").getParent(0).name()).isEqualTo(mainBefore);
    assertThat(fixture.originFiles("main"))
        .doesNotContainKey("wip.txt")
        .containsKey("signed/a.yaml");
  }

  @Test
  void run_symlinkedManifestUnderUnsigned_isAnInputProblemAndNothingIsSigned() throws Exception {
    fixture.commitSymlinkToOrigin("main", "unsigned/link.yaml", "../README.md");
    String before = fixture.originHead("main");
    FakeSigningStep signer = new FakeSigningStep();

    assertThatThrownBy(() -> run(fixture.clone("ws", 0, false), signer, options().build()))
        .isInstanceOf(InputProblem.class)
        .hasMessage(
            "unsigned/link.yaml: is a symbolic link; countersign never follows links under a signed"
                + " or unsigned directory");
    assertThat(signer.calls).hasValue(0);
    assertThat(fixture.originHead("main")).isEqualTo(before);
  }

  @Test
  void run_moveOnly_movesBytesUnchanged() throws Exception {
    ReconcileResult result =
        run(fixture.clone("ws", 0, false), SigningStep.moveOnly(), options().build());

    assertThat(result.outcome()).isEqualTo(ReconcileResult.Outcome.PUSHED);
    assertThat(fixture.originFiles("main"))
        .containsEntry("signed/a.yaml", "kind: A\n")
        .containsEntry("signed/apps/b.yml", "kind: B\n");
  }

  @Test
  void run_signedOutputOverTheSizeLimit_isAnInputProblemNamingTheSource_andNothingIsCommitted()
      throws Exception {
    String before = fixture.originHead("main");
    Path clone = fixture.clone("ws", 0, false);
    try (JGitWorkspace ws = JGitWorkspace.open(clone, CLOCK)) {
      String head = ws.headCommitId();
      ReconcileJob job =
          new ReconcileJob(
              ws,
              new FakeSigningStep(),
              new SilentProgress(),
              CLOCK,
              sleeps::add,
              new Random(42),
              options().build(),
              new ManifestTree(20));

      assertThatThrownBy(job::run)
          .isInstanceOfSatisfying(
              InputProblem.class,
              problem ->
                  assertThat(problem.all())
                      .extracting(InputProblem::getMessage)
                      .containsExactly(
                          "unsigned/a.yaml: once signed is 33 bytes (every document carries the"
                              + " message of the whole file), over the limit of 20 bytes for one"
                              + " manifest file",
                          "unsigned/apps/b.yml: once signed is 33 bytes (every document carries the"
                              + " message of the whole file), over the limit of 20 bytes for one"
                              + " manifest file"));
      assertThat(ws.headCommitId()).isEqualTo(head);
    }
    assertThat(clone.resolve("signed")).doesNotExist();
    assertThat(fixture.originHead("main")).isEqualTo(before);
  }
}
