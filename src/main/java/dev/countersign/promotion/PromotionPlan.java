package dev.countersign.promotion;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The files one promotion changes, sorted by path, computed without side effects. A dry run and a
 * real run built from the same inputs are equal, and render to the same bytes.
 *
 * @param changes one entry per path, sorted by path (code-point order, independent of locale)
 */
public record PromotionPlan(List<FileChange> changes) {

  public PromotionPlan {
    Objects.requireNonNull(changes, "changes");
    List<FileChange> sorted = new ArrayList<>(changes);
    sorted.sort(Comparator.comparing(FileChange::path));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).path().equals(sorted.get(i - 1).path())) {
        throw new IllegalArgumentException(
            "path listed twice in a promotion: " + sorted.get(i).path());
      }
    }
    changes = List.copyOf(sorted);
  }

  public static PromotionPlan of(FileChange... changes) {
    return new PromotionPlan(List.of(changes));
  }

  /** True when there is nothing to promote; no pull request should be opened. */
  public boolean isEmpty() {
    return changes.isEmpty();
  }

  /** Distinct identities that signed the added and changed files, sorted. */
  public SortedSet<String> signers() {
    SortedSet<String> signers = new TreeSet<>();
    changes.forEach(c -> c.signer().ifPresent(signers::add));
    return signers;
  }
}
