package dev.countersign.github;

import dev.countersign.support.Sleeper;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.promotion.PullRequest;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.support.Env;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.kohsuke.github.GHException;
import org.kohsuke.github.GHFileNotFoundException;
import org.kohsuke.github.GHIssueState;
import org.kohsuke.github.GHLabel;
import org.kohsuke.github.GHOrganization;
import org.kohsuke.github.GHPullRequest;
import org.kohsuke.github.GHRepository;
import org.kohsuke.github.GHTeam;
import org.kohsuke.github.GHUser;
import org.kohsuke.github.GitHub;
import org.kohsuke.github.GitHubAbuseLimitHandler;
import org.kohsuke.github.GitHubBuilder;
import org.kohsuke.github.GitHubRateLimitHandler;
import org.kohsuke.github.HttpException;

/**
 * {@link PullRequestHost} over the GitHub REST API, through hub4j's {@code github-api}.
 *
 * <p>Constructing one does no I/O; the client is built and the repository read on first use. It
 * never asks GitHub who the token belongs to ({@code GET /user}): that call answers 403 for the
 * Actions job token and for GitHub App installation tokens, which are exactly the tokens it runs
 * with. Not thread-safe; one instance serves one promotion.
 *
 * <p>Failures become {@link RemoteProblem} (GitHub failed; retrying may help) or {@link
 * EnvironmentProblem} (401/403: the token or the job's {@code permissions:} are wrong), with the
 * HTTP status and the operation in the message and hub4j's exception as the cause.
 */
public final class GitHubPullRequestHost implements PullRequestHost {

  public static final String DEFAULT_API_URL = "https://api.github.com";

  /** Attempts for a label or reviewer request that meets GitHub's post-create lag. */
  static final int NODE_ATTEMPTS = 5;

  private static final Duration FIRST_DELAY = Duration.ofSeconds(1);
  private static final Duration MAX_DELAY = Duration.ofSeconds(8);
  private static final String ALREADY_EXISTS = "A pull request already exists";
  // GitHub answers this for a few seconds after a pull request is created, while its GraphQL
  // node is not yet visible to the labels and review-request endpoints (create-pull-request#4321).
  private static final String UNRESOLVED_NODE = "Could not resolve to a node";
  private static final String PERMISSIONS_HINT =
      "perhaps you should give the job \"permissions: pull-requests: write\" (and \"contents:"
          + " write\" to push the branch), or pass a token that has them (see docs/github-token.md)";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String apiUrl;
  private final String repositoryName;
  private final String token;
  private final Sleeper sleeper;
  private GHRepository repository;
  private GitHub github;

  /**
   * @param apiUrl REST endpoint, {@code https://api.github.com} or a GHES {@code https://host/api/v3}
   * @param repositoryName {@code owner/name}
   * @param token job token, App installation token or PAT; sent only to {@code apiUrl}
   * @param sleeper waits between retries
   * @throws EnvironmentProblem when the token or repository name is missing or malformed
   */
  public GitHubPullRequestHost(String apiUrl, String repositoryName, String token, Sleeper sleeper) {
    this.apiUrl = Objects.requireNonNull(apiUrl, "apiUrl");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    if (repositoryName == null || !repositoryName.matches("[^/\\s]+/[^/\\s]+")) {
      throw new EnvironmentProblem(
          "No repository in owner/name form (got \"" + repositoryName + "\") while preparing to"
              + " open the promotion pull request",
          "perhaps you should run inside GitHub Actions, which sets GITHUB_REPOSITORY, or set it");
    }
    if (token == null || token.isBlank()) {
      throw new EnvironmentProblem(
          "No GitHub token while preparing to open the promotion pull request for " + repositoryName,
          "perhaps you should pass \"token: ${{ github.token }}\" or a GitHub App token to the step");
    }
    this.repositoryName = repositoryName;
    this.token = token.strip();
  }

