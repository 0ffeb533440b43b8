package dev.countersign.support;

import java.nio.file.Path;

/**
 * Paths as git and GitHub spell them: repository-relative, {@code /}-separated. The one place that
 * turns a {@link Path} or a user-typed directory into that form; it only rewrites text and checks
 * nothing (callers that accept user input still validate the result, e.g. {@code
 * ChangeSet.checkedPath}, {@code DirPair}).
 */
public final class RepositoryPaths {

  private RepositoryPaths() {}

  /** {@code path} with {@code /} separators (annotations, SARIF, git paths, messages). */
  public static String slashed(Path path) {
    return path.toString().replace('\\', '/');
  }

  /**
   * A directory as typed ({@code ./deploy/signed/}, {@code deploy\signed}) in the form git uses:
   * {@code /} separators, no leading {@code ./}, no trailing slash. {@code null} becomes {@code
   * ""}.
   */
  public static String directory(String dir) {
    String d = dir == null ? "" : dir.replace('\\', '/');
    while (d.startsWith("./")) {
      d = d.substring(2);
    }
    while (d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }
}
