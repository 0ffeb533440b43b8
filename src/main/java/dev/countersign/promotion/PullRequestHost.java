package dev.countersign.promotion;

import java.util.Optional;

/**
 * Where promotion pull requests live. Speaks only our types; adapters translate their library's
 * failures into {@code dev.countersign.support.problems} exceptions ({@code RemoteProblem} when the
 * host failed, {@code EnvironmentProblem} when the token or permissions are wrong).
 *
 * <p>Every operation is safe to repeat: a second promotion run for the same head branch finds and
 * updates the pull request the first one opened instead of opening another.
 */
public interface PullRequestHost {

  /** The open pull request from {@code headBranch} into {@code baseBranch}, if there is one. */
  Optional<PullRequest> findOpen(String headBranch, String baseBranch);

  /**
   * Opens a pull request for {@code draft}, then applies its labels, assignees and reviewers. When
   * one is already open for the same head and base, updates that one instead (title, body, labels,
   * assignees, reviewers) and returns it marked {@link PullRequest#adopted()}. Labels, assignees or
   * reviewers that cannot be applied (a reviewer who is not a collaborator) do not fail the call:
   * the pull request exists, and they come back as {@link PullRequest#warnings()}.
   */
  PullRequest create(PullRequestDraft draft);

  /**
   * Brings {@code existing} in line with {@code draft}: title and body are replaced, labels,
   * assignees and reviewers are added (ones people added by hand are kept; failures to add them are
   * {@link PullRequest#warnings()}). The draft flag is only honoured at creation, because GitHub's
   * REST API cannot change it afterwards.
   */
  PullRequest update(PullRequest existing, PullRequestDraft draft);

  /** Closes the pull request without merging; closing a closed one is not an error. */
  void close(PullRequest pullRequest);

  /**
   * Deletes {@code branch} on the host, for when a promotion no longer differs from its base.
   * Deleting a branch that does not exist is not an error.
   */
  void deleteBranch(String branch);

  /**
   * True when a pull request from {@code headBranch} into {@code baseBranch} was merged while the
   * branch was at {@code headCommit}: a person merged countersign's pull request and the branch
   * holds nothing else.
   */
  boolean mergedAt(String headBranch, String baseBranch, String headCommit);

  /**
   * True when the host says {@code branch} is protected (GitHub's {@code protected} field of {@code
   * GET /repos/{owner}/{repo}/branches/{branch}}, readable with {@code contents: read}). Empty when
   * it cannot tell (the branch is unknown, or the lookup failed).
   */
  Optional<Boolean> isProtected(String branch);
}
