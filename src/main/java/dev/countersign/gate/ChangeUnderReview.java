package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.support.problems.EnvironmentProblem;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The change a {@code pull_request}, {@code pull_request_target} or {@code merge_group} event asks
 * the gate about, and the check that the checkout is that change. The gate judges whatever is
 * checked out and its verdict is recorded for the event's head commit, so a checkout of anything
 * else would lend that commit a verdict on other content: on {@code pull_request_target} a default
 * actions/checkout checks out the base branch, and a checkout by branch name can pick up a commit
 * pushed after the event.
 *
 * @param event the event's name, for messages
 * @param head the change's head commit ({@code pull_request.head.sha}, {@code
 *     merge_group.head_sha}), full hex id
 * @param mergeCommits commits GitHub built for this event to merge {@code head} into the base
 *     ({@code GITHUB_SHA} on {@code pull_request}, {@code pull_request.merge_commit_sha}); a
 *     checkout of one of them counts only when it is a merge of the base's tip (first parent) and
 *     {@code head} (second parent), as GitHub builds it
 */
public record ChangeUnderReview(String event, String head, Set<String> mergeCommits) {

  public ChangeUnderReview {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(head, "head");
    mergeCommits = Set.copyOf(mergeCommits);
  }

  /**
   * Checks that HEAD of {@code git} is {@link #head}, or one of {@link #mergeCommits} with {@link
   * #head} as a parent.
   *
   * @return for a merge, the commit it merged {@link #head} into (its first parent: the base
   *     branch's tip when GitHub built it, which the payload's base commit may predate); empty when
   *     HEAD is {@link #head}
   * @throws EnvironmentProblem otherwise, naming both commits
   */
  public Optional<String> requireCheckedOut(GitWorkspace git) {
    String checkedOut = git.headCommitId();
    if (checkedOut.equals(head)) {
      return Optional.empty();
    }
    if (mergeCommits.contains(checkedOut)) {
      List<String> parents = git.parents(checkedOut);
      if (parents.size() == 2 && parents.get(1).equals(head)) {
        return Optional.of(parents.get(0));
      }
    }
    throw new EnvironmentProblem(
        "The checkout is commit "
            + abbreviate(checkedOut)
            + ", which is neither the "
            + event
            + " event's head commit "
            + abbreviate(head)
            + " nor GitHub's merge of it, while starting countersign check",
        "perhaps you should check out the pull request before the check step (on"
            + " pull_request_target actions/checkout checks out the base branch: give it ref:"
            + " ${{ github.event.pull_request.head.sha }}); the verdict is recorded for that"
            + " commit, so the gate judges only it");
  }
}
