package dev.countersign.promotion;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * A pull request as the host reported it after our last call.
 *
 * @param number the host's number for it ({@code #42})
 * @param url where people look at it (the HTML page, not the API resource)
 * @param headBranch the branch being merged, without an {@code owner:} prefix
 * @param baseBranch the branch merged into
 * @param labels label names, sorted
 * @param adopted {@link PullRequestHost#create} found this one already open (GitHub's 422 "A pull
 *     request already exists") and updated it instead of opening a new one
 * @param warnings what could not be applied after the pull request was opened or updated (labels,
 *     reviewers, assignees), one sentence each; the pull request itself stands
 */
public record PullRequest(
    int number,
    String url,
    String headBranch,
    String baseBranch,
    String title,
    String body,
    boolean draft,
    Set<String> labels,
    boolean adopted,
    List<String> warnings) {

  public PullRequest {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(headBranch, "headBranch");
    Objects.requireNonNull(baseBranch, "baseBranch");
    Objects.requireNonNull(title, "title");
    body = body == null ? "" : body;
    labels = Set.copyOf(new TreeSet<>(labels));
    warnings = List.copyOf(warnings);
  }

  /** A pull request read from the host: neither adopted nor carrying warnings. */
  public PullRequest(
      int number,
      String url,
      String headBranch,
      String baseBranch,
      String title,
      String body,
      boolean draft,
      Set<String> labels) {
    this(number, url, headBranch, baseBranch, title, body, draft, labels, false, List.of());
  }

  public PullRequest adopted(boolean value) {
    return new PullRequest(
        number, url, headBranch, baseBranch, title, body, draft, labels, value, warnings);
  }

  public PullRequest withWarnings(List<String> value) {
    return new PullRequest(
        number, url, headBranch, baseBranch, title, body, draft, labels, adopted, value);
  }
}