  /**
   * Endpoint from {@code GITHUB_API_URL} (default {@value #DEFAULT_API_URL}), repository from
   * {@code GITHUB_REPOSITORY}; both are set in every GitHub Actions job, GHES included.
   */
  public static GitHubPullRequestHost fromEnvironment(Env env, String token, Sleeper sleeper) {
    return new GitHubPullRequestHost(
        env.getOrDefault("GITHUB_API_URL", DEFAULT_API_URL),
        env.get("GITHUB_REPOSITORY").orElse(null),
        token,
        sleeper);
  }

  @Override
  public Optional<PullRequest> findOpen(String headBranch, String baseBranch) {
    String operation = "looking for an open pull request from " + headBranch + " into " + baseBranch;
    return call(operation, () -> findOpenOnGitHub(headBranch, baseBranch, operation))
        .map(pr -> call(operation, () -> toPullRequest(pr, labelNames(pr.getLabels()))));
  }

  @Override
  public PullRequest create(PullRequestDraft draft) {
    String operation = "opening a pull request from " + draft.head() + " into " + draft.base();
    GHPullRequest created;
    try {
      // maintainer_can_modify=false: it only means something for pull requests from forks, and
      // asking for it without the right to grant it is itself a 422.
      created =
          repository(operation)
              .createPullRequest(
                  draft.title(), draft.head(), draft.base(), draft.body(), false, draft.draft());
    } catch (HttpException e) {
      if (e.getResponseCode() != 422 || !String.valueOf(e.getMessage()).contains(ALREADY_EXISTS)) {
        throw translate(e, operation);
      }
      // A previous run opened it: bring that one up to date instead (create-or-update).
      GHPullRequest existing =
          call(operation, () -> findOpenOnGitHub(draft.head(), draft.base(), operation))
              .orElseThrow(
                  () ->
                      new RemoteProblem(
                          "GitHub (HTTP 422) said a pull request already exists for "
                              + draft.head() + " but lists none open into " + draft.base()
                              + " while " + operation,
                          "perhaps you should retry; GitHub's pull request list can lag",
                          e));
      return updateOnGitHub(existing, draft);
    } catch (IOException | GHException e) {
      throw translate(e, operation);
    }
    Set<String> labels = applyLabelsAndReviewers(created, Set.of(), draft);
    return new PullRequest(
        created.getNumber(),
        String.valueOf(created.getHtmlUrl()),
        draft.head(),
        draft.base(),
        draft.title(),
        draft.body(),
        draft.draft(),
        labels);
  }

  @Override
  public PullRequest update(PullRequest existing, PullRequestDraft draft) {
    String operation = "reading pull request #" + existing.number();
    GHPullRequest pr = call(operation, () -> repository(operation).getPullRequest(existing.number()));
    return updateOnGitHub(pr, draft);
  }

  @Override
  public void close(PullRequest pullRequest) {
    String operation = "closing pull request #" + pullRequest.number();
    call(
        operation,
        () -> {
          GHPullRequest pr = repository(operation).getPullRequest(pullRequest.number());
          if (pr.getState() != GHIssueState.CLOSED) {
            pr.close();
          }
          return null;
        });
  }

  @Override
  public void deleteBranch(String branch) {
    String operation = "deleting branch " + branch;
    try {
      repository(operation).getRef("heads/" + branch).delete();
    } catch (GHFileNotFoundException e) {
      // Already gone (deleted by hand or by GitHub's "delete head branch" setting): the goal holds.
    } catch (HttpException e) {
      if (e.getResponseCode() != 404 && e.getResponseCode() != 422) {
        throw translate(e, operation);
      }
    } catch (IOException | GHException e) {
      throw translate(e, operation);
    }
  }

  private Optional<GHPullRequest> findOpenOnGitHub(String head, String base, String operation)
      throws IOException {
    // head() prefixes "owner:"; without the owner GitHub ignores the filter and lists every PR.
    List<GHPullRequest> open =
        repository(operation)
            .queryPullRequests()
            .state(GHIssueState.OPEN)
            .head(head)
            .base(base)
            .list()
            .toList();
    return open.stream().filter(pr -> head.equals(pr.getHead().getRef())).findFirst();
  }

