package dev.countersign.github;

import dev.countersign.support.Env;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.kohsuke.github.GHException;
import org.kohsuke.github.GHRepository;
import org.kohsuke.github.GitHub;
import org.kohsuke.github.GitHubAbuseLimitHandler;
import org.kohsuke.github.GitHubBuilder;
import org.kohsuke.github.GitHubRateLimitHandler;
import org.kohsuke.github.HttpException;

/**
 * One repository on GitHub's REST API through hub4j: the lazily built client, every request sent
 * through {@link RetryingConnector} (so one {@link GitHubRetryPolicy} governs all of them), and the
 * one table that turns hub4j's failures into our problems.
 *
 * <p>Constructing one does no I/O. It never asks GitHub who the token belongs to ({@code GET
 * /user}): that call answers 403 for the Actions job token and for GitHub App installation tokens,
 * which are exactly the tokens it runs with. Not thread-safe.
 */
public final class GitHubApi {

  public static final String DEFAULT_API_URL = "https://api.github.com";

  static final String PERMISSIONS_HINT =
      "perhaps you should give the job \"permissions: pull-requests: write\" (and \"contents:"
          + " write\" to push the branch), or pass a token that has them (see"
          + " docs/github-token.md)";

  private final String apiUrl;
  private final String repositoryName;
  private final String token;
  private final GitHubRetryPolicy policy;
  private final Sleeper sleeper;
  private final Consumer<String> notices;
  private final Duration deadline;
  private GitHub github;
  private GHRepository repository;

  /**
   * @param apiUrl REST endpoint, {@code https://api.github.com} or a GHES {@code
   *     https://host/api/v3}
   * @param repositoryName {@code owner/name}
   * @param token job token, App installation token or PAT; sent only to {@code apiUrl}'s origin
   *     (see {@link GitHubHttp})
   * @param notices told about each retry and wait, one line each
   * @throws EnvironmentProblem when the token or repository name is missing or malformed
   */
  public GitHubApi(
      String apiUrl,
      String repositoryName,
      String token,
      GitHubRetryPolicy policy,
      Sleeper sleeper,
      Consumer<String> notices) {
    this(apiUrl, repositoryName, token, policy, sleeper, notices, GitHubHttp.DEADLINE);
  }

  /**
   * Like the public constructor, with {@code deadline} as the deadline of each request, from
   * sending it to the last byte of its answer (tests pass a short one).
   */
  GitHubApi(
      String apiUrl,
      String repositoryName,
      String token,
      GitHubRetryPolicy policy,
      Sleeper sleeper,
      Consumer<String> notices,
      Duration deadline) {
    this.deadline = Objects.requireNonNull(deadline, "deadline");
    this.apiUrl = Objects.requireNonNull(apiUrl, "apiUrl");
    this.policy = Objects.requireNonNull(policy, "policy");
    this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    this.notices = Objects.requireNonNull(notices, "notices");
    if (repositoryName == null || !repositoryName.matches("[^/\\s]+/[^/\\s]+")) {
      throw new EnvironmentProblem(
          "No repository in owner/name form (got \""
              + repositoryName
              + "\") while preparing to"
              + " open the promotion pull request",
          "perhaps you should run inside GitHub Actions, which sets GITHUB_REPOSITORY, or set it");
    }
    if (token == null || token.isBlank()) {
      throw new EnvironmentProblem(
          "No GitHub token while preparing to open the promotion pull request for "
              + repositoryName,
          "perhaps you should pass \"token: ${{ github.token }}\" or a GitHub App token to the"
              + " step");
    }
    this.repositoryName = repositoryName;
    this.token = token.strip();
  }

  /**
   * Endpoint from {@code GITHUB_API_URL} (default {@value #DEFAULT_API_URL}), repository from
   * {@code GITHUB_REPOSITORY}; both are set in every GitHub Actions job, GHES included.
   */
  public static GitHubApi fromEnvironment(
      Env env,
      String token,
      Clock clock,
      RandomGenerator random,
      Sleeper sleeper,
      Consumer<String> notices) {
    return new GitHubApi(
        env.getOrDefault("GITHUB_API_URL", DEFAULT_API_URL),
        env.get("GITHUB_REPOSITORY").orElse(null),
        token,
        new GitHubRetryPolicy(clock, random),
        sleeper,
        notices);
  }

  public String apiUrl() {
    return apiUrl;
  }

  public String repositoryName() {
    return repositoryName;
  }

  Sleeper sleeper() {
    return sleeper;
  }

