package dev.countersign.cli;

import static dev.countersign.cli.GitHubSession.BOT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.github.FakeGitHub;
import dev.countersign.github.GitHubRetryPolicy;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.HostedPullRequest;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How {@code countersign run --mode pull-request} behaves when GitHub's REST API misbehaves the
 * ways it really does, against the REST fake (answers shaped as GitHub documents them, state kept
 * in a real bare origin). Each case checks the exit code, the requests sent, the branch and pull
 * request left behind, and that the next run heals whatever was left.
 */
class GitHubFaultsTest {

  private static final String PULLS = ".*/repos/" + FakeGitHub.REPOSITORY + "/pulls";
  private static final String CREATE = "POST /repos/" + FakeGitHub.REPOSITORY + "/pulls";
  private static final String SECONDARY =
      "{\"message\":\"You have exceeded a secondary rate limit. Please wait a few minutes before"
          + " you try again. If you reach out to GitHub Support for help, please include the"
          + " request ID"
          + " 1234:5678.\",\"documentation_url\":\"https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"
          + "#about-secondary-rate-limits\",\"status\":\"403\"}";
  private static final String HTML_502 =
      "<!DOCTYPE html>\n<html><head><title>Unicorn! &middot; GitHub</title></head>"
          + "<body><p>We had issues producing the response to your request.</p>"
          + "<!-- padding -->".repeat(200)
          + "</body></html>";

  @TempDir java.nio.file.Path tmp;
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

  private CliRun pullRequestRun(String... extra) throws Exception {
    String[] args = new String[extra.length + 2];
    args[0] = "--mode";
    args[1] = "pull-request";
    System.arraycopy(extra, 0, args, 2, extra.length);
    return s.run(args);
  }