  private PullRequest updateOnGitHub(GHPullRequest pr, PullRequestDraft draft) {
    String operation = "updating pull request #" + pr.getNumber();
    call(
        operation,
        () -> {
          // Only send what differs, so a re-run over an unchanged promotion edits nothing and
          // sends no notifications.
          if (!draft.title().equals(pr.getTitle())) {
            pr.setTitle(draft.title());
          }
          if (!draft.body().equals(Objects.toString(pr.getBody(), ""))) {
            pr.setBody(draft.body());
          }
          return null;
        });
    Set<String> labels = applyLabelsAndReviewers(pr, labelNames(pr.getLabels()), draft);
    return call(
        operation,
        () ->
            new PullRequest(
                pr.getNumber(),
                String.valueOf(pr.getHtmlUrl()),
                pr.getHead().getRef(),
                pr.getBase().getRef(),
                draft.title(),
                draft.body(),
                pr.isDraft(),
                labels));
  }

  /** Adds missing labels and requests reviews; returns the labels the pull request now has. */
  private Set<String> applyLabelsAndReviewers(
      GHPullRequest pr, Set<String> present, PullRequestDraft draft) {
    Set<String> labels = new TreeSet<>(present);
    List<String> missing = draft.labels().stream().filter(l -> !present.contains(l)).toList();
    if (!missing.isEmpty()) {
      List<GHLabel> now =
          retryingUnresolvedNode(
              "adding labels " + missing + " to pull request #" + pr.getNumber(),
              () -> pr.addLabels(missing.toArray(String[]::new)));
      labels.addAll(labelNames(now));
    }
    if (!draft.reviewers().isEmpty()) {
      String operation =
          "requesting reviews from " + draft.reviewers() + " on pull request #" + pr.getNumber();
      List<GHUser> users = new ArrayList<>();
      for (String login : draft.reviewers()) {
        users.add(call(operation, () -> github().getUser(login)));
      }
      retryingUnresolvedNode(operation, () -> {
        pr.requestReviewers(users);
        return null;
      });
    }
    if (!draft.teamReviewers().isEmpty()) {
      String operation =
          "requesting reviews from teams " + draft.teamReviewers() + " on pull request #"
              + pr.getNumber();
      List<GHTeam> teams = new ArrayList<>();
      GHOrganization org =
          call(operation, () -> github().getOrganization(repositoryName.split("/")[0]));
      for (String slug : draft.teamReviewers()) {
        teams.add(call(operation, () -> org.getTeamBySlug(slug)));
      }
      retryingUnresolvedNode(operation, () -> {
        pr.requestTeamReviewers(teams);
        return null;
      });
    }
    return labels;
  }

  private <T> T retryingUnresolvedNode(String operation, GitHubCall<T> action) {
    Duration delay = FIRST_DELAY;
    for (int attempt = 1; ; attempt++) {
      try {
        return action.run();
      } catch (HttpException e) {
        boolean lagging =
            e.getResponseCode() == 422 && String.valueOf(e.getMessage()).contains(UNRESOLVED_NODE);
        if (!lagging || attempt >= NODE_ATTEMPTS) {
          throw translate(e, operation);
        }
      } catch (IOException | GHException e) {
        throw translate(e, operation);
      }
      try {
        sleeper.sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RemoteProblem("Interrupted while waiting to retry " + operation, null, e);
      }
      delay = delay.multipliedBy(2).compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay.multipliedBy(2);
    }
  }

  private PullRequest toPullRequest(GHPullRequest pr, Set<String> labels) throws IOException {
    return new PullRequest(
        pr.getNumber(),
        String.valueOf(pr.getHtmlUrl()),
        pr.getHead().getRef(),
        pr.getBase().getRef(),
        pr.getTitle(),
        pr.getBody(),
        pr.isDraft(),
        labels);
  }

  private static Set<String> labelNames(Collection<GHLabel> labels) {
    return labels == null
        ? Set.of()
        : labels.stream().map(GHLabel::getName).collect(Collectors.toCollection(TreeSet::new));
  }

