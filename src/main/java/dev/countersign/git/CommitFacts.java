package dev.countersign.git;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a commit says about itself, for deciding whether countersign made it.
 *
 * @param message the full commit message
 * @param committerName the committer's name as recorded (any text: commits are author-controlled)
 * @param committerEmail the committer's email as recorded
 * @param changes the paths it changed against its only parent, sorted; empty when that cannot be
 *     told from this clone (no parent, a shallow boundary, a merge)
 */
public record CommitFacts(
    String message, String committerName, String committerEmail, Optional<List<Change>> changes) {

  /** One changed path; {@code deleted} when the commit removes it. */
  public record Change(String path, boolean deleted) {}

  public CommitFacts {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(committerName, "committerName");
    Objects.requireNonNull(committerEmail, "committerEmail");
    Objects.requireNonNull(changes, "changes");
  }
}