  GitHub github() throws IOException {
    if (github == null) {
      github =
          new GitHubBuilder()
              .withEndpoint(apiUrl)
              // Not withOAuthToken(token): with no login given, hub4j 1.330's GitHub constructor
              // fetches GET /user to learn it, which answers 403 for job and App tokens. The
              // installation-token form sends the same "Authorization: token ..." header with
              // an empty login, so nothing asks who we are.
              .withAppInstallationToken(token)
              .withConnector(
                  new RetryingConnector(new GitHubHttp(apiUrl, deadline), policy, sleeper, notices))
              // The connector has already waited as long as the policy allows; hub4j must not
              // wait again (its WAIT handlers sleep up to an hour).
              .withRateLimitHandler(GitHubRateLimitHandler.FAIL)
              .withAbuseLimitHandler(GitHubAbuseLimitHandler.FAIL)
              .build();
    }
    return github;
  }

  GHRepository repository(String operation) throws IOException {
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

  <T> T call(String operation, GitHubCall<T> action) {
    try {
      return action.run();
    } catch (IOException | GHException e) {
      throw translate(e, operation);
    }
  }

  /** The HTTP status of a hub4j failure: -1 when there was no answer. */
  static int status(Throwable failure) {
    Throwable e = unwrap(failure);
    if (e instanceof HttpException http) {
      return http.getResponseCode();
    }
    return e instanceof FileNotFoundException ? 404 : -1;
  }

  /** GitHub's words for a hub4j failure ({@link GitHubErrorBody#summary}). */
  static String detail(Throwable failure) {
    Throwable e = unwrap(failure);
    if (e instanceof GitHubGaveUp gaveUp) {
      return gaveUp.summary();
    }
    return status(e) > 0 ? GitHubErrorBody.summary(e.getMessage()) : connectionCause(e);
  }

  /** One translation table from hub4j failures to our problems. */
  CountersignException translate(Exception failure, String operation) {
    Throwable e = unwrap(failure);
    if (e instanceof GitHubGaveUp gaveUp) {
      return switch (gaveUp.failure()) {
        case RATE_LIMIT ->
            new RemoteProblem(
                "GitHub's rate limit stopped countersign (HTTP "
                    + gaveUp.getResponseCode()
                    + ": "
                    + gaveUp.summary()
                    + "; "
                    + gaveUp.why()
                    + ") while "
                    + operation,
                "perhaps you should run again once the limit has reset; the next run picks up where"
                    + " this one stopped",
                failure);
        case SERVER_ERROR ->
            new RemoteProblem(
                "GitHub answered HTTP "
                    + gaveUp.getResponseCode()
                    + " ("
                    + gaveUp.summary()
                    + ") "
                    + gaveUp.why()
                    + " while "
                    + operation,
                "perhaps you should retry later; the next run picks up where this one stopped",
                failure);
        case UNREACHABLE ->
            new RemoteProblem(
                "Could not reach GitHub at "
                    + apiUrl
                    + " ("
                    + connectionCause(e)
                    + ") "
                    + gaveUp.why()
                    + " while "
                    + operation,
                "perhaps you should retry, or check GITHUB_API_URL and the runner's network",
                failure);
      };
    }
    int status = status(e);
    String detail = detail(e);
    if (status == 401) {
      return new EnvironmentProblem(
          "GitHub rejected the token (HTTP 401: " + detail + ") while " + operation,
          "perhaps you should check the token passed to the step; it may have expired or belong"
              + " to another GitHub host than "
              + apiUrl,
          failure);
    }
    if (status == 403 && !detail.toLowerCase(Locale.ROOT).contains("rate limit")) {
      return new EnvironmentProblem(
          "GitHub refused access (HTTP 403: " + detail + ") while " + operation,
          PERMISSIONS_HINT,
          failure);
    }
    if (status > 0) {
      return new RemoteProblem(
          "GitHub answered HTTP " + status + " (" + detail + ") while " + operation,
          status == 403 || status == 429 || status >= 500 ? "perhaps you should retry later" : null,
          failure);
    }
    return new RemoteProblem(
        "Could not reach GitHub at " + apiUrl + " (" + detail + ") while " + operation,
        "perhaps you should retry, or check GITHUB_API_URL and the runner's network",
        failure);
  }

  private static Throwable unwrap(Throwable failure) {
    // Paged iterators wrap the IOException in an unchecked GHException.
    return failure instanceof GHException && failure.getCause() instanceof IOException
        ? failure.getCause()
        : failure;
  }

  /**
   * Connection failures reach us wrapped ({@link GitHubGaveUp}, hub4j's HttpException(-1)); name
   * the first cause that is not a wrapper ({@code ConnectException}, {@code UnknownHostException},
   * a TLS error). Deeper causes are JDK internals nobody can act on.
   */
  private static String connectionCause(Throwable e) {
    Throwable cause = e;
    while ((cause instanceof HttpException || cause instanceof GHException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof GitHubGaveUp gaveUp) {
      return gaveUp.summary();
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName()
        + (message == null || cause instanceof HttpException ? "" : ": " + message);
  }

  @FunctionalInterface
  interface GitHubCall<T> {
    T run() throws IOException;
  }
}