  private GitHub github() throws IOException {
    if (github == null) {
      github =
          new GitHubBuilder()
              .withEndpoint(apiUrl)
              // Not withOAuthToken(token): with no login given, hub4j 1.330's GitHub constructor
              // fetches GET /user to learn it, which answers 403 for job and App tokens. The
              // installation-token form sends the same "Authorization: token ..." header with
              // an empty login, so nothing asks who we are.
              .withAppInstallationToken(token)
              // Fail instead of sleeping until the rate-limit window resets (up to an hour):
              // a CI job should report the problem, not hang.
              .withRateLimitHandler(GitHubRateLimitHandler.FAIL)
              .withAbuseLimitHandler(GitHubAbuseLimitHandler.FAIL)
              .build();
    }
    return github;
  }

  private GHRepository repository(String operation) throws IOException {
    if (repository == null) {
      try {
        repository = github().getRepository(repositoryName);
      } catch (FileNotFoundException e) {
        throw new EnvironmentProblem(
            "GitHub found no repository " + repositoryName + " (HTTP 404) while " + operation,
            "perhaps you should check GITHUB_REPOSITORY and that the token can read that"
                + " repository",
            e);
      }
    }
    return repository;
  }

  private <T> T call(String operation, GitHubCall<T> action) {
    try {
      return action.run();
    } catch (IOException | GHException e) {
      throw translate(e, operation);
    }
  }

  /** One translation table from hub4j failures to our problems. */
  private CountersignException translate(Exception failure, String operation) {
    Throwable e = failure;
    // Paged iterators wrap the IOException in an unchecked GHException.
    if (e instanceof GHException && e.getCause() instanceof IOException) {
      e = e.getCause();
    }
    int status = -1;
    if (e instanceof HttpException http) {
      status = http.getResponseCode();
    } else if (e instanceof FileNotFoundException) {
      status = 404;
    }
    String detail = status > 0 ? apiMessage(e.getMessage()) : connectionCause(e);
    if (status == 401) {
      return new EnvironmentProblem(
          "GitHub rejected the token (HTTP 401: " + detail + ") while " + operation,
          "perhaps you should check the token passed to the step; it may have expired or belong"
              + " to another GitHub host than " + apiUrl,
          failure);
    }
    if (status == 403 && !detail.toLowerCase(java.util.Locale.ROOT).contains("rate limit")) {
      return new EnvironmentProblem(
          "GitHub refused access (HTTP 403: " + detail + ") while " + operation,
          PERMISSIONS_HINT,
          failure);
    }
    if (status > 0) {
      return new RemoteProblem(
          "GitHub answered HTTP " + status + " (" + detail + ") while " + operation,
          status == 403 || status == 429 || status >= 500
              ? "perhaps you should retry later"
              : null,
          failure);
    }
    return new RemoteProblem(
        "Could not reach GitHub at " + apiUrl + " (" + detail + ") while " + operation,
        "perhaps you should retry, or check GITHUB_API_URL and the runner's network",
        failure);
  }

  /**
   * Connection failures reach us as HttpException(-1) wrapping what really happened
   * ({@code ConnectException}, {@code UnknownHostException}, a TLS error); name the first cause
   * that is not hub4j's wrapper. Deeper causes are JDK internals nobody can act on.
   */
  private static String connectionCause(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof HttpException || cause instanceof GHException) && cause.getCause() != null) {
      cause = cause.getCause();
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + message);
  }

  /** GitHub's own words from an error body: {@code message} plus each {@code errors[].message}. */
  static String apiMessage(String body) {
    if (body == null || body.isBlank()) {
      return "no message";
    }
    try {
      JsonNode root = JSON.readTree(body);
      if (root != null && root.hasNonNull("message")) {
        StringBuilder text = new StringBuilder(root.get("message").asText());
        for (JsonNode error : root.path("errors")) {
          if (error.hasNonNull("message")) {
            text.append(": ").append(error.get("message").asText());
          }
        }
        return text.toString();
      }
    } catch (IOException notJson) {
      // Not a JSON error body (a proxy page, a connection message): show it as it is.
    }
    String oneLine = body.strip().replaceAll("\\s+", " ");
    return oneLine.length() > 200 ? oneLine.substring(0, 200) + "..." : oneLine;
  }

  @FunctionalInterface
  private interface GitHubCall<T> {
    T run() throws IOException;
  }
}
