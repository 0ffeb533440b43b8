package dev.countersign.promotion;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitAuthorship;
import java.util.ArrayList;
import java.util.List;

/**
 * What a bot branch changes on top of the base, built file by file: the pull request's rows and the
 * change set to commit grow together, so the table always describes the commit.
 */
final class ProposedChanges {

  private final SignatureFacts facts;
  private final List<FileChange> rows = new ArrayList<>();
  private ChangeSet changes = ChangeSet.empty();

  ProposedChanges(SignatureFacts facts) {
    this.facts = facts;
  }

  /** Writes a signed file, {@code changed} when the base has a file at {@code path} already. */
  void write(String path, byte[] bytes, boolean changed) {
    rows.add(
        facts
            .of(path, bytes)
            .as(path, changed ? FileChange.Change.CHANGED : FileChange.Change.ADDED));
    changes = changes.write(path, bytes);
  }

  void delete(String path) {
    rows.add(FileChange.removed(path));
    changes = changes.delete(path);
  }

  PromotionPlan plan() {
    return new PromotionPlan(rows);
  }

  /**
   * The content for {@link PullRequestPublisher#createOrUpdateBranch}: these changes on {@code
   * baseCommit}, committed with {@code subject} and a body listing them by path.
   */
  PullRequestPublisher.Changes onBase(
      String baseCommit, CommitAuthorship authorship, String subject) {
    StringBuilder body = new StringBuilder();
    plan()
        .changes()
        .forEach(c -> body.append(c.change().word()).append(' ').append(c.path()).append('\n'));
    return new PullRequestPublisher.Changes(
        baseCommit, changes, authorship.request(subject, body.toString()));
  }
}
