package dev.countersign.promotion;

import dev.countersign.git.CommitMessage;
import dev.countersign.git.CommitRequest;
import dev.countersign.git.GitIdentity;
import java.util.Objects;
import java.util.Optional;

/**
 * Who the bot branch's commits are by, and the run id in their {@value
 * CommitMessage#MARKER_TRAILER} trailer (so the merged-PR pipeline recognises them as countersign's
 * own).
 */
public record CommitAuthorship(
    GitIdentity author, GitIdentity committer, String runId, boolean signoff) {

  public CommitAuthorship {
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(committer, "committer");
    Objects.requireNonNull(runId, "runId");
  }

  CommitRequest request(String subject, String body) {
    return new CommitRequest(
        CommitMessage.compose(
            subject,
            body,
            CommitMessage.countersignTrailers(
                runId, signoff ? Optional.of(author) : Optional.empty())),
        author,
        committer);
  }
}
