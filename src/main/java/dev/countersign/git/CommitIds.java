package dev.countersign.git;

/** Commit ids as messages, branch descriptions and pull request bodies show them. */
public final class CommitIds {

  /** How many hex digits a shown id keeps: unambiguous in any repository countersign sees. */
  public static final int SHOWN_LENGTH = 12;

  private CommitIds() {}

  /** The first {@value #SHOWN_LENGTH} characters of {@code commitId} (all of a shorter one). */
  public static String abbreviate(String commitId) {
    return commitId.length() > SHOWN_LENGTH ? commitId.substring(0, SHOWN_LENGTH) : commitId;
  }
}
