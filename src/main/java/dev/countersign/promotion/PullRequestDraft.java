package dev.countersign.promotion;

import java.util.List;
import java.util.Objects;

/**
 * What a promotion pull request should look like. Lists keep the caller's order (it is the order
 * requests are sent in) and drop duplicates.
 *
 * @param head the branch to merge, without an {@code owner:} prefix
 * @param base the branch to merge into
 * @param reviewers user logins asked to review
 * @param teamReviewers team slugs (in the repository's organisation) asked to review
 * @param draft open as a draft; only applies when the pull request is created
 * @param assignees user logins the pull request is assigned to
 */
public record PullRequestDraft(
    String title,
    String body,
    String head,
    String base,
    List<String> labels,
    List<String> reviewers,
    List<String> teamReviewers,
    boolean draft,
    List<String> assignees) {

  public PullRequestDraft {
    requireText(title, "title");
    requireText(head, "head");
    requireText(base, "base");
    body = body == null ? "" : body;
    labels = distinct(labels);
    reviewers = distinct(reviewers);
    teamReviewers = distinct(teamReviewers);
    assignees = distinct(assignees);
  }

  /** A draft with no labels or reviewers, opened ready for review. */
  public static PullRequestDraft of(String title, String body, String head, String base) {
    return new PullRequestDraft(
        title, body, head, base, List.of(), List.of(), List.of(), false, List.of());
  }

  public PullRequestDraft withLabels(List<String> newLabels) {
    return new PullRequestDraft(
        title, body, head, base, newLabels, reviewers, teamReviewers, draft, assignees);
  }

  public PullRequestDraft withReviewers(List<String> users, List<String> teams) {
    return new PullRequestDraft(title, body, head, base, labels, users, teams, draft, assignees);
  }

  public PullRequestDraft withTitleAndBody(String newTitle, String newBody) {
    return new PullRequestDraft(
        newTitle, newBody, head, base, labels, reviewers, teamReviewers, draft, assignees);
  }

  public PullRequestDraft asDraft() {
    return new PullRequestDraft(
        title, body, head, base, labels, reviewers, teamReviewers, true, assignees);
  }

  public PullRequestDraft withAssignees(List<String> users) {
    return new PullRequestDraft(
        title, body, head, base, labels, reviewers, teamReviewers, draft, users);
  }

  private static void requireText(String value, String name) {
    Objects.requireNonNull(value, name);
    if (value.isBlank()) {
      throw new IllegalArgumentException(name + " must not be blank");
    }
  }

  private static List<String> distinct(List<String> values) {
    return values == null
        ? List.of()
        : values.stream().map(String::strip).filter(v -> !v.isEmpty()).distinct().toList();
  }
}
