package dev.countersign.github;

import static com.github.tomakehurst.wiremock.client.WireMock.any;
import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.okJson;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.tomakehurst.wiremock.WireMockServer;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.HostedPullRequest;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kohsuke.github.HttpException;

/**
 * What only the GitHub adapter has: laziness, the token, and how GitHub's failures are reported.
 */
class GitHubPullRequestHostTest {

  private static final String TOKEN = "ghs_adapterTestToken";
  private static final String PERMISSIONS_HINT =
      "perhaps you should give the job \"permissions: pull-requests: write\" (and \"contents:"
          + " write\" to push the branch), or pass a token that has them (see"
          + " docs/github-token.md)";
  private static final PullRequestDraft PROMOTION =
      PullRequestDraft.of("Promote signed manifests", "body", "promote/signed", "main");

  private final FakeGitHub github = FakeGitHub.start(TOKEN);
  private final List<Duration> sleeps = new ArrayList<>();

  @AfterEach
  void stop() {
    github.close();
  }

  private GitHubPullRequestHost host(String token) {
    return new GitHubPullRequestHost(github.baseUrl(), FakeGitHub.REPOSITORY, token, sleeps::add);
  }

  @Test
  void constructor_sendsNoRequest() {
    host(TOKEN);
    new GitHubPullRequestHost("http://127.0.0.1:9", "o/r", TOKEN, sleeps::add);

    assertThat(github.server().getAllServeEvents()).isEmpty();
  }

  @Test
  void fromEnvironment_usesGitHubApiUrlAndRepository() {
    Env env =
        Env.of(
            Map.of("GITHUB_API_URL", github.baseUrl(), "GITHUB_REPOSITORY", FakeGitHub.REPOSITORY));
    GitHubPullRequestHost host = GitHubPullRequestHost.fromEnvironment(env, TOKEN, sleeps::add);

    assertThat(host.create(PROMOTION).number()).isEqualTo(273);
    assertThat(github.hosted(273)).isPresent();
  }