  /**
   * The state a healthy run leaves: the bot branch one signed commit on main, one open PR
   * describing it.
   */
  private void assertHealed(String result) throws Exception {
    assertThat(s.outputs())
        .containsEntry("result", result)
        .containsEntry("pull-request-number", "273")
        .containsEntry("pull-request-branch", BOT)
        .containsEntry("pull-request-head-sha", s.git.originHead(BOT));
    assertThat(s.git.originHead("main")).isEqualTo(mainHead);
    assertThat(s.git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
    assertThat(s.git.originFiles(BOT).keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml")
        .noneMatch(p -> p.startsWith("unsigned/"));
    HostedPullRequest pr = s.github.hosted(273).orElseThrow();
    assertThat(pr.open()).isTrue();
    assertThat(pr.head()).isEqualTo(BOT);
    assertThat(pr.body())
        .contains("| <code>signed/config/flags.yaml</code> | added |")
        .contains("This pull request adds newly signed manifests")
        .doesNotContain("promotes");
    assertThat(s.github.hosted(274)).isEmpty();
    s.assertVerifies(BOT);
  }

  /** A run after a healthy state changes nothing: no signing, no push, no write to GitHub. */
  private void assertRerunIsQuiet() throws Exception {
    String tip = s.git.originHead(BOT);
    s.github.clearRequests();
    CliRun again = pullRequestRun();
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "noop");
    assertThat(s.git.originHead(BOT)).isEqualTo(tip);
    assertThat(s.writes()).isEmpty();
  }

  @Test
  void serverError500Once_isRetriedAfterABackoff() throws Exception {
    s.github.failNext("POST", PULLS, 500, "{\"message\":\"Server Error\"}", 1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.writes()).filteredOn(CREATE::equals).hasSize(2);
    assertThat(s.sleeps)
        .singleElement()
        .satisfies(d -> assertThat(d).isBetween(Duration.ofMillis(500), Duration.ofMillis(1500)));
    assertThat(run.all()).contains("answered HTTP 500 (Server Error); trying again");
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void badGateway502Once_withAnHtmlPage_isRetried_andThePageIsNeverQuoted() throws Exception {
    s.github.failNext("GET", PULLS, 502, HTML_502, 1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all())
        .contains(
            "HTTP 502 (an HTML page \"Unicorn! &middot; GitHub\" of "
                + HTML_502.length()
                + " characters instead of GitHub's JSON)")
        .doesNotContain("<html")
        .doesNotContain("padding");
    assertThat(s.sleeps).hasSize(1);
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void aHostileErrorPage_cannotInjectWorkflowCommands() throws Exception {
    s.github.failNext(
        "GET",
        PULLS,
        502,
        "<html><head><title>\n::add-mask::x\n::set-env name=JAVA_TOOL_OPTIONS::"
            + "-javaagent:/tmp/evil.jar</title></head></html>",
        1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out().lines())
        .noneMatch(l -> l.startsWith("::set-env") || l.startsWith("::add-mask::x"));
    assertThat(run.out())
        .contains("an HTML page \"::add-mask::x ::set-env name=JAVA_TOOL_OPTIONS::");
    assertHealed("created");
  }

  @Test
  void secondaryRateLimit403_withRetryAfter_waitsExactlyThat_thenSucceeds() throws Exception {
    s.github.failNext(
        "POST",
        PULLS,
        403,
        Map.of("Retry-After", "7", "x-ratelimit-remaining", "4990"),
        SECONDARY,
        1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.sleeps).containsExactly(Duration.ofSeconds(7));
    assertThat(run.all())
        .doesNotContain("Abuse limit reached")
        .doesNotContain("pull-requests: write");
    assertThat(s.writes()).filteredOn(CREATE::equals).hasSize(2);
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void secondaryRateLimit403_withoutRetryAfter_waitsAMinute_thenSucceeds() throws Exception {
    s.github.failNext("POST", PULLS, 403, Map.of(), SECONDARY, 1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.sleeps).containsExactly(Duration.ofSeconds(60));
    assertThat(s.writes()).filteredOn(CREATE::equals).hasSize(2);
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void secondaryRateLimit_thatPersists_exits4WithGitHubsMessage_andTheStateLeft_thenTheRerunHeals()
      throws Exception {
    s.github.failNext("POST", PULLS, 403, Map.of("Retry-After", "30"), SECONDARY, 3);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains(
            "GitHub's rate limit stopped countersign (HTTP 403: You have exceeded a secondary"
                + " rate limit.")
        .contains(
            "still limited after 3 tries) while opening a pull request from " + BOT + " into main")
        .contains("State left: " + BOT + " now holds ")
        .contains(
            "but no pull request is open for it; the next run opens the pull request without"
                + " signing again")
        .doesNotContain("Abuse limit reached");
    assertThat(s.sleeps).containsExactly(Duration.ofSeconds(30), Duration.ofSeconds(30));
    String tip = s.git.originHead(BOT);
    assertThat(s.outputs())
        .containsEntry("result", "failed")
        .containsEntry("pull-request-number", "")
        .containsEntry("commit-sha", tip)
        .containsEntry("pull-request-branch", BOT)
        .containsEntry("pull-request-head-sha", tip);
    assertThat(s.github.hosted(273)).isEmpty();

    CliRun heal = pullRequestRun();

    assertThat(heal.exitCode()).as(heal.all()).isZero();
    assertThat(s.git.originHead(BOT))
        .as("the proposed signatures are reused, nothing re-signed or pushed")
        .isEqualTo(tip);
    assertHealed("created");
  }

  @Test
  void tooManyRequests429_waitsRetryAfter_thenSucceeds() throws Exception {
    s.github.failNext(
        "GET", PULLS, 429, Map.of("Retry-After", "3"), "{\"message\":\"Too Many Requests\"}", 1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.sleeps).containsExactly(Duration.ofSeconds(3));
    assertThat(s.github.requests())
        .filteredOn(r -> r.endsWith("/pulls"))
        .startsWith(
            "GET /repos/" + FakeGitHub.REPOSITORY + "/pulls",
            "GET /repos/" + FakeGitHub.REPOSITORY + "/pulls");
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void primaryRateLimit_resettingInAnHour_isNotWaited_exits4BeforePushingAnything_andTheRerunHeals()
      throws Exception {
    long reset = Instant.now().plusSeconds(3600).getEpochSecond();
    s.github.failNext(
        "GET",
        PULLS,
        403,
        Map.of(
            "x-ratelimit-limit",
            "5000",
            "x-ratelimit-remaining",
            "0",
            "x-ratelimit-reset",
            Long.toString(reset)),
        "{\"message\":\"API rate limit exceeded for installation ID 4242.\",\"documentation_url\":"
            + "\"https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting\"}",
        1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains(
            "HTTP 403: API rate limit exceeded for installation ID 4242.; see"
                + " https://docs.github.com/rest/overview/resources-in-the-rest-api#rate-limiting")
        .contains("until the limit resets at " + Instant.ofEpochSecond(reset))
        .contains("longer than the 90 s countersign waits");
    assertThat(s.sleeps).isEmpty();
    // The pull request lookup comes before the push: nothing changed anywhere.
    assertThat(s.git.originHead(BOT)).isNull();
    assertThat(s.writes()).isEmpty();
    assertThat(s.github.hosted(273)).isEmpty();

    CliRun heal = pullRequestRun();
    assertThat(heal.exitCode()).as(heal.all()).isZero();
    assertHealed("created");
  }

  @Test
  void primaryRateLimit_resettingSoon_waitsUntilTheReset() throws Exception {
    long reset = Instant.now().plusSeconds(20).getEpochSecond();
    s.github.failNext(
        "GET",
        PULLS,
        403,
        Map.of("x-ratelimit-remaining", "0", "x-ratelimit-reset", Long.toString(reset)),
        "{\"message\":\"API rate limit exceeded for installation ID 4242.\"}",
        1);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.sleeps)
        .singleElement()
        .satisfies(d -> assertThat(d).isBetween(Duration.ofSeconds(5), Duration.ofSeconds(22)));
    assertHealed("created");
  }

  @Test
  void alreadyExists422_fromARaceWithAnotherRun_adoptsThatPullRequest_andReportsUpdated()
      throws Exception {
    s.github.beforeNext(
        "POST",
        PULLS,
        () ->
            s.github.seedOpen(
                PullRequestDraft.of(
                    "countersign: sign manifests on main", "an older body", BOT, "main")));

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.writes()).contains(CREATE, "PATCH /repos/" + FakeGitHub.REPOSITORY + "/pulls/273");
    assertThat(s.github.hosted(273).orElseThrow().body()).doesNotContain("an older body");
    assertHealed("updated");
    assertRerunIsQuiet();
  }

  @Test
  void persistentServerErrors_onCreate_exit4_nameTheStateLeft_andTheRerunHeals() throws Exception {
    s.github.failNext("POST", PULLS, 502, HTML_502, 3);

    CliRun run = pullRequestRun();

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains("GitHub answered HTTP 502 (an HTML page \"Unicorn! &middot; GitHub\"")
        .contains("on 3 tries in a row while opening a pull request from " + BOT + " into main")
        .contains("State left: " + BOT + " now holds")
        .contains("the next run opens the pull request")
        .doesNotContain("<html");
    assertThat(s.writes()).filteredOn(CREATE::equals).hasSize(3);
    assertThat(s.sleeps).hasSize(2);
    assertThat(s.outputs())
        .containsEntry("result", "failed")
        .containsEntry("pull-request-branch", BOT);
    assertThat(s.github.hosted(273)).isEmpty();
    String tip = s.git.originHead(BOT);

    CliRun heal = pullRequestRun();
    assertThat(heal.exitCode()).as(heal.all()).isZero();
    assertThat(s.git.originHead(BOT)).isEqualTo(tip);
    assertHealed("created");
    assertRerunIsQuiet();
  }

  @Test
  void reviewerWhoIsNotACollaborator_isAWarning_andTheOutputsNameThePullRequest() throws Exception {
    s.github.failNext(
        "POST",
        PULLS + "/\\d+/requested_reviewers",
        422,
        "{\"message\":\"Reviews may only be requested from collaborators. One or more of the users"
            + " or teams you specified is not a collaborator of the hub4j-test-org/github-api"
            + " repository.\"}",
        1);

    CliRun run =
        pullRequestRun(
            "--reviewer",
            "outsider",
            "--assignee",
            "octocat",
            "--label",
            "signing",
            "--body",
            "Generated by the nightly job.");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains(
            "::warning::GitHub answered HTTP 422 (Reviews may only be requested from"
                + " collaborators.");
    assertHealed("created");
    assertThat(s.outputs())
        .containsEntry(
            "pull-request-url", "https://github.com/" + FakeGitHub.REPOSITORY + "/pull/273");
    HostedPullRequest pr = s.github.hosted(273).orElseThrow();
    assertThat(pr.labels()).containsExactly("signing");
    assertThat(s.github.assignees(273)).containsExactly("octocat");
    assertThat(pr.body())
        .startsWith(
            "<!-- countersign:promotion -->\nGenerated by the nightly job.\n\nThis pull request"
                + " adds newly signed manifests");
  }

  @Test
  void aMergedBotBranch_isDeletedWithDeleteBranch() throws Exception {
    CliRun first = pullRequestRun();
    assertThat(first.exitCode()).as(first.all()).isZero();
    // A person merges the pull request (GitHub leaves the branch unless the repository deletes head
    // branches).
    s.github.merge(273);
    s.git.commitToOrigin(
        "main",
        s.git.originFiles(BOT),
        Set.of("unsigned/config/flags.yaml", "unsigned/egress/payments.yaml"),
        "Merge pull request #273");
    s.github.clearRequests();

    CliRun after = pullRequestRun("--delete-branch");

    assertThat(after.exitCode()).as(after.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "noop");
    assertThat(after.out()).contains("deleted " + BOT + ", whose pull request was merged");
    assertThat(s.git.originHead(BOT)).isNull();
    assertThat(s.writes())
        .containsExactly("DELETE /repos/" + FakeGitHub.REPOSITORY + "/git/refs/heads/" + BOT);
  }

  @Test
  void anUnmergedBotBranch_isKept_evenWithDeleteBranch() throws Exception {
    CliRun first = pullRequestRun();
    assertThat(first.exitCode()).as(first.all()).isZero();
    // A person closes the pull request without merging it, through the API as a click would.
    new dev.countersign.github.GitHubPullRequestHost(
            s.github.baseUrl(), FakeGitHub.REPOSITORY, GitHubSession.TOKEN, d -> {})
        .close(
            new dev.countersign.promotion.PullRequest(
                273, "u", BOT, "main", "t", "", false, Set.of(), false, java.util.List.of()));
    s.git.commitToOrigin(
        "main",
        Map.of(),
        Set.of("unsigned/config/flags.yaml", "unsigned/egress/payments.yaml"),
        "dropped by hand");

    CliRun after = pullRequestRun("--delete-branch");

    assertThat(after.exitCode()).as(after.all()).isZero();
    assertThat(s.git.originHead(BOT)).isNotNull();
  }

  @Test
  void pushMode_onABranchGitHubSaysIsProtected_goesStraightToThePullRequest_withoutARefusedPush()
      throws Exception {
    s.git.protectBranch("main");
    s.github.protect("main");

    CliRun run = s.run();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all())
        .contains("GitHub says main is protected")
        .doesNotContain("GH006")
        .doesNotContain("refused");
    assertThat(s.github.requests())
        .contains("GET /repos/" + FakeGitHub.REPOSITORY + "/branches/main");
    assertHealed("created");
  }

  @Test
  void pushMode_onAnUnprotectedBranch_stillPushesDirectly() throws Exception {
    CliRun run = s.run();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "pushed");
    assertThat(s.git.originFiles("main").keySet()).contains("signed/config/flags.yaml");
    assertThat(s.writes()).isEmpty();
    assertThat(s.git.originHead(BOT)).isNull();

    // Nothing left to sign: the next run asks GitHub nothing at all.
    s.github.clearRequests();
    CliRun again = s.run();
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "noop");
    assertThat(s.github.requests()).isEmpty();
  }

  /**
   * Whether the branch is protected is only a shortcut: with GitHub's API unreachable (a runner
   * whose network cannot reach GITHUB_API_URL) the run still pushes, after the tries the retry
   * policy allows for the one request that could not be answered, and says so.
   */
  @Test
  void pushMode_withGitHubsApiUnreachable_stillPushesDirectly_afterTheRetriesOfOneRequest()
      throws Exception {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    Map<String, String> env = s.env();
    env.put("GITHUB_API_URL", "http://127.0.0.1:" + closedPort);

    CliRun run = s.runWith(env);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(s.outputs()).containsEntry("result", "pushed");
    assertThat(s.git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml")
        .noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(s.git.originHead(BOT)).isNull();
    assertThat(s.github.requests()).isEmpty();
    // GET /repos/{owner}/{repo} tried GitHubRetryPolicy.ATTEMPTS times; the branch was never asked.
    assertThat(s.sleeps).hasSize(GitHubRetryPolicy.ATTEMPTS - 1);
    assertThat(run.all())
        .contains("GitHub: GET /repos/" + FakeGitHub.REPOSITORY + " got no answer")
        .doesNotContain("/branches/")
        .doesNotContain("is protected");
  }
}
