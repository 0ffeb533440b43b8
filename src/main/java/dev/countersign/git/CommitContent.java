package dev.countersign.git;

import dev.countersign.support.Records;

/**
 * One commit as a change to its first parent: what another system needs to make the same commit
 * (GitHub's Git Data API, for commits GitHub signs).
 *
 * @param id the commit
 * @param parent its first parent
 * @param parentTree the parent's tree, the base the change applies to
 * @param message the full message, trailers included
 * @param changes files written (exact bytes; all regular, non-executable files) and deleted
 *     relative to the parent
 */
public record CommitContent(
    String id, String parent, String parentTree, String message, ChangeSet changes) {
  public CommitContent {
    Records.requireNonNull(CommitContent.class, id, parent, parentTree, message, changes);
  }
}
