package dev.countersign.promotion;

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
 */
public record PullRequest(
    int number,
    String url,
    String headBranch,
    String baseBranch,
    String title,
    String body,
    boolean draft,
    Set<String> labels) {

  public PullRequest {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(headBranch, "headBranch");
    Objects.requireNonNull(baseBranch, "baseBranch");
    Objects.requireNonNull(title, "title");
    body = body == null ? "" : body;
    labels = Set.copyOf(new TreeSet<>(labels));
  }
}
