package dev.countersign.git;

import java.util.Objects;

/**
 * What to commit the current index as. The time comes from the workspace's clock and is UTC.
 *
 * @param message the full message, trailers included (see {@link CommitMessage})
 */
public record CommitRequest(String message, GitIdentity author, GitIdentity committer) {
  public CommitRequest {
    Objects.requireNonNull(message, "message");
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(committer, "committer");
  }
}
