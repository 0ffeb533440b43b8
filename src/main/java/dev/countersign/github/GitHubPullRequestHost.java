package dev.countersign.github;

import dev.countersign.promotion.PullRequest;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.support.Env;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import org.kohsuke.github.GHException;
import org.kohsuke.github.GHFileNotFoundException;
import org.kohsuke.github.GHIssueState;
import org.kohsuke.github.GHLabel;
import org.kohsuke.github.GHOrganization;
import org.kohsuke.github.GHPullRequest;
import org.kohsuke.github.GHTeam;
import org.kohsuke.github.GHUser;
import org.kohsuke.github.HttpException;

/**
 * {@link PullRequestHost} over the GitHub REST API ({@link GitHubApi}: hub4j, one retry policy).
 *
 * <p>Failures become {@link RemoteProblem} (GitHub failed; retrying may help) or {@link
 * EnvironmentProblem} (401/403: the token or the job's {@code permissions:} are wrong), with the
 * HTTP status, GitHub's message and the operation in the message. Labels, assignees and review
 * requests sent after the pull request exists never fail the call: they become warnings on the
 * returned {@link PullRequest}. Not thread-safe; one instance serves one promotion.
 */
public final class GitHubPullRequestHost implements PullRequestHost {

  public static final String DEFAULT_API_URL = GitHubApi.DEFAULT_API_URL;

  /** Attempts for a label or reviewer request that meets GitHub's post-create lag. */
  static final int NODE_ATTEMPTS = 5;

  private static final Duration FIRST_DELAY = Duration.ofSeconds(1);
  private static final Duration MAX_DELAY = Duration.ofSeconds(8);
  private static final String ALREADY_EXISTS = "A pull request already exists";
  // GitHub answers this for a few seconds after a pull request is created, while its GraphQL
  // node is not yet visible to the labels and review-request endpoints (create-pull-request#4321).
  private static final String UNRESOLVED_NODE = "Could not resolve to a node";

  private final GitHubApi api;

  public GitHubPullRequestHost(GitHubApi api) {
    this.api = Objects.requireNonNull(api, "api");
  }

  /**
   * A host with the standard retry policy on the system clock; for tests and callers without a
   * clock port. {@code sleeper} does every wait.
   */
  public GitHubPullRequestHost(
      String apiUrl, String repositoryName, String token, Sleeper sleeper) {
    this(
        new GitHubApi(
            apiUrl,
            repositoryName,
            token,
            new GitHubRetryPolicy(Clock.systemUTC(), RandomGenerator.getDefault()),
            sleeper,
            line -> {}));
  }

  /** See {@link GitHubApi#fromEnvironment}. */
  public static GitHubPullRequestHost fromEnvironment(Env env, String token, Sleeper sleeper) {
    return new GitHubPullRequestHost(
        env.getOrDefault("GITHUB_API_URL", DEFAULT_API_URL),
        env.get("GITHUB_REPOSITORY").orElse(null),
        token,
        sleeper);
  }

  @Override
  public Optional<PullRequest> findOpen(String headBranch, String baseBranch) {
    String operation =
        "looking for an open pull request from " + headBranch + " into " + baseBranch;
    return api.call(
            operation,
            () ->
                findOnGitHub(headBranch, baseBranch, GHIssueState.OPEN, operation).stream()
                    .findFirst())
        .map(
            pr ->
                api.call(
                    operation,
                    () ->
                        toPullRequest(
                            pr,
                            pr.getTitle(),
                            pr.getBody(),
                            labelNames(pr.getLabels()),
                            List.of())));
  }

  @Override
  public PullRequest create(PullRequestDraft draft) {
    String operation = "opening a pull request from " + draft.head() + " into " + draft.base();
    GHPullRequest created;
    try {
      // maintainer_can_modify=false: it only means something for pull requests from forks, and
      // asking for it without the right to grant it is itself a 422.
      created =
          api.repository(operation)
              .createPullRequest(
                  draft.title(), draft.head(), draft.base(), draft.body(), false, draft.draft());
    } catch (HttpException e) {
      if (e.getResponseCode() != 422 || !String.valueOf(e.getMessage()).contains(ALREADY_EXISTS)) {
        throw api.translate(e, operation);
      }
      // A previous run (or a race) opened it: bring that one up to date instead, and say so.
      GHPullRequest existing =
          api.call(
                  operation,
                  () ->
                      findOnGitHub(draft.head(), draft.base(), GHIssueState.OPEN, operation)
                          .stream()
                          .findFirst())
              .orElseThrow(
                  () ->
                      new RemoteProblem(
                          "GitHub (HTTP 422) said a pull request already exists for "
                              + draft.head()
                              + " but lists none open into "
                              + draft.base()
                              + " while "
                              + operation,
                          "perhaps you should retry; GitHub's pull request list can lag",
                          e));
      return updateOnGitHub(existing, draft).adopted(true);
    } catch (IOException | GHException e) {
      throw api.translate(e, operation);
    }
    List<String> warnings = new ArrayList<>();
    Set<String> labels = decorate(created, Set.of(), draft, warnings);
    return new PullRequest(
        created.getNumber(),
        String.valueOf(created.getHtmlUrl()),
        draft.head(),
        draft.base(),
        draft.title(),
        draft.body(),
        draft.draft(),
        labels,
        false,
        warnings);
  }

