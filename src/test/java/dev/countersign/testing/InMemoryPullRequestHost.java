package dev.countersign.testing;

import dev.countersign.promotion.PullRequest;
import dev.countersign.promotion.PullRequestDraft;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.support.problems.RemoteProblem;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A {@link PullRequestHost} that keeps pull requests in memory, for use-case tests. It follows the
 * same contract as {@code GitHubPullRequestHost} ({@code PullRequestHostContractTest} runs against
 * both) and records what was asked of it: {@link #opened()}, {@link #updated()}, {@link #closed()},
 * {@link #deletedBranches()}.
 */
public final class InMemoryPullRequestHost implements PullRequestHost {

  /** One call to {@link #update} (or a create that found an open pull request). */
  public record Update(int number, PullRequestDraft draft) {}

  private final Map<Integer, HostedPullRequest> pulls = new TreeMap<>();
  private final List<PullRequestDraft> opened = new ArrayList<>();
  private final List<Update> updated = new ArrayList<>();
  private final List<Integer> closed = new ArrayList<>();
  private final List<String> deletedBranches = new ArrayList<>();
  private final Map<Integer, String> mergedAt = new TreeMap<>();
  private final Set<String> protectedBranches = new TreeSet<>();
  private int nextNumber = 1;

  /** A person merges pull request {@code number} while its branch is at {@code headCommit}. */
  public void merge(int number, String headCommit) {
    HostedPullRequest pr = pulls.get(number);
    pulls.put(number, closedCopy(pr));
    mergedAt.put(number, headCommit);
  }

  /** The host will say {@code branch} is protected. */
  public void protect(String branch) {
    protectedBranches.add(branch);
  }

  @Override
  public boolean mergedAt(String headBranch, String baseBranch, String headCommit) {
    return mergedAt.entrySet().stream()
        .anyMatch(
            e ->
                e.getValue().equals(headCommit)
                    && pulls.get(e.getKey()).head().equals(headBranch)
                    && pulls.get(e.getKey()).base().equals(baseBranch));
  }

  @Override
  public Optional<Boolean> isProtected(String branch) {
    return Optional.of(protectedBranches.contains(branch));
  }

  /** Drafts that opened a new pull request, in call order. */
  public List<PullRequestDraft> opened() {
    return List.copyOf(opened);
  }

  /** Updates made, in call order, including creates that turned into updates. */
  public List<Update> updated() {
    return List.copyOf(updated);
  }

  public List<Integer> closed() {
    return List.copyOf(closed);
  }

  public List<String> deletedBranches() {
    return List.copyOf(deletedBranches);
  }

  /** Opens a pull request as someone else (an earlier run) would, without recording it. */
  public HostedPullRequest seedOpen(PullRequestDraft draft) {
    HostedPullRequest pr =
        new HostedPullRequest(
            nextNumber++,
            draft.head(),
            draft.base(),
            draft.title(),
            draft.body(),
            true,
            draft.draft(),
            new TreeSet<>(draft.labels()),
            new TreeSet<>(draft.reviewers()),
            new TreeSet<>(draft.teamReviewers()));
    pulls.put(pr.number(), pr);
    return pr;
  }

  /** The host's view of pull request {@code number}. */
  public Optional<HostedPullRequest> hosted(int number) {
    return Optional.ofNullable(pulls.get(number));
  }

  @Override
  public Optional<PullRequest> findOpen(String headBranch, String baseBranch) {
    return openFor(headBranch, baseBranch).map(InMemoryPullRequestHost::view);
  }

  @Override
  public PullRequest create(PullRequestDraft draft) {
    Optional<HostedPullRequest> existing = openFor(draft.head(), draft.base());
    if (existing.isPresent()) {
      return update(view(existing.get()), draft).adopted(true);
    }
    opened.add(draft);
    return view(seedOpen(draft));
  }

  @Override
  public PullRequest update(PullRequest existing, PullRequestDraft draft) {
    HostedPullRequest pr = pulls.get(existing.number());
    if (pr == null) {
      throw new RemoteProblem(
          "GitHub answered HTTP 404 (Not Found) while reading pull request #" + existing.number(),
          null);
    }
    updated.add(new Update(pr.number(), draft));
    HostedPullRequest changed =
        new HostedPullRequest(
            pr.number(),
            pr.head(),
            pr.base(),
            draft.title(),
            draft.body(),
            pr.open(),
            pr.draft(),
            union(pr.labels(), draft.labels()),
            union(pr.reviewers(), draft.reviewers()),
            union(pr.teamReviewers(), draft.teamReviewers()));
    pulls.put(changed.number(), changed);
    return view(changed);
  }

  @Override
  public void close(PullRequest pullRequest) {
    HostedPullRequest pr = pulls.get(pullRequest.number());
    if (pr == null) {
      throw new RemoteProblem(
          "GitHub answered HTTP 404 (Not Found) while closing pull request #"
              + pullRequest.number(),
          null);
    }
    closed.add(pr.number());
    pulls.put(pr.number(), closedCopy(pr));
  }

  @Override
  public void deleteBranch(String branch) {
    deletedBranches.add(branch);
    // GitHub closes open pull requests whose head branch disappears.
    pulls.replaceAll((n, pr) -> pr.open() && pr.head().equals(branch) ? closedCopy(pr) : pr);
  }

  private Optional<HostedPullRequest> openFor(String head, String base) {
    return pulls.values().stream()
        .filter(pr -> pr.open() && pr.head().equals(head) && pr.base().equals(base))
        .findFirst();
  }

  private static HostedPullRequest closedCopy(HostedPullRequest pr) {
    return new HostedPullRequest(
        pr.number(),
        pr.head(),
        pr.base(),
        pr.title(),
        pr.body(),
        false,
        pr.draft(),
        pr.labels(),
        pr.reviewers(),
        pr.teamReviewers());
  }

  private static Set<String> union(Set<String> present, List<String> added) {
    Set<String> all = new LinkedHashSet<>(present);
    all.addAll(added);
    return all;
  }

  private static PullRequest view(HostedPullRequest pr) {
    return new PullRequest(
        pr.number(),
        "https://github.invalid/pull/" + pr.number(),
        pr.head(),
        pr.base(),
        pr.title(),
        pr.body(),
        pr.draft(),
        pr.labels(),
        false,
        List.of());
  }
}
