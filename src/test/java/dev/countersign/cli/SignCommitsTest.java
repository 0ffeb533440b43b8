package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static dev.countersign.cli.GitHubSession.BOT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitData;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --sign-commits}: the signing commit made through GitHub's Git Data API, so GitHub signs
 * it. The REST fake builds real git objects in the bare origin, so the commit GitHub "made" can be
 * fetched, its tree compared with what the git path commits, and its files verified.
 */
class SignCommitsTest {

  private static final String REPO = "/repos/" + FakeGitHub.REPOSITORY;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;
  private GitHubSession s;
  private String mainHead;

  @BeforeEach
  void setUp() throws Exception {
    s = new GitHubSession(tmp.resolve("api"));
    mainHead = s.addTwoManifestsToMain();
  }

  @AfterEach
  void tearDown() {
    s.close();
  }

  /** The Git Data API requests of the last runs, in order. */
  private List<String> gitDataCalls() {
    return s.github.requests().stream().filter(r -> r.contains("/git/")).toList();
  }

  @Test
  void pushMode_makesTheCommitThroughTheApi_blobsTreeWithDeletionsCommitFastForward()
      throws Exception {
    CliRun run = s.run("--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isZero();
    List<FakeGitData.MadeCommit> made = s.github.apiCommits();
    assertThat(made)
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.verified())
                  .as("no author or committer sent, so GitHub signs it")
                  .isTrue();
              assertThat(c.parents()).containsExactly(mainHead);
              assertThat(c.message())
                  .startsWith("countersign: sign 2 manifests")
                  .contains("Countersign-Run: 777");
            });
    String commit = made.get(0).sha();
    assertThat(s.git.originHead("main")).isEqualTo(commit);
    assertThat(gitDataCalls())
        .containsExactly(
            "POST " + REPO + "/git/blobs", "POST " + REPO + "/git/blobs",
            "POST " + REPO + "/git/trees", "POST " + REPO + "/git/commits",
            "GET " + REPO + "/git/refs/heads/main", "PATCH " + REPO + "/git/refs/heads/main");
    JsonNode tree =
        JSON.readTree(
            s.github
                .server()
                .findAll(postRequestedFor(urlMatching(".*/git/trees")))
                .get(0)
                .getBodyAsString());
    try (Repository origin = s.git.openOrigin();
        org.eclipse.jgit.revwalk.RevWalk walk = new org.eclipse.jgit.revwalk.RevWalk(origin)) {
      assertThat(tree.get("base_tree").asText())
          .isEqualTo(
              walk.parseCommit(org.eclipse.jgit.lib.ObjectId.fromString(mainHead))
                  .getTree()
                  .name());
    }
    List<String> deleted = new ArrayList<>();
    tree.get("tree")
        .forEach(
            e -> {
              if (e.has("sha") && e.get("sha").isNull()) {
                deleted.add(e.get("path").asText());
              }
            });
    assertThat(deleted)
        .containsExactlyInAnyOrder("unsigned/config/flags.yaml", "unsigned/egress/payments.yaml");
    JsonNode ref =
        JSON.readTree(
            s.github
                .server()
                .findAll(
                    com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor(
                        urlMatching(".*/git/refs/heads/main")))
                .get(0)
                .getBodyAsString());
    assertThat(ref.get("force").asBoolean()).isFalse();
    assertThat(ref.get("sha").asText()).isEqualTo(commit);
    assertThat(s.outputs()).containsEntry("result", "pushed").containsEntry("commit-sha", commit);
    assertThat(s.git.originFiles("main").keySet())
        .containsExactlyInAnyOrder(
            "README.md", "signed/config/flags.yaml", "signed/egress/payments.yaml");
    s.assertVerifies("main");
    // The checkout now stands on GitHub's commit, with nothing left to commit.
    try (Repository clone = GitFixture.open(s.lastWorkspace())) {
      assertThat(clone.resolve("HEAD").name()).isEqualTo(commit);
    }
    // Nothing was pushed with git: the only writes are the API's.
    assertThat(s.writes()).allMatch(w -> w.contains("/git/"));
  }

  @Test
  void theApiCommitHoldsExactlyTheTreeTheGitPathCommits() throws Exception {
    // Twin repositories with the same content; moving without signing makes the bytes
    // deterministic.
    try (GitHubSession twin = new GitHubSession(tmp.resolve("git-path"))) {
      twin.addTwoManifestsToMain();

      CliRun api = s.run("--sign-commits", "--no-sign");
      CliRun git = twin.run("--no-sign");

      assertThat(api.exitCode()).as(api.all()).isZero();
      assertThat(git.exitCode()).as(git.all()).isZero();
      RevCommit viaApi = s.git.originCommit("main");
      RevCommit viaGit = twin.git.originCommit("main");
      assertThat(viaApi.getTree().name()).isEqualTo(viaGit.getTree().name());
      assertThat(viaApi.getFullMessage()).isEqualTo(viaGit.getFullMessage());
      assertThat(viaApi.getAuthorIdent().getName()).isEqualTo("github-actions[bot]");
      assertThat(s.github.apiCommits()).hasSize(1);
      assertThat(twin.github.apiCommits()).isEmpty();
    }
  }

  @Test
  void pushMode_raceOnTheRefUpdate_isRefusedAsNotFastForward_recomputed_andRetried()
      throws Exception {
    // Someone pushes a new manifest to main between our commit and our ref update.
    String[] theirs = new String[1];
    s.github.beforeNext(
        "PATCH",
        ".*/git/refs/heads/main",
        () -> {
          try {
            theirs[0] =
                s.git.commitToOrigin(
                    "main",
                    Map.of(
                        "unsigned/config/extra.yaml", ActionPipelineTest.configMap("extra", "1")),
                    Set.of(),
                    "someone else");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });

    CliRun run = s.run("--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all()).contains("Update is not a fast forward");
    List<FakeGitData.MadeCommit> made = s.github.apiCommits();
    assertThat(made).hasSize(2);
    assertThat(made.get(0).parents()).containsExactly(mainHead);
    assertThat(made.get(1).parents())
        .as("recomputed on the fresh branch")
        .containsExactly(theirs[0]);
    assertThat(gitDataCalls()).filteredOn(c -> c.startsWith("PATCH")).hasSize(2);
    assertThat(s.git.originHead("main")).isEqualTo(made.get(1).sha());
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/extra.yaml", "signed/config/flags.yaml")
        .noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(s.sleeps).hasSize(1);
    s.assertVerifies("main");
  }

  @Test
  void pullRequestMode_putsAnApiCommitOnTheBotBranch_thenUpdatesItWithALease() throws Exception {
    CliRun first = s.run("--sign-commits", "--mode", "pull-request");

    assertThat(first.exitCode()).as(first.all()).isZero();
    FakeGitData.MadeCommit made = s.github.apiCommits().get(0);
    assertThat(made.verified()).isTrue();
    assertThat(made.parents()).containsExactly(mainHead);
    assertThat(s.git.originHead(BOT)).isEqualTo(made.sha());
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
    assertThat(gitDataCalls()).contains("POST " + REPO + "/git/refs");
    assertThat(s.outputs())
        .containsEntry("result", "created")
        .containsEntry("pull-request-head-sha", made.sha())
        .containsEntry("commit-sha", made.sha());
    assertThat(s.github.hosted(273).orElseThrow().head()).isEqualTo(BOT);
    s.assertVerifies(BOT);

    // A new manifest lands on main: the bot branch is rebuilt on it (leased, forced) through the
    // API.
    String newMain =
        s.git.commitToOrigin(
            "main",
            Map.of("unsigned/config/more.yaml", ActionPipelineTest.configMap("more", "2")),
            Set.of(),
            "more");
    s.github.clearRequests();
    CliRun second = s.run("--sign-commits", "--mode", "pull-request");

    assertThat(second.exitCode()).as(second.all()).isZero();
    FakeGitData.MadeCommit rebuilt = s.github.apiCommits().get(1);
    assertThat(rebuilt.parents()).containsExactly(newMain);
    assertThat(s.git.originHead(BOT)).isEqualTo(rebuilt.sha());
    assertThat(gitDataCalls())
        .contains(
            "GET " + REPO + "/git/refs/heads/" + BOT, "PATCH " + REPO + "/git/refs/heads/" + BOT);
    JsonNode ref =
        JSON.readTree(
            s.github
                .server()
                .findAll(
                    com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor(
                        urlMatching(".*/git/refs/heads/" + BOT)))
                .get(0)
                .getBodyAsString());
    assertThat(ref.get("force").asBoolean()).isTrue();
    assertThat(s.outputs()).containsEntry("result", "updated");
    s.assertVerifies(BOT);
  }

  @Test
  void pullRequestMode_whenSomeoneElsePushedToTheBotBranch_theLeaseRefuses_andNothingIsOverwritten()
      throws Exception {
    CliRun first = s.run("--sign-commits", "--mode", "pull-request");
    assertThat(first.exitCode()).as(first.all()).isZero();
    s.git.commitToOrigin(
        "main",
        Map.of("unsigned/config/more.yaml", ActionPipelineTest.configMap("more", "2")),
        Set.of(),
        "more");
    String[] theirs = new String[1];
    s.github.beforeNext(
        "GET",
        ".*/git/refs/heads/" + BOT,
        () -> {
          try {
            theirs[0] =
                s.git.commitToOrigin(BOT, Map.of("notes.md", "mine\n"), Set.of(), "someone else");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });

    CliRun second = s.run("--sign-commits", "--mode", "pull-request");

    assertThat(second.exitCode()).as(second.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(second.err())
        .contains("The push to " + BOT + " was rejected")
        .contains("someone else pushed to it");
    assertThat(s.git.originHead(BOT)).isEqualTo(theirs[0]);
    assertThat(s.github.apiCommits()).hasSize(1);
  }

  @Test
  void pushMode_aMergeLandingRightAfterTheApiCommit_isStillAPush_andTheCheckoutHoldsTheApiCommit()
      throws Exception {
    Path ws = s.git.clone("raced", 0, false);
    mergeRightAfterTheApiUpdatesMain();

    CliRun run = s.runIn(ws, s.env(), "--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isZero();
    String made = s.github.apiCommits().get(0).sha();
    assertThat(s.outputs()).containsEntry("result", "pushed").containsEntry("commit-sha", made);
    assertThat(s.git.originHead("main")).isNotEqualTo(made);
    assertThat(s.git.originFiles("main")).containsKeys("docs/next.md", "signed/config/flags.yaml");
    try (Repository repository = GitFixture.open(ws)) {
      assertThat(repository.getFullBranch()).isEqualTo("refs/heads/main");
      assertThat(repository.resolve("HEAD").name())
          .as("the commit GitHub made, which the fetch of the moved branch brought along")
          .isEqualTo(made);
    }
  }

  @Test
  void pushMode_aMergeLandingRightAfterTheApiCommit_inAShallowClone_isStillAPush()
      throws Exception {
    Path ws = s.git.clone("raced-shallow", 1, false);
    mergeRightAfterTheApiUpdatesMain();

    CliRun run = s.runIn(ws, s.env(), "--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isZero();
    String made = s.github.apiCommits().get(0).sha();
    assertThat(s.outputs()).containsEntry("result", "pushed").containsEntry("commit-sha", made);
    try (Repository repository = GitFixture.open(ws);
        org.eclipse.jgit.revwalk.RevWalk walk = new org.eclipse.jgit.revwalk.RevWalk(repository)) {
      // One commit deep, the fetch does not bring GitHub's commit: HEAD keeps the local commit of
      // the same change, on main, which a later run takes for countersign's own.
      assertThat(repository.getFullBranch()).isEqualTo("refs/heads/main");
      RevCommit head = walk.parseCommit(repository.resolve("HEAD"));
      assertThat(head.getTree().name()).isEqualTo(s.github.apiCommits().get(0).tree());
    }
    CliRun again = s.runIn(ws, s.env(), "--sign-commits");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).contains("was made by countersign");
  }

  /**
   * Another merge lands on origin's main just after GitHub moves main to the commit it made through
   * the API, before countersign fetches it.
   */
  private void mergeRightAfterTheApiUpdatesMain() {
    s.github.afterNext(
        "PATCH",
        ".*/git/refs/heads/main",
        () -> {
          try {
            s.git.commitToOrigin("main", Map.of("docs/next.md", "next\n"), Set.of(), "next");
          } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        });
  }

  @Test
  void pushMode_onAProtectedBranch_goesThroughAPullRequest_withAnApiCommit() throws Exception {
    s.github.protect("main");

    CliRun run = s.run("--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
    assertThat(s.git.originHead(BOT)).isEqualTo(s.github.apiCommits().get(0).sha());
    assertThat(s.outputs()).containsEntry("result", "created");
    assertThat(gitDataCalls()).noneMatch(c -> c.endsWith("/git/refs/heads/main"));
  }

  @Test
  void withoutARepository_signCommitsIsAnEnvironmentProblem_andNothingIsPushed() throws Exception {
    Map<String, String> env = new java.util.HashMap<>(s.env());
    env.remove("GITHUB_REPOSITORY");
    Path ws = s.git.clone("bare-env", 0, false);

    CliRun run =
        CliRun.run(
            s.sleeps::add, env, "run", "--repo", ws.toString(), "--no-sign", "--sign-commits");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
  }
}
