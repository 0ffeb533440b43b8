package dev.countersign.promotion;

import dev.countersign.support.Records;
import java.util.List;
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
    body = body == null ? "" : body;
    labels = Set.copyOf(new TreeSet<>(labels));
    warnings = List.copyOf(warnings);
    Records.requireNonNull(
        PullRequest.class,
        number,
        url,
        headBranch,
        baseBranch,
        title,
        body,
        draft,
        labels,
        adopted,
        warnings);
  }

  public PullRequest adopted(boolean value) {
    return new PullRequest(
        number, url, headBranch, baseBranch, title, body, draft, labels, value, warnings);
  }
}
