package dev.countersign.git;

import java.util.Objects;
import java.util.Optional;

/**
 * Who countersign's commits are by (the signing commit, the bot branch's commits), the run id in
 * their {@value CommitMessage#MARKER_TRAILER} trailer (so the merged-PR pipeline recognises them as
 * its own), and whether they carry a {@value CommitMessage#SIGNED_OFF_BY} trailer for the author.
 */
public record CommitAuthorship(
    GitIdentity author, GitIdentity committer, String runId, boolean signoff) {

  public CommitAuthorship {
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(committer, "committer");
    Objects.requireNonNull(runId, "runId");
  }

  /** The commit of {@code subject} and {@code body}, with countersign's trailers. */
  public CommitRequest request(String subject, String body) {
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