  @Override
  public PullRequest update(PullRequest existing, PullRequestDraft draft) {
    String operation = "reading pull request #" + existing.number();
    GHPullRequest pr =
        api.call(operation, () -> api.repository(operation).getPullRequest(existing.number()));
    return updateOnGitHub(pr, draft);
  }

  @Override
  public void close(PullRequest pullRequest) {
    String operation = "closing pull request #" + pullRequest.number();
    api.call(
        operation,
        () -> {
          GHPullRequest pr = api.repository(operation).getPullRequest(pullRequest.number());
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
      api.repository(operation).getRef("heads/" + branch).delete();
    } catch (GHFileNotFoundException e) {
      // Already gone (deleted by hand or by GitHub's "delete head branch" setting): the goal holds.
    } catch (HttpException e) {
      if (e.getResponseCode() != 404 && e.getResponseCode() != 422) {
        throw api.translate(e, operation);
      }
    } catch (IOException | GHException e) {
      throw api.translate(e, operation);
    }
  }

  @Override
  public boolean mergedAt(String headBranch, String baseBranch, String headCommit) {
    String operation =
        "looking for a merged pull request from " + headBranch + " into " + baseBranch;
    return api.call(
        operation,
        () -> {
          for (GHPullRequest pr :
              findOnGitHub(headBranch, baseBranch, GHIssueState.CLOSED, operation)) {
            if (pr.getMergedAt() != null && headCommit.equals(pr.getHead().getSha())) {
              return true;
            }
          }
          return false;
        });
  }

  @Override
  public Optional<Boolean> isProtected(String branch) {
    String operation = "reading whether branch " + branch + " is protected";
    try {
      return Optional.of(api.repository(operation).getBranch(branch).isProtected());
    } catch (IOException | GHException | CountersignException e) {
      // Only a shortcut: without the answer the push is tried and a refusal handled as before.
      return Optional.empty();
    }
  }

  private List<GHPullRequest> findOnGitHub(
      String head, String base, GHIssueState state, String operation) throws IOException {
    // head() prefixes "owner:"; without the owner GitHub ignores the filter and lists every PR.
    List<GHPullRequest> found =
        api.repository(operation)
            .queryPullRequests()
            .state(state)
            .head(head)
            .base(base)
            .list()
            .toList();
    return found.stream().filter(pr -> head.equals(pr.getHead().getRef())).toList();
  }

  private PullRequest updateOnGitHub(GHPullRequest pr, PullRequestDraft draft) {
    String operation = "updating pull request #" + pr.getNumber();
    api.call(
        operation,
        () -> {
          // Only send what differs, so a re-run over an unchanged promotion edits nothing and sends
          // no notifications.
          if (!draft.title().equals(pr.getTitle())) {
            pr.setTitle(draft.title());
          }
          if (!draft.body().equals(Objects.toString(pr.getBody(), ""))) {
            pr.setBody(draft.body());
          }
          return null;
        });
    List<String> warnings = new ArrayList<>();
    Set<String> labels = decorate(pr, labelNames(pr.getLabels()), draft, warnings);
    return api.call(
        operation, () -> toPullRequest(pr, draft.title(), draft.body(), labels, warnings));
  }

  /**
   * Adds missing labels, assignees and review requests; returns the labels the pull request now
   * has. Each failure becomes one warning: the pull request exists whatever happens here.
   */
  private Set<String> decorate(
      GHPullRequest pr, Set<String> present, PullRequestDraft draft, List<String> warnings) {
    Set<String> labels = new TreeSet<>(present);
    List<String> missing = draft.labels().stream().filter(l -> !present.contains(l)).toList();
    if (!missing.isEmpty()) {
      warnOnFailure(
          warnings,
          "adding labels " + missing + " to pull request #" + pr.getNumber(),
          operation -> {
            List<GHLabel> now =
                retryingUnresolvedNode(
                    operation, () -> pr.addLabels(missing.toArray(String[]::new)));
            labels.addAll(labelNames(now));
          });
    }
    requestFrom(
        warnings,
        draft.assignees(),
        "assigning " + draft.assignees() + " to pull request #" + pr.getNumber(),
        this::users,
        pr::addAssignees);
    requestFrom(
        warnings,
        draft.reviewers(),
        "requesting reviews from " + draft.reviewers() + " on pull request #" + pr.getNumber(),
        this::users,
        pr::requestReviewers);
    requestFrom(
        warnings,
        draft.teamReviewers(),
        "requesting reviews from teams "
            + draft.teamReviewers()
            + " on pull request #"
            + pr.getNumber(),
        this::teams,
        pr::requestTeamReviewers);
    return labels;
  }

  /** Who (or what) a name on the pull request draft is on GitHub. */
  private interface Lookup<T> {
    List<T> of(List<String> names, String operation);
  }

  /** A change to the pull request that names {@code T}s (users, teams). */
  private interface PullRequestUpdate<T> {
    void apply(List<T> named) throws IOException;
  }

  /**
   * When {@code names} is not empty: looks them up and applies {@code update} with them, waiting
   * out GitHub's lag on a new pull request; a failure becomes a warning, not a failed run.
   */
  private <T> void requestFrom(
      List<String> warnings,
      List<String> names,
      String operation,
      Lookup<T> lookup,
      PullRequestUpdate<T> update) {
    if (names.isEmpty()) {
      return;
    }
    warnOnFailure(
        warnings,
        operation,
        step -> {
          List<T> named = lookup.of(names, step);
          retryingUnresolvedNode(
              step,
              () -> {
                update.apply(named);
                return null;
              });
        });
  }

  private List<GHUser> users(List<String> logins, String operation) {
    List<GHUser> users = new ArrayList<>();
    for (String login : logins) {
      users.add(api.call(operation, () -> api.github().getUser(login)));
    }
    return users;
  }

  private List<GHTeam> teams(List<String> slugs, String operation) {
    GHOrganization org =
        api.call(operation, () -> api.github().getOrganization(api.repositoryName().split("/")[0]));
    List<GHTeam> teams = new ArrayList<>();
    for (String slug : slugs) {
      teams.add(api.call(operation, () -> org.getTeamBySlug(slug)));
    }
    return teams;
  }

  private static void warnOnFailure(
      List<String> warnings, String operation, Consumer<String> step) {
    try {
      step.accept(operation);
    } catch (CountersignException e) {
      warnings.add(e.getMessage() + e.hint().map(h -> "; " + h).orElse(""));
    }
  }

  private <T> T retryingUnresolvedNode(String operation, GitHubApi.GitHubCall<T> action) {
    Duration delay = FIRST_DELAY;
    for (int attempt = 1; ; attempt++) {
      try {
        return action.run();
      } catch (HttpException e) {
        boolean lagging =
            e.getResponseCode() == 422 && String.valueOf(e.getMessage()).contains(UNRESOLVED_NODE);
        if (!lagging || attempt >= NODE_ATTEMPTS) {
          throw api.translate(e, operation);
        }
      } catch (IOException | GHException e) {
        throw api.translate(e, operation);
      }
      try {
        api.sleeper().sleep(delay);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new RemoteProblem("Interrupted while waiting to retry " + operation, null, e);
      }
      delay = delay.multipliedBy(2).compareTo(MAX_DELAY) > 0 ? MAX_DELAY : delay.multipliedBy(2);
    }
  }

  /**
   * {@code pr} as GitHub describes it, with {@code title} and {@code body} as they now are (an
   * update does not refresh {@code pr}'s own).
   */
  private static PullRequest toPullRequest(
      GHPullRequest pr, String title, String body, Set<String> labels, List<String> warnings)
      throws IOException {
    return new PullRequest(
        pr.getNumber(),
        String.valueOf(pr.getHtmlUrl()),
        pr.getHead().getRef(),
        pr.getBase().getRef(),
        title,
        body,
        pr.isDraft(),
        labels,
        false,
        warnings);
  }

  private static Set<String> labelNames(Collection<GHLabel> labels) {
    return labels == null
        ? Set.of()
        : labels.stream().map(GHLabel::getName).collect(Collectors.toCollection(TreeSet::new));
  }
}
