package dev.countersign.github;

import static com.github.tomakehurst.wiremock.client.WireMock.anyRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.deleteRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.equalToJson;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlMatching;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import dev.countersign.promotion.PullRequest;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.testing.HostedPullRequest;
import dev.countersign.testing.InMemoryPullRequestHost;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The behaviour every {@link PullRequestHost} promises, run against the in-memory fake and against
 * {@link GitHubPullRequestHost} talking to {@link FakeGitHub} over HTTP. Assertions on the host's
 * state hold for both; where only the HTTP exchange can show a property (the PATCH body, the retry,
 * no {@code GET /user}), the GitHub harness adds WireMock checks.
 */
class PullRequestHostContractTest {

  private static final String TOKEN = "ghs_contractTestToken";
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final PullRequestDraft PROMOTION =
      PullRequestDraft.of(
          "Promote signed manifests",
          "<!-- countersign:promotion -->\nbody v1",
          "promote/signed",
          "main");

  /** One host plus a way to look at (and perturb) the host's own state. */
  interface Harness extends AutoCloseable {
    PullRequestHost host();

    HostedPullRequest seedOpen(PullRequestDraft draft);

    Optional<HostedPullRequest> hosted(int number);

    /** The next {@code times} label and review requests meet GitHub's post-create lag. */
    void lagNodeResolution(int times);

    default Optional<FakeGitHub> github() {
      return Optional.empty();
    }

    default List<Duration> sleeps() {
      return List.of();
    }

    @Override
    void close();
  }

  interface HarnessFactory {
    Harness open();
  }

  static Stream<Named<HarnessFactory>> hosts() {
    return Stream.of(
        Named.of("in-memory", InMemoryHarness::new), Named.of("github", GitHubHarness::new));
  }

  static final class InMemoryHarness implements Harness {
    final InMemoryPullRequestHost host = new InMemoryPullRequestHost();

    @Override
    public PullRequestHost host() {
      return host;
    }

    @Override
    public HostedPullRequest seedOpen(PullRequestDraft draft) {
      return host.seedOpen(draft);
    }

    @Override
    public Optional<HostedPullRequest> hosted(int number) {
      return host.hosted(number);
    }

    @Override
    public void lagNodeResolution(int times) {
      // Memory has no replication lag; the outcome asserted is the same.
    }

    @Override
    public void close() {}
  }

  static final class GitHubHarness implements Harness {
    final FakeGitHub github = FakeGitHub.start(TOKEN);
    final List<Duration> sleeps = new ArrayList<>();
    final GitHubPullRequestHost host =
        new GitHubPullRequestHost(github.baseUrl(), FakeGitHub.REPOSITORY, TOKEN, sleeps::add);

    @Override
    public PullRequestHost host() {
      return host;
    }

    @Override
    public HostedPullRequest seedOpen(PullRequestDraft draft) {
      return github.seedOpen(draft);
    }

    @Override
    public Optional<HostedPullRequest> hosted(int number) {
      return github.hosted(number);
    }

    @Override
    public void lagNodeResolution(int times) {
      String unresolved =
          "{\"message\":\"Validation"
              + " Failed\",\"errors\":[{\"resource\":\"PullRequest\",\"code\":\"custom\",\"message\":\"Could"
              + " not resolve to a node with the global id of 'PR_kwDOA'.\"}]}";
      github.failNext("POST", ".*/issues/\\d+/labels", 422, unresolved, times);
      github.failNext("POST", ".*/pulls/\\d+/requested_reviewers", 422, unresolved, times);
    }

    @Override
    public Optional<FakeGitHub> github() {
      return Optional.of(github);
    }

    @Override
    public List<Duration> sleeps() {
      return sleeps;
    }

