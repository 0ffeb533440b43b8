package dev.countersign.git;

/**
 * How the remote answered a push. Rejections are results, not exceptions: the caller decides
 * whether to fetch and retry ({@link Rejected}) or to give up or open a pull request instead
 * ({@link Refused}). Transport failures (network, authentication) are thrown as problems.
 */
public sealed interface PushOutcome {

  /** The branch now points at {@code commitId} (or already did). */
  record Pushed(String branch, String commitId, boolean alreadyUpToDate) implements PushOutcome {}

  /**
   * The remote branch moved (non-fast-forward, failed lease) or may not be deleted; fetching the
   * fresh branch and trying again may succeed.
   *
   * @param status jgit's status name, e.g. {@code REJECTED_NONFASTFORWARD}
   */
  record Rejected(String branch, String status, String message) implements PushOutcome {}

  /**
   * The remote refused for its own reasons, typically a protected branch ("GH006: Protected branch
   * update failed ... Changes must be made through a pull request"). Retrying will not help.
   *
   * @param reason the ref's rejection reason as sent by the remote (e.g. "protected branch hook
   *     declined")
   * @param remoteMessages everything the remote printed ("remote: ..." lines), verbatim except that
   *     URL credentials are removed
   */
  record Refused(String branch, String reason, String remoteMessages) implements PushOutcome {
    /** Reason and messages in one text, for reports and pull request bodies. */
    public String describe() {
      String messages = remoteMessages.strip();
      return messages.isEmpty() ? reason : reason + "\n" + messages;
    }
  }
}
