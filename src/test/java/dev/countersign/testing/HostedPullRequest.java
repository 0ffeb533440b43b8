package dev.countersign.testing;

import java.util.Set;

/**
 * A pull request as the host itself holds it (what GitHub's web page would show), read by tests
 * straight from a fake's state rather than through the adapter under test.
 */
public record HostedPullRequest(
    int number,
    String head,
    String base,
    String title,
    String body,
    boolean open,
    boolean draft,
    Set<String> labels,
    Set<String> reviewers,
    Set<String> teamReviewers) {

  public HostedPullRequest {
    labels = Set.copyOf(labels);
    reviewers = Set.copyOf(reviewers);
    teamReviewers = Set.copyOf(teamReviewers);
  }
}