    @Override
    public void close() {
      try {
        // GET /user answers 403 for job and App tokens; no operation may depend on it.
        github.server().verify(0, anyRequestedFor(urlPathEqualTo("/user")));
        assertThat(github.unrouted()).isEmpty();
      } finally {
        github.close();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void create_whenNoneOpen_opensOne(HarnessFactory factory) throws Exception {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION);

      assertThat(created.title()).isEqualTo("Promote signed manifests");
      assertThat(created.body()).isEqualTo(PROMOTION.body());
      assertThat(created.headBranch()).isEqualTo("promote/signed");
      assertThat(created.baseBranch()).isEqualTo("main");
      assertThat(created.draft()).isFalse();
      assertThat(h.hosted(created.number()))
          .get()
          .satisfies(
              pr -> {
                assertThat(pr.open()).isTrue();
                assertThat(pr.title()).isEqualTo(PROMOTION.title());
                assertThat(pr.head()).isEqualTo("promote/signed");
              });
      assertThat(h.host().findOpen("promote/signed", "main")).contains(created);
      h.github()
          .ifPresent(
              gh -> {
                List<LoggedRequest> posts =
                    gh.server()
                        .findAll(
                            postRequestedFor(
                                urlEqualTo("/repos/" + FakeGitHub.REPOSITORY + "/pulls")));
                assertThat(posts).hasSize(1);
                assertThat(posts.get(0).getBodyAsString())
                    .satisfies(
                        body ->
                            assertThat(JSON.readTree(body).fieldNames())
                                .toIterable()
                                .containsExactlyInAnyOrderElementsOf(gh.recordedCreateKeys()));
                assertThat(created.url())
                    .isEqualTo(
                        "https://github.com/"
                            + FakeGitHub.REPOSITORY
                            + "/pull/"
                            + created.number());
              });
      if (h instanceof InMemoryHarness mem) {
        assertThat(mem.host.opened()).containsExactly(PROMOTION);
        assertThat(mem.host.updated()).isEmpty();
      }
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void create_whenOneAlreadyOpen_updatesThatOneInstead(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      HostedPullRequest earlier =
          h.seedOpen(PullRequestDraft.of("Old title", "old body", "promote/signed", "main"));

      PullRequest result = h.host().create(PROMOTION);

      assertThat(result.number()).isEqualTo(earlier.number());
      assertThat(result.title()).isEqualTo(PROMOTION.title());
      assertThat(result.body()).isEqualTo(PROMOTION.body());
      assertThat(h.hosted(earlier.number()))
          .get()
          .extracting(HostedPullRequest::title, HostedPullRequest::body, HostedPullRequest::open)
          .containsExactly(PROMOTION.title(), PROMOTION.body(), true);
      assertThat(h.host().findOpen("promote/signed", "main"))
          .map(PullRequest::number)
          .contains(earlier.number());
      h.github()
          .ifPresent(
              gh -> {
                // The create was refused with the recorded 422, then the open PR was found by
                // owner:branch.
                gh.server()
                    .verify(
                        1,
                        postRequestedFor(urlEqualTo("/repos/" + FakeGitHub.REPOSITORY + "/pulls")));
                // Listed by owner:branch twice: the fallback after the 422, then findOpen above.
                gh.server()
                    .verify(
                        2,
                        getRequestedFor(
                            urlEqualTo(
                                "/repos/"
                                    + FakeGitHub.REPOSITORY
                                    + "/pulls?state=open&head=hub4j-test-org%3Apromote%2Fsigned&base=main")));
                List<LoggedRequest> patches =
                    gh.server()
                        .findAll(
                            patchRequestedFor(
                                urlEqualTo(
                                    "/repos/"
                                        + FakeGitHub.REPOSITORY
                                        + "/pulls/"
                                        + earlier.number())));
                assertThat(patches)
                    .extracting(LoggedRequest::getBodyAsString)
                    .containsExactly(
                        "{\"title\":\"Promote signed manifests\"}",
                        "{\"body\":\"<!-- countersign:promotion -->\\nbody v1\"}");
              });
      if (h instanceof InMemoryHarness mem) {
        assertThat(mem.host.opened()).isEmpty();
        assertThat(mem.host.updated())
            .containsExactly(new InMemoryPullRequestHost.Update(earlier.number(), PROMOTION));
      }
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void update_changesTitleAndBody(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION);

      PullRequest updated =
          h.host().update(created, PROMOTION.withTitleAndBody("Promote 3 manifests", "body v2"));

      assertThat(updated.number()).isEqualTo(created.number());
      assertThat(updated.title()).isEqualTo("Promote 3 manifests");
      assertThat(updated.body()).isEqualTo("body v2");
      assertThat(h.hosted(created.number()))
          .get()
          .extracting(HostedPullRequest::title, HostedPullRequest::body)
          .containsExactly("Promote 3 manifests", "body v2");
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void update_nothingChanged_leavesPullRequestAsItWas(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION);

      PullRequest again = h.host().update(created, PROMOTION);

      assertThat(again).isEqualTo(created);
      // A re-run over the same plan must not edit the PR (each edit notifies subscribers).
      h.github()
          .ifPresent(gh -> gh.server().verify(0, patchRequestedFor(urlMatching(".*/pulls/\\d+"))));
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void create_withLabelsAndReviewers_appliesThem(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequestDraft draft =
          PROMOTION
              .withLabels(List.of("promotion", "signed"))
              .withReviewers(List.of("alice", "bob"), List.of("security"));

      PullRequest created = h.host().create(draft);

      assertThat(created.labels()).containsExactlyInAnyOrder("promotion", "signed");
      assertThat(h.hosted(created.number()))
          .get()
          .satisfies(
              pr -> {
                assertThat(pr.labels()).containsExactlyInAnyOrder("promotion", "signed");
                assertThat(pr.reviewers()).containsExactlyInAnyOrder("alice", "bob");
                assertThat(pr.teamReviewers()).containsExactly("security");
              });
      h.github()
          .ifPresent(
              gh -> {
                gh.server()
                    .verify(
                        postRequestedFor(urlMatching(".*/issues/\\d+/labels"))
                            .withRequestBody(
                                equalToJson("{\"labels\":[\"promotion\",\"signed\"]}")));
                gh.server()
                    .verify(
                        postRequestedFor(urlMatching(".*/pulls/\\d+/requested_reviewers"))
                            .withRequestBody(equalToJson("{\"reviewers\":[\"alice\",\"bob\"]}")));
                gh.server()
                    .verify(
                        postRequestedFor(urlMatching(".*/pulls/\\d+/requested_reviewers"))
                            .withRequestBody(equalToJson("{\"team_reviewers\":[\"security\"]}")));
                assertThat(h.sleeps()).isEmpty();
              });
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void create_whenNewPullRequestNotYetResolvable_retriesLabelsAndReviewers(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      h.lagNodeResolution(1);

      PullRequest created =
          h.host()
              .create(
                  PROMOTION
                      .withLabels(List.of("promotion"))
                      .withReviewers(List.of("alice"), List.of()));

      assertThat(h.hosted(created.number()))
          .get()
          .satisfies(
              pr -> {
                assertThat(pr.labels()).containsExactly("promotion");
                assertThat(pr.reviewers()).containsExactly("alice");
              });
      h.github()
          .ifPresent(
              gh -> {
                gh.server().verify(2, postRequestedFor(urlMatching(".*/issues/\\d+/labels")));
                gh.server()
                    .verify(2, postRequestedFor(urlMatching(".*/pulls/\\d+/requested_reviewers")));
                assertThat(h.sleeps())
                    .containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(1));
              });
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void update_keepsLabelsPeopleAddedAndAddsMissingOnes(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      HostedPullRequest earlier =
          h.seedOpen(PROMOTION.withLabels(List.of("do-not-merge", "promotion")));
      PullRequest existing = h.host().findOpen("promote/signed", "main").orElseThrow();

      PullRequest updated =
          h.host().update(existing, PROMOTION.withLabels(List.of("promotion", "signed")));

      assertThat(updated.labels()).containsExactlyInAnyOrder("do-not-merge", "promotion", "signed");
      assertThat(h.hosted(earlier.number()))
          .get()
          .extracting(HostedPullRequest::labels)
          .satisfies(
              labels ->
                  assertThat(labels)
                      .containsExactlyInAnyOrder("do-not-merge", "promotion", "signed"));
      h.github()
          .ifPresent(
              gh ->
                  gh.server()
                      .verify(
                          postRequestedFor(urlMatching(".*/issues/\\d+/labels"))
                              .withRequestBody(equalToJson("{\"labels\":[\"signed\"]}"))));
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void create_asDraft_opensDraft(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION.asDraft());

      assertThat(created.draft()).isTrue();
      assertThat(h.hosted(created.number()))
          .get()
          .extracting(HostedPullRequest::draft)
          .isEqualTo(true);
      assertThat(h.host().findOpen("promote/signed", "main"))
          .map(PullRequest::draft)
          .contains(true);
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void close_closesIt_andFindOpenNoLongerSeesIt(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION);

      h.host().close(created);
      h.host().close(created); // closing twice is not an error

      assertThat(h.hosted(created.number()))
          .get()
          .extracting(HostedPullRequest::open)
          .isEqualTo(false);
      assertThat(h.host().findOpen("promote/signed", "main")).isEmpty();
      h.github()
          .ifPresent(
              gh ->
                  gh.server()
                      .verify(
                          1,
                          patchRequestedFor(
                                  urlEqualTo(
                                      "/repos/"
                                          + FakeGitHub.REPOSITORY
                                          + "/pulls/"
                                          + created.number()))
                              .withRequestBody(equalToJson(gh.recordedCloseBody()))));
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void findOpen_whenNoneForThatHeadAndBase_isEmpty(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      assertThat(h.host().findOpen("promote/signed", "main")).isEmpty();

      h.seedOpen(PullRequestDraft.of("other head", "", "feature/x", "main"));
      h.seedOpen(PullRequestDraft.of("other base", "", "promote/signed", "release"));

      assertThat(h.host().findOpen("promote/signed", "main")).isEmpty();
    }
  }

  @ParameterizedTest
  @MethodSource("hosts")
  void deleteBranch_closesItsPullRequest_andToleratesMissingBranch(HarnessFactory factory) {
    try (Harness h = factory.open()) {
      PullRequest created = h.host().create(PROMOTION);

      h.host().deleteBranch("promote/signed");
      h.host().deleteBranch("promote/signed");

      assertThat(h.host().findOpen("promote/signed", "main")).isEmpty();
      assertThat(h.hosted(created.number()))
          .get()
          .extracting(HostedPullRequest::open)
          .isEqualTo(false);
      h.github()
          .ifPresent(
              gh ->
                  gh.server()
                      .verify(
                          1,
                          deleteRequestedFor(
                              urlEqualTo(
                                  "/repos/"
                                      + FakeGitHub.REPOSITORY
                                      + "/git/refs/heads/promote/signed"))));
    }
  }
}