  @Test
  void constructor_withoutToken_isEnvironmentProblem() {
    assertThatThrownBy(() -> host(" "))
        .isInstanceOfSatisfying(
            EnvironmentProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "No GitHub token while preparing to open the promotion pull request for "
                          + FakeGitHub.REPOSITORY);
              assertThat(p.hint())
                  .contains(
                      "perhaps you should pass \"token: ${{ github.token }}\" or a GitHub App token"
                          + " to the step");
            });
  }

  @Test
  void fromEnvironment_withoutRepository_isEnvironmentProblem() {
    assertThatThrownBy(() -> GitHubPullRequestHost.fromEnvironment(Env.empty(), TOKEN, sleeps::add))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage(
            "No repository in owner/name form (got \"null\") while preparing to open the"
                + " promotion pull request");
  }

  @Test
  void create_withRejectedToken_isEnvironmentProblemNaming401() {
    assertThatThrownBy(() -> host("ghs_expired").create(PROMOTION))
        .isInstanceOfSatisfying(
            EnvironmentProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "GitHub rejected the token (HTTP 401: Bad credentials; see"
                          + " https://docs.github.com/rest) while opening a pull request from"
                          + " promote/signed into main");
              assertThat(p.hint())
                  .get()
                  .asString()
                  .startsWith("perhaps you should check the token");
              assertThat(p.exitCode()).isEqualTo(ExitCode.ENVIRONMENT);
              assertThat(p.getMessage() + p.hint().orElse("")).doesNotContain("ghs_expired");
            });
  }

  @Test
  void create_withoutPullRequestsWritePermission_isEnvironmentProblemWithPermissionsHint() {
    github.failNext(
        "POST",
        ".*/pulls",
        403,
        "{\"message\":\"Resource not accessible by integration\",\"documentation_url\":"
            + "\"https://docs.github.com/rest/pulls/pulls#create-a-pull-request\"}",
        1);

    assertThatThrownBy(() -> host(TOKEN).create(PROMOTION))
        .isInstanceOfSatisfying(
            EnvironmentProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "GitHub refused access (HTTP 403: Resource not accessible by integration; see"
                          + " https://docs.github.com/rest/pulls/pulls#create-a-pull-request) while"
                          + " opening a pull request from promote/signed into main");
              assertThat(p.hint()).contains(PERMISSIONS_HINT);
              assertThat(p.getCause()).isInstanceOf(HttpException.class);
            });
  }

  @Test
  void findOpen_whenGitHubKeepsFailing_givesUpAfterThreeTries_namingStatusAndOperation() {
    github.failNext("GET", ".*/pulls", 502, "{\"message\":\"Server Error\"}", 5);

    assertThatThrownBy(() -> host(TOKEN).findOpen("promote/signed", "main"))
        .isInstanceOfSatisfying(
            RemoteProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "GitHub answered HTTP 502 (Server Error) on 3 tries in a row while looking"
                          + " for an open pull request from promote/signed into main");
              assertThat(p.hint()).get().asString().startsWith("perhaps you should retry later");
              assertThat(p.exitCode()).isEqualTo(ExitCode.REMOTE);
            });
    assertThat(github.requests()).filteredOn(r -> r.endsWith("/pulls")).hasSize(3);
    assertThat(sleeps).hasSize(2);
  }

  @Test
  void findOpen_whenTheRateLimitResetsBeyondAnyDate_isRemoteProblem_notAnInternalError() {
    github.failNext(
        "GET",
        ".*/pulls",
        403,
        Map.of("x-ratelimit-remaining", "0", "x-ratelimit-reset", Long.toString(Long.MAX_VALUE)),
        "{\"message\":\"API rate limit exceeded for installation ID 4242.\"}",
        1);

    assertThatThrownBy(() -> host(TOKEN).findOpen("promote/signed", "main"))
        .isInstanceOfSatisfying(
            RemoteProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "GitHub's rate limit stopped countersign (HTTP 403: API rate limit exceeded"
                          + " for installation ID 4242.; GitHub asks to wait until epoch second "
                          + Long.MAX_VALUE
                          + ", longer than the 90 s countersign waits) while looking for an open"
                          + " pull request from promote/signed into main");
              assertThat(p.exitCode()).isEqualTo(ExitCode.REMOTE);
            });
    assertThat(sleeps).isEmpty();
  }

  @Test
  void create_whenLabelsNeverResolve_givesUpAfterBoundedBackoff_andTheOpenedPullRequestStands() {
    github.failNext(
        "POST",
        ".*/issues/\\d+/labels",
        422,
        "{\"message\":\"Validation Failed\",\"errors\":[{\"message\":\"Could not resolve to a node"
            + " with the global id of 'PR_x'.\"}]}",
        10);

    var created = host(TOKEN).create(PROMOTION.withLabels(List.of("promotion")));

    assertThat(created.number()).isEqualTo(273);
    assertThat(created.warnings())
        .containsExactly(
            "GitHub answered HTTP 422 (Validation Failed: Could not resolve to a node with the"
                + " global id of 'PR_x'.) while adding labels [promotion] to pull request #273");
    assertThat(sleeps)
        .containsExactly(
            Duration.ofSeconds(1),
            Duration.ofSeconds(2),
            Duration.ofSeconds(4),
            Duration.ofSeconds(8));
    github
        .server()
        .verify(GitHubPullRequestHost.NODE_ATTEMPTS, postRequestedFor(urlMatching(".*/labels")));
    assertThat(github.hosted(273)).get().extracting(HostedPullRequest::open).isEqualTo(true);
  }

  @Test
  void create_whenLabelRefusedForAnotherReason_doesNotRetry_andWarns() {
    github.failNext(
        "POST",
        ".*/issues/\\d+/labels",
        422,
        "{\"message\":\"Validation Failed\",\"errors\":[{\"message\":\"name is too long\"}]}",
        1);

    var created = host(TOKEN).create(PROMOTION.withLabels(List.of("x".repeat(60))));

    assertThat(created.warnings())
        .singleElement()
        .asString()
        .contains("(Validation Failed: name is too long)");
    assertThat(sleeps).isEmpty();
  }

  @Test
  void create_whenAReviewerIsNotACollaborator_opensThePullRequest_andReturnsAWarning() {
    github.failNext(
        "POST",
        ".*/pulls/\\d+/requested_reviewers",
        422,
        "{\"message\":\"Reviews may only be requested from collaborators. One or more of the users"
            + " or teams you specified is not a collaborator of the hub4j-test-org/github-api"
            + " repository.\",\"documentation_url\":"
            + "\"https://docs.github.com/rest/pulls/review-requests#request-reviewers-for-a-pull-request\"}",
        1);

    var created =
        host(TOKEN)
            .create(
                PROMOTION
                    .withReviewers(List.of("outsider"), List.of())
                    .withAssignees(List.of("octocat")));

    assertThat(created.number()).isEqualTo(273);
    assertThat(created.warnings())
        .singleElement()
        .asString()
        .startsWith("GitHub answered HTTP 422 (Reviews may only be requested from collaborators.")
        .contains("while requesting reviews from [outsider] on pull request #273");
    assertThat(github.assignees(273)).containsExactly("octocat");
    assertThat(sleeps).isEmpty();
  }

  @Test
  void create_whenAlreadyExistsButNoneListed_isRemoteProblem() {
    github.failNext(
        "POST",
        ".*/pulls",
        422,
        "{\"message\":\"Validation Failed\",\"errors\":[{\"message\":\"A pull request already"
            + " exists for hub4j-test-org:promote/signed.\"}]}",
        1);

    assertThatThrownBy(() -> host(TOKEN).create(PROMOTION))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage(
            "GitHub (HTTP 422) said a pull request already exists for promote/signed but lists none"
                + " open into main while opening a pull request from promote/signed into main");
  }

  @Test
  void findOpen_forUnknownRepository_isEnvironmentProblem() {
    GitHubPullRequestHost host =
        new GitHubPullRequestHost(github.baseUrl(), "hub4j-test-org/nope", TOKEN, sleeps::add);

    assertThatThrownBy(() -> host.findOpen("promote/signed", "main"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage(
            "GitHub found no repository hub4j-test-org/nope (HTTP 404) while looking for an open"
                + " pull request from promote/signed into main");
  }

  @Test
  void findOpen_whenGitHubUnreachable_isRemoteProblemNamingTheEndpoint() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0)) {
      closedPort = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closedPort;
    GitHubPullRequestHost host =
        new GitHubPullRequestHost(url, FakeGitHub.REPOSITORY, TOKEN, sleeps::add);

    assertThatThrownBy(() -> host.findOpen("promote/signed", "main"))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage(
            "Could not reach GitHub at "
                + url
                + " (ConnectException) on 3 tries in a row while looking"
                + " for an open pull request from promote/signed into main")
        .extracting(e -> ((CountersignException) e).hint().orElseThrow())
        .isEqualTo("perhaps you should retry, or check GITHUB_API_URL and the runner's network");
  }

  /** A host whose every request must be answered in full within {@code deadline}. */
  private GitHubPullRequestHost hostWithDeadline(Duration deadline) {
    return new GitHubPullRequestHost(
        new GitHubApi(
            github.baseUrl(),
            FakeGitHub.REPOSITORY,
            TOKEN,
            new GitHubRetryPolicy(Clock.systemUTC(), RandomGenerator.of("L32X64MixRandom")),
            sleeps::add,
            line -> {},
            deadline));
  }

  @Test
  void findOpen_whenAnAnswerTricklesWithinTheDeadline_readsIt() {
    github.seedOpen(PROMOTION);
    github.trickleNext("GET", ".*/pulls", Duration.ofMillis(200), 1);

    assertThat(hostWithDeadline(Duration.ofSeconds(5)).findOpen("promote/signed", "main"))
        .get()
        .extracting(pr -> pr.number())
        .isEqualTo(273);
    assertThat(sleeps).isEmpty();
  }

  @Test
  void findOpen_whenTheFirstAnswerTricklesPastTheDeadline_abandonsIt_andUsesTheRetry() {
    github.seedOpen(PROMOTION);
    github.trickleNext("GET", ".*/pulls", Duration.ofSeconds(30), 1);
    long start = System.nanoTime();

    assertThat(hostWithDeadline(Duration.ofMillis(700)).findOpen("promote/signed", "main"))
        .get()
        .extracting(pr -> pr.number())
        .isEqualTo(273);
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
    assertThat(github.requests()).filteredOn(r -> r.endsWith("/pulls")).hasSize(2);
    assertThat(sleeps).hasSize(1);
  }

  @Test
  void findOpen_whenEveryAnswerTricklesPastTheDeadline_isRemoteProblemAfterThreeTries() {
    github.trickleNext("GET", ".*/pulls", Duration.ofSeconds(30), 3);
    long start = System.nanoTime();

    assertThatThrownBy(
            () -> hostWithDeadline(Duration.ofMillis(700)).findOpen("promote/signed", "main"))
        .isInstanceOfSatisfying(
            RemoteProblem.class,
            p -> {
              assertThat(p.getMessage())
                  .isEqualTo(
                      "Could not reach GitHub at "
                          + github.baseUrl()
                          + " (HttpTimeoutException: 127.0.0.1:"
                          + github.server().port()
                          + " did not answer in time (700 ms for the whole request)) on 3 tries"
                          + " in a row while looking for an open pull request from"
                          + " promote/signed into main");
              assertThat(p.exitCode()).isEqualTo(ExitCode.REMOTE);
            });
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
    assertThat(github.requests()).filteredOn(r -> r.endsWith("/pulls")).hasSize(3);
  }

  @Test
  void findOpen_followsANextPageLinkOnTheApi() {
    github.seedOpen(PROMOTION);
    github.failNext(
        "GET",
        ".*/pulls",
        200,
        Map.of(
            "Link",
            "<"
                + github.baseUrl()
                + "/repos/"
                + FakeGitHub.REPOSITORY
                + "/pulls?state=open&head="
                + FakeGitHub.OWNER
                + ":promote/signed&base=main&page=2>; rel=\"next\""),
        "[]",
        1);

    assertThat(host(TOKEN).findOpen("promote/signed", "main"))
        .get()
        .extracting(pr -> pr.number())
        .isEqualTo(273);
    assertThat(github.requests()).filteredOn(r -> r.endsWith("/pulls")).hasSize(2);
  }

  @Test
  void findOpen_whenANextPageLinkPointsAtAnotherHost_sendsNothingThere() {
    WireMockServer elsewhere = new WireMockServer(options().dynamicPort().bindAddress("127.0.0.1"));
    elsewhere.start();
    try {
      elsewhere.stubFor(any(anyUrl()).willReturn(okJson("[]")));
      String page = "http://127.0.0.1:" + elsewhere.port() + "/collect?page=2";
      github.failNext(
          "GET", ".*/pulls", 200, Map.of("Link", "<" + page + ">; rel=\"next\""), "[]", 1);

      assertThatThrownBy(() -> host(TOKEN).findOpen("promote/signed", "main"))
          .isInstanceOfSatisfying(
              RemoteProblem.class,
              p -> {
                assertThat(p.getMessage())
                    .isEqualTo(
                        "countersign did not send GET "
                            + page
                            + ": it is not on the GitHub API at "
                            + github.baseUrl()
                            + ", and the token goes only there");
                assertThat(p.exitCode()).isEqualTo(ExitCode.REMOTE);
              });
      assertThat(elsewhere.getAllServeEvents()).isEmpty();
      assertThat(sleeps).isEmpty();
    } finally {
      elsewhere.stop();
    }
  }

  @Test
  void errorBodySummary_readsGitHubErrorBodiesAndFallsBackToText() {
    assertThat(
            GitHubErrorBody.summary(
                "{\"message\":\"Validation"
                    + " Failed\",\"errors\":[{\"message\":\"a\"},{\"code\":\"missing\"},{\"message\":\"b\"}]}"))
        .isEqualTo("Validation Failed: a: b");
    assertThat(GitHubErrorBody.summary("<html>\n  Bad gateway </html>"))
        .isEqualTo("an HTML page of 28 characters instead of GitHub's JSON");
    assertThat(
            GitHubErrorBody.summary(
                "<!DOCTYPE html><html><head><title>Unicorn! &middot; GitHub</title>"
                    + "</head><body>"
                    + "x".repeat(5000)
                    + "</body></html>"))
        .isEqualTo(
            "an HTML page \"Unicorn! &middot; GitHub\" of 5093 characters instead of GitHub's"
                + " JSON");
    assertThat(
            GitHubErrorBody.summary(
                "{\"message\":\"Not"
                    + " Found\",\"documentation_url\":\"https://docs.github.com/rest\"}"))
        .isEqualTo("Not Found; see https://docs.github.com/rest");
    assertThat(GitHubErrorBody.summary(null)).isEqualTo("no message");
  }
}
