package dev.countersign.promotion;

import java.util.Optional;

/**
 * Where promotion pull requests live. Speaks only our types; adapters translate their library's
 * failures into {@code dev.countersign.support.problems} exceptions ({@code RemoteProblem} when
 * the host failed, {@code EnvironmentProblem} when the token or permissions are wrong).
 *
 * <p>Every operation is safe to repeat: a second promotion run for the same head branch finds and
 * updates the pull request the first one opened instead of opening another.
 */
public interface PullRequestHost {

  /** The open pull request from {@code headBranch} into {@code baseBranch}, if there is one. */
  Optional<PullRequest> findOpen(String headBranch, String baseBranch);

  /**
   * Opens a pull request for {@code draft}, then applies its labels and reviewers. When one is
   * already open for the same head and base, updates that one instead (title, body, labels,
   * reviewers) and returns it; the caller cannot tell the two apart except by the number. When
   * labels or reviewers cannot be applied the pull request stays open and the call fails; running
   * again finds it and finishes the job.
   */
  PullRequest create(PullRequestDraft draft);

  /**
   * Brings {@code existing} in line with {@code draft}: title and body are replaced, labels and
   * reviewers are added (ones people added by hand are kept). The draft flag is only honoured at
   * creation, because GitHub's REST API cannot change it afterwards.
   */
  PullRequest update(PullRequest existing, PullRequestDraft draft);

  /** Closes the pull request without merging; closing a closed one is not an error. */
  void close(PullRequest pullRequest);

  /**
   * Deletes {@code branch} on the host, for when a promotion no longer differs from its base.
   * Deleting a branch that does not exist is not an error.
   */
  void deleteBranch(String branch);
}
