package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.HostedPullRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Promotion pull requests end to end: a bare git "origin", clones as workspaces, the WireMock
 * GitHub ({@link FakeGitHub}) for the pull requests, key-based signing, and the CLI driven
 * in-process as the Action runs it.
 */
class PromotionPipelineTest {

  private static final String TOKEN = "ghs_promotionTestToken0123456789";
  private static final String PASSWORD = "promotion-test";
  private static final String BOT = "countersign/sign-main";

  @TempDir Path tmp;
  private GitFixture git;
  private FakeGitHub github;
  private Path privateKey;
  private Path publicKey;

  @BeforeEach
  void setUp() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "hello\n"), Set.of(), "initial");
    github = FakeGitHub.start(TOKEN);
    privateKey = tmp.resolve("keys/cosign.key");
    publicKey = tmp.resolve("keys/cosign.pub");
    Files.createDirectories(privateKey.getParent());
    KeyPairFiles.generate(privateKey, publicKey, PASSWORD.toCharArray(), new SecureRandom());
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  // --- scheduled refresh ---------------------------------------------------------------------

  @Test
  void scheduledRefresh_createsThenNoopThenUpdatesThenClosesThePullRequest() throws Exception {
    // main already carries the signed allowlist generated from v1.
    signedAllowlistV1OnMain();
    int mainCommits = git.originCommitCount("main");
    String mainHead = git.originHead("main");

    // 1. The generator produces v2: a pull request is opened with the table.
    CliRun first = refresh(allowlist("203.0.113.0/24"), "ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    Map<String, String> out = outputs();
    assertThat(out)
        .containsEntry("result", "created")
        .containsEntry("pull-request-number", "273")
        .containsEntry(
            "pull-request-url", "https://github.com/" + FakeGitHub.REPOSITORY + "/pull/273");
    HostedPullRequest pr = github.hosted(273).orElseThrow();
    assertThat(pr.open()).isTrue();
    assertThat(pr.head()).isEqualTo(BOT);
    assertThat(pr.base()).isEqualTo("main");
    assertThat(pr.body())
        .startsWith("<!-- countersign:promotion -->")
        .contains("| File | Change | Message digest | Signer | Rekor log index |")
        .containsPattern(
            "\\| <code>signed/egress/allowlist.yaml</code> \\| changed \\|"
                + " <code>sha256:[0-9a-f]{64}</code> \\| <code>sha256:[0-9a-f]{64}</code> \\| -"
                + " \\|")
        .contains("countersign verify signed");
    assertThat(git.originHead("main")).isEqualTo(mainHead);
    assertThat(git.originCommitCount(BOT)).isEqualTo(mainCommits + 1);
    assertThat(git.originFiles(BOT).get("signed/egress/allowlist.yaml")).contains("203.0.113.0/24");
    assertThat(git.originFiles(BOT).keySet()).noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(verifyKeyed(git.originFiles(BOT), "v1").exitCode()).isZero();
    String firstBody = pr.body();
    String botAfterFirst = git.originHead(BOT);

    // 2. Same generated content: nothing signed, committed, pushed or edited.
    github.server().resetRequests();
    CliRun second = refresh(allowlist("203.0.113.0/24"), "ws2");
    assertThat(second.exitCode()).as(second.all()).isZero();
    assertThat(outputs())
        .containsEntry("result", "noop")
        .containsEntry("pull-request-number", "273")
        .containsEntry("commit-sha", "");
    assertThat(git.originHead(BOT)).isEqualTo(botAfterFirst);
    github.server().verify(0, patchRequestedFor(anyUrl()));
    github.server().verify(0, postRequestedFor(anyUrl()));
    assertThat(github.hosted(273).orElseThrow().body()).isEqualTo(firstBody);

    // 3. Changed content: one new commit on the bot branch (base + 1) and the body updated.
    github.server().resetRequests();
    CliRun third = refresh(allowlist("192.0.2.0/24"), "ws3");
    assertThat(third.exitCode()).as(third.all()).isZero();
    assertThat(outputs())
        .containsEntry("result", "updated")
        .containsEntry("commit-sha", git.originHead(BOT));
    assertThat(git.originHead(BOT)).isNotEqualTo(botAfterFirst);
    assertThat(git.originCommitCount(BOT)).isEqualTo(mainCommits + 1);
    assertThat(git.originFiles(BOT).get("signed/egress/allowlist.yaml")).contains("192.0.2.0/24");
    github.server().verify(1, patchRequestedFor(urlMatching(".*/pulls/273")));
    String thirdBody = github.hosted(273).orElseThrow().body();
    assertThat(thirdBody).isNotEqualTo(firstBody).contains("signed/egress/allowlist.yaml");
    assertThat(github.unrouted()).isEmpty();

    // 4. Reverted to what main has: the pull request is closed (and its branch deleted as asked).
    CliRun fourth =
        refresh(allowlist("198.51.100.0/24"), "ws4", Map.of("INPUT_DELETE_BRANCH", "true"));
    assertThat(fourth.exitCode()).as(fourth.all()).isZero();
    assertThat(outputs())
        .containsEntry("result", "closed")
        .containsEntry("pull-request-number", "273");
    assertThat(github.hosted(273).orElseThrow().open()).isFalse();
    assertThat(git.originHead("main")).isEqualTo(mainHead);
  }

  @Test
  void scheduledRefresh_withoutAnyDifference_opensNothing() throws Exception {
    signedAllowlistV1OnMain();

    CliRun run = refresh(allowlist("198.51.100.0/24"), "ws");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(outputs()).containsEntry("result", "noop").containsEntry("pull-request-number", "");
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void control_scheduledRefresh_theBotBranchCommitChangesOnlyTheSignedFile() throws Exception {
    signedAllowlistV1OnMain();

    CliRun run = refresh(allowlist("203.0.113.0/24"), "ws");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originChanges(BOT))
        .containsExactly(entry("signed/egress/allowlist.yaml", "M 100644"));
  }

  @Test
  void control_scheduledRefresh_onABaseTipMergedAfterTheCheckout_keepsAnEditOfAnotherFile()
      throws Exception {
    signedAllowlistV1OnMain();

    Refreshed refreshed =
        refreshAfter(
            ws -> {
              Files.writeString(ws.resolve("README.md"), "edited by a step\n");
              // Merged after the checkout: the refresh moves the signed file it replaces, and
              // docs/other.md, to this tip before committing on it.
              git.commitToOrigin(
                  "main",
                  Map.of(
                      "signed/egress/allowlist.yaml",
                      signedOnMain(allowlist("192.0.2.0/24")),
                      "docs/other.md",
                      "merged\n"),
                  Set.of(),
                  "another merge");
            });
    CliRun run = refreshed.run();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(outputs()).containsEntry("result", "created");
    assertThat(git.originChanges(BOT))
        .containsExactly(entry("signed/egress/allowlist.yaml", "M 100644"));
    assertThat(git.originFiles(BOT).get("signed/egress/allowlist.yaml")).contains("203.0.113.0/24");
    assertThat(refreshed.checkout().resolve("README.md")).hasContent("edited by a step");
  }

  @Test
  void scheduledRefresh_anEarlierStepsEditOfTheSignedFileItReplaces_exits2_beforeSigning()
      throws Exception {
    signedAllowlistV1OnMain();
    String edit = signedOnMain(allowlist("198.51.100.0/24")) + "# edited by a step\n";

    Refreshed refreshed =
        refreshAfter(
            ws -> {
              Files.writeString(ws.resolve("signed/egress/allowlist.yaml"), edit);
            });
    CliRun run = refreshed.run();

    assertRefreshRefusedBeforeSigning(run, "signed/egress/allowlist.yaml");
    Path ws = refreshed.checkout();
    assertThat(ws.resolve("signed/egress/allowlist.yaml")).hasContent(edit);
    assertThat(GitFixture.git(ws, "status", "--porcelain"))
        .isEqualTo(" M signed/egress/allowlist.yaml\n?? unsigned/\n");
  }

  @Test
  void scheduledRefresh_anEarlierStepsEditOfAFileTheBaseTipChanges_exits2_beforeSigning()
      throws Exception {
    signedAllowlistV1OnMain();

    Refreshed refreshed =
        refreshAfter(
            ws -> {
              Files.writeString(ws.resolve("README.md"), "edited by a step\n");
              // Merged after the checkout: the refresh commits on this tip, moving README.md.
              git.commitToOrigin("main", Map.of("README.md", "merged\n"), Set.of(), "docs");
            });
    CliRun run = refreshed.run();

    assertRefreshRefusedBeforeSigning(run, "README.md");
    assertThat(refreshed.checkout().resolve("README.md")).hasContent("edited by a step");
  }

  @Test
  void scheduledRefresh_keepsWhatAnEarlierStepLeftUncommitted_forTheStepsAfterIt()
      throws Exception {
    signedAllowlistV1OnMain();

    Refreshed refreshed =
        refreshAfter(
            ws -> {
              Files.writeString(ws.resolve("README.md"), "edited by a step\n");
              Files.writeString(ws.resolve("notes.txt"), "staged by a step\n");
              GitFixture.git(ws, "add", "notes.txt");
            });
    CliRun run = refreshed.run();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(outputs()).containsEntry("result", "created");
    Path ws = refreshed.checkout();
    assertThat(ws.resolve("README.md")).hasContent("edited by a step");
    assertThat(ws.resolve("notes.txt")).hasContent("staged by a step");
    assertThat(ws.resolve("unsigned/egress/allowlist.yaml"))
        .hasContent(allowlist("203.0.113.0/24"));
    assertThat(GitFixture.git(ws, "status", "--porcelain"))
        .isEqualTo(" M README.md\nA  notes.txt\n?? unsigned/\n");
  }

  @Test
  void scheduledRefresh_withChangesAStepStaged_theBotBranchCommitChangesOnlyTheSignedFile()
      throws Exception {
    signedAllowlistV1OnMain();

    CliRun run =
        refresh(
            allowlist("203.0.113.0/24"),
            "ws",
            Map.of(),
            ws -> {
              // The generator's step stages everything it touched, and more.
              Files.writeString(ws.resolve("README.md"), "edited by a step\n");
              Files.writeString(ws.resolve("notes.txt"), "intent to add\n");
              Files.createDirectories(ws.resolve("signed/egress"));
              Files.writeString(ws.resolve("signed/egress/forged.yaml"), allowlist("0.0.0.0/0"));
              GitFixture.git(ws, "add", "README.md", "unsigned", "signed/egress/forged.yaml");
              GitFixture.git(ws, "add", "--intent-to-add", "notes.txt");
            });

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originChanges(BOT))
        .containsExactly(entry("signed/egress/allowlist.yaml", "M 100644"));
    assertThat(git.originFiles(BOT).get("signed/egress/allowlist.yaml")).contains("203.0.113.0/24");
  }

  @Test
  void refreshWithDryRun_isAUsageError_becauseItWouldStillPublish() throws Exception {
    CliRun run = refresh(allowlist("203.0.113.0/24"), "ws", Map.of("INPUT_DRY_RUN", "true"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(git.originHead(BOT)).isNull();
  }

  // --- protected branch ----------------------------------------------------------------------

  @Test
  void protectedBranch_refusalBecomesAPullRequest_andNothingIsLost() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/config/flags.yaml", ActionPipelineTest.configMap("flags", "on"),
            "unsigned/egress/payments.yaml", ActionPipelineTest.networkPolicy("payments-egress")),
        Set.of(),
        "add manifests");
    git.protectBranch("main");
    String mainHead = git.originHead("main");
    Path ws = git.clone("ws", 0, false);

    CliRun run =
        CliRun.run(
            env(Map.of()),
            "run",
            "--repo",
            ws.toString(),
            "--key",
            privateKey.toString(),
            "--label",
            "countersign",
            "--reviewer",
            "octocat");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all())
        .contains("GH006")
        .contains("proposing the signing commit through a pull request");
    assertThat(git.originHead("main")).isEqualTo(mainHead);
    SortedMap<String, String> onBranch = git.originFiles(BOT);
    assertThat(onBranch.keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml")
        .noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
    assertThat(outputs()).containsEntry("result", "created");
    HostedPullRequest pr = github.hosted(273).orElseThrow();
    assertThat(pr.head()).isEqualTo(BOT);
    assertThat(pr.labels()).contains("countersign");
    assertThat(pr.reviewers()).contains("octocat");
    assertThat(pr.body())
        .contains("| <code>signed/config/flags.yaml</code> | added |")
        .contains("| <code>unsigned/config/flags.yaml</code> | removed |")
        .contains("countersign verify signed");
    assertThat(verifyKeyed(onBranch, "v").exitCode()).isZero();

    // The next run, while the pull request waits for review, reuses the proposed signatures:
    // no re-signing, no force-push, no pull request update.
    String botTip = git.originHead(BOT);
    long changingRequests = changingRequests();
    CliRun again =
        CliRun.run(
            env(Map.of()),
            "run",
            "--repo",
            git.clone("ws2", 0, false).toString(),
            "--key",
            privateKey.toString());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(outputs()).containsEntry("result", "noop");
    assertThat(git.originHead(BOT)).isEqualTo(botTip);
    assertThat(git.originHead("main")).isEqualTo(mainHead);
    assertThat(changingRequests()).isEqualTo(changingRequests);
  }

  /** POST and PATCH requests GitHub has received so far. */
  private long changingRequests() {
    return github.server().getAllServeEvents().stream()
        .filter(e -> e.getRequest().getMethod().getName().matches("POST|PATCH"))
        .count();
  }

  @Test
  void protectedBranch_withoutAGitHubRepository_stillFailsWithTheRefusal() throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", ActionPipelineTest.configMap("a", "1")), Set.of(), "add");
    git.protectBranch("main");
    Path ws = git.clone("ws", 0, false);
    Map<String, String> env = new HashMap<>(env(Map.of()));
    env.remove("GITHUB_REPOSITORY");

    CliRun run = CliRun.run(env, "run", "--repo", ws.toString(), "--key", privateKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.err()).contains("refused the push to main");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void pullRequestMode_withAnOpenPullRequestWhoseContentLanded_closesIt() throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", ActionPipelineTest.configMap("a", "1")), Set.of(), "add");
    CliRun first = proposeSigning("ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    assertThat(outputs()).containsEntry("result", "created");
    // Someone signs main by other means: nothing is left to propose.
    git.commitToOrigin(
        "main",
        Map.of("signed/a.yaml", git.originFiles(BOT).get("signed/a.yaml")),
        Set.of("unsigned/a.yaml"),
        "signed elsewhere");

    CliRun second = proposeSigning("ws2");

    assertThat(second.exitCode()).as(second.all()).isZero();
    assertThat(outputs()).containsEntry("result", "closed");
    assertThat(github.hosted(273).orElseThrow().open()).isFalse();
  }

  @Test
  void fileOnTheBotBranchPlantedByABranchPusher_isSignedOver_soItNeverReachesMain()
      throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", ActionPipelineTest.configMap("a", "1")), Set.of(), "add");
    CliRun first = proposeSigning("ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    String proposed = git.originFiles(BOT).get("signed/a.yaml");
    // Anyone who can push a branch replaces the proposed file: the message annotation is right,
    // the signature is another key's (their own), and a second file rides along.
    Path attackerKey = tmp.resolve("attacker/cosign.key");
    KeyPairFiles.generate(
        attackerKey,
        tmp.resolve("attacker/cosign.pub"),
        PASSWORD.toCharArray(),
        new SecureRandom());
    Path planted = tmp.resolve("attacker/a.yaml");
    Files.writeString(planted, ActionPipelineTest.configMap("a", "1"));
    CliRun forge =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", PASSWORD),
            "sign",
            "--key",
            attackerKey.toString(),
            planted.toString());
    assertThat(forge.exitCode()).as(forge.all()).isZero();
    String forged = Files.readString(planted);
    git.commitToOrigin(
        BOT,
        Map.of(
            "signed/a.yaml", forged, "signed/extra.yaml", forged.replace("name: a", "name: extra")),
        Set.of(),
        "planted");

    CliRun again = proposeSigning("ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    SortedMap<String, String> onBranch = git.originFiles(BOT);
    assertThat(onBranch.get("signed/a.yaml")).isNotEqualTo(forged).isNotEqualTo(proposed);
    assertThat(onBranch).doesNotContainKey("signed/extra.yaml");
    assertThat(verifyKeyed(onBranch, "bot").exitCode()).isZero();
    assertThat(outputs()).containsEntry("result", "updated");
  }

  @Test
  void control_anUntouchedBotBranch_isReusedAsItIs() throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", ActionPipelineTest.configMap("a", "1")), Set.of(), "add");
    CliRun first = proposeSigning("ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    String tip = git.originHead(BOT);

    CliRun again = proposeSigning("ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(git.originHead(BOT)).isEqualTo(tip);
    assertThat(outputs()).containsEntry("result", "noop");
  }

  @Test
  void pullRequestMode_withACommitABranchPusherAddedAndReverted_rebuildsOnTheBase()
      throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/a.yaml", ActionPipelineTest.configMap("a", "1")), Set.of(), "add");
    String mainHead = git.originHead("main");
    CliRun first = proposeSigning("ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    // Same tree as countersign's commit, but the planted file is in the pull request's history.
    git.commitToOrigin(
        BOT,
        Map.of("unsigned/evil.yaml", ActionPipelineTest.configMap("evil", "1")),
        Set.of(),
        "a");
    git.commitToOrigin(BOT, Map.of(), Set.of("unsigned/evil.yaml"), "b");

    CliRun again = proposeSigning("ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(outputs()).containsEntry("result", "updated");
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
    assertThat(git.originCommitCount(BOT)).isEqualTo(git.originCommitCount("main") + 1);
  }

  @Test
  void scheduledRefresh_withAForgedFileOnTheBotBranch_signsTheGeneratedContentAgain()
      throws Exception {
    signedAllowlistV1OnMain();
    CliRun first = refresh(allowlist("203.0.113.0/24"), "ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    String proposed = git.originFiles(BOT).get("signed/egress/allowlist.yaml");
    String forged =
        proposed.replaceFirst(
            "(cosign\\.sigstore\\.dev/signature: )\\S+",
            "$1"
                + java.util.Base64.getEncoder()
                    .encodeToString("garbage".getBytes(StandardCharsets.US_ASCII)));
    git.commitToOrigin(BOT, Map.of("signed/egress/allowlist.yaml", forged), Set.of(), "planted");

    CliRun again = refresh(allowlist("203.0.113.0/24"), "ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    SortedMap<String, String> onBranch = git.originFiles(BOT);
    assertThat(onBranch.get("signed/egress/allowlist.yaml")).isNotEqualTo(forged);
    assertThat(verifyKeyed(onBranch, "refresh").exitCode()).isZero();
  }

  @Test
  void scheduledRefresh_ofAManifestWhoseAnnotationsAreNotAMapping_exits6_andProposesNothing()
      throws Exception {
    String mainHead = git.originHead("main");
    String generated =
        allowlist("203.0.113.0/24")
            .replace("  namespace: payments\n", "  namespace: payments\n  annotations: [1]\n");

    CliRun run = refresh(generated, "ws1");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/egress/allowlist.yaml,line=6,title=invalid manifest::"
                + "unsigned/egress/allowlist.yaml:6: metadata.annotations of document 1 must be a"
                + " mapping, not a list");
    assertThat(run.all()).doesNotContain("this is a bug in countersign");
    assertThat(git.originHead("main")).isEqualTo(mainHead);
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void scheduledRefresh_withFilesABranchPusherAddedOutsideSignedDir_rebuildsTheBotBranch()
      throws Exception {
    signedAllowlistV1OnMain();
    String mainHead = git.originHead("main");
    int mainCommits = git.originCommitCount("main");
    CliRun first = refresh(allowlist("203.0.113.0/24"), "ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    String proposed = git.originFiles(BOT).get("signed/egress/allowlist.yaml");
    // A branch pusher leaves signed/ alone and adds an unsigned manifest (signed on merge by the
    // trusted identity), a trust policy and a workflow to the pull request countersign presents as
    // its own.
    git.commitToOrigin(
        BOT,
        Map.of(
            "unsigned/evil.yaml", ActionPipelineTest.configMap("evil", "1"),
            ".countersign/policy.yaml", "kind: TrustPolicy\n",
            ".github/workflows/x.yml", "on: push\n"),
        Set.of(),
        "planted");

    CliRun again = refresh(allowlist("203.0.113.0/24"), "ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).doesNotContain("is up to date");
    String tip = git.originHead(BOT);
    assertThat(outputs())
        .containsEntry("result", "updated")
        .containsEntry("commit-sha", tip)
        .containsEntry("pull-request-head-sha", tip);
    SortedMap<String, String> onBranch = git.originFiles(BOT);
    assertThat(onBranch.keySet()).containsExactly("README.md", "signed/egress/allowlist.yaml");
    // The proposed file still covers the generated content: kept as it is, not signed again.
    assertThat(onBranch.get("signed/egress/allowlist.yaml")).isEqualTo(proposed);
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
    assertThat(git.originCommitCount(BOT)).isEqualTo(mainCommits + 1);
    assertThat(verifyKeyed(onBranch, "rebuilt").exitCode()).isZero();
    HostedPullRequest pr = github.hosted(273).orElseThrow();
    assertThat(pr.open()).isTrue();
    assertThat(pr.head()).isEqualTo(BOT);
  }

  @Test
  void scheduledRefresh_withACommitABranchPusherAddedAndReverted_rebuildsOnTheBase()
      throws Exception {
    // The tree is countersign's again, but the history carries the planted file (a rebase merge
    // would replay it onto main).
    signedAllowlistV1OnMain();
    String mainHead = git.originHead("main");
    CliRun first = refresh(allowlist("203.0.113.0/24"), "ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    git.commitToOrigin(
        BOT,
        Map.of("unsigned/evil.yaml", ActionPipelineTest.configMap("evil", "1")),
        Set.of(),
        "a");
    git.commitToOrigin(BOT, Map.of(), Set.of("unsigned/evil.yaml"), "b");

    CliRun again = refresh(allowlist("203.0.113.0/24"), "ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(outputs()).containsEntry("result", "updated");
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
  }

  @Test
  void control_scheduledRefresh_anUntouchedBotBranch_isReusedAsItIs() throws Exception {
    signedAllowlistV1OnMain();
    CliRun first = refresh(allowlist("203.0.113.0/24"), "ws1");
    assertThat(first.exitCode()).as(first.all()).isZero();
    String tip = git.originHead(BOT);
    long changingRequests = changingRequests();

    CliRun again = refresh(allowlist("203.0.113.0/24"), "ws2");

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).contains("No-op: pull request #273 is up to date");
    assertThat(outputs()).containsEntry("result", "noop").containsEntry("commit-sha", "");
    assertThat(git.originHead(BOT)).isEqualTo(tip);
    assertThat(changingRequests()).isEqualTo(changingRequests);
  }

  // --- helpers -------------------------------------------------------------------------------

  /** main carries the signed allowlist generated from v1, as an earlier run left it. */
  private void signedAllowlistV1OnMain() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of("signed/egress/allowlist.yaml", signedOnMain(allowlist("198.51.100.0/24"))),
        Set.of(),
        "signed allowlist v1");
  }

  /**
   * The refresh stopped with exit code 2 naming {@code path} as holding uncommitted work, before
   * anything was signed, and published nothing.
   */
  private void assertRefreshRefusedBeforeSigning(CliRun run, String path) throws Exception {
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.all()).contains(path).contains("uncommitted").contains("would overwrite");
    assertThat(run.all()).as("nothing signed").doesNotContain("Signing ").doesNotContain("signed ");
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  /** {@code run --mode pull-request} with the test key, in a new full clone {@code workspace}. */
  private CliRun proposeSigning(String workspace) throws Exception {
    return CliRun.run(
        env(Map.of()),
        "run",
        "--repo",
        git.clone(workspace, 0, false).toString(),
        "--key",
        privateKey.toString(),
        "--mode",
        "pull-request");
  }

  private CliRun refresh(String generated, String workspace) throws Exception {
    return refresh(generated, workspace, Map.of());
  }

  /** A scheduled run: a fresh checkout, the generator's output in unsigned/, then the Action. */
  private CliRun refresh(String generated, String workspace, Map<String, String> extra)
      throws Exception {
    return refresh(generated, workspace, extra, ws -> {});
  }

  /** A step of the workflow, run in the checkout after the generator. */
  private interface Step {
    void run(Path ws) throws Exception;
  }

  /** What {@link #refreshAfter} ran, and the checkout it ran in. */
  private record Refreshed(CliRun run, Path checkout) {}

  /** A refresh generating 203.0.113.0/24 in checkout "ws", with {@code step} run before it. */
  private Refreshed refreshAfter(Step step) throws Exception {
    Path[] checkout = new Path[1];
    CliRun run =
        refresh(
            allowlist("203.0.113.0/24"),
            "ws",
            Map.of(),
            ws -> {
              checkout[0] = ws;
              step.run(ws);
            });
    return new Refreshed(run, checkout[0]);
  }

  /** {@link #refresh(String, String, Map)} with {@code step} run after the generator. */
  private CliRun refresh(String generated, String workspace, Map<String, String> extra, Step step)
      throws Exception {
    Path ws = git.clone(workspace, 1, true);
    Path file = ws.resolve("unsigned/egress/allowlist.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, generated);
    step.run(ws);
    Files.deleteIfExists(tmp.resolve("output"));
    Path event = tmp.resolve("schedule.json");
    try (var in = getClass().getResourceAsStream("/action/events/schedule.minimal.json")) {
      Files.write(event, in.readAllBytes());
    }
    Map<String, String> env = new HashMap<>(env(extra));
    env.put("GITHUB_EVENT_NAME", "schedule");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_WORKSPACE", ws.toString());
    env.put("INPUT_MODE", "pull-request");
    env.put("INPUT_FROM_WORKTREE", "true");
    env.put("INPUT_KEY", privateKey.toString());
    return CliRun.run(env, "action");
  }

  private Map<String, String> env(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("GITHUB_REF", "refs/heads/main");
    env.put("GITHUB_RUN_ID", "777");
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_TOKEN", TOKEN);
    env.put("GITHUB_TOKEN", TOKEN); // what `run` reads outside the Action entry point
    env.put("COSIGN_PASSWORD", PASSWORD);
    env.putAll(extra);
    return env;
  }

  /** The last value of each step output (GITHUB_OUTPUT, heredoc form included). */
  private Map<String, String> outputs() throws IOException {
    return ActionTestEnv.outputs(tmp.resolve("output"));
  }

  /** Signs {@code manifest} with the test key, as main would have it after an earlier run. */
  private String signedOnMain(String manifest) throws IOException {
    Path file = tmp.resolve("seed/allowlist.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, manifest);
    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", PASSWORD),
            "sign",
            "--key",
            privateKey.toString(),
            file.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }

  private CliRun verifyKeyed(SortedMap<String, String> files, String dirName) throws IOException {
    Path dir = tmp.resolve("verify-" + dirName + "-" + System.nanoTime());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent() == null ? dir : p.getParent());
      Files.writeString(p, f.getValue());
    }
    return CliRun.run(
        Map.of(), "verify", "--key", publicKey.toString(), dir.resolve("signed").toString());
  }

  static String allowlist(String cidr) {
    return String.join(
        "\n",
        "apiVersion: networking.k8s.io/v1",
        "kind: NetworkPolicy",
        "metadata:",
        "  name: egress-allowlist",
        "  namespace: payments",
        "spec:",
        "  podSelector: {}",
        "  policyTypes: [Egress]",
        "  egress:",
        "    - to:",
        "        - ipBlock:",
        "            cidr: " + cidr,
        "");
  }
}
