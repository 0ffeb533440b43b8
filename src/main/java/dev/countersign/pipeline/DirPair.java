package dev.countersign.pipeline;

import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.UsageProblem;

/**
 * An unsigned directory and the signed directory its manifests move to, repository-relative without
 * leading or trailing slashes.
 */
public record DirPair(String from, String to) {

  public static final DirPair DEFAULT = new DirPair("unsigned", "signed");

  public DirPair {
    from = normalize(from, "from");
    to = normalize(to, "to");
    if (from.equals(to) || from.startsWith(to + "/") || to.startsWith(from + "/")) {
      // A signed directory inside the unsigned one would be signed again on the next run.
      throw new UsageProblem(
          "The directories " + from + " and " + to + " overlap",
          "perhaps you should use separate trees, e.g. unsigned:signed");
    }
  }

  /** Parses {@code from:to}, as in the {@code dirs} input and the {@code --dir} option. */
  public static DirPair parse(String spec) {
    String s = spec == null ? "" : spec.strip();
    int colon = s.indexOf(':');
    if (colon <= 0 || colon == s.length() - 1 || s.indexOf(':', colon + 1) >= 0) {
      throw new UsageProblem(
          "--dir \"" + spec + "\" is not a directory pair",
          "perhaps you should write it as FROM:TO, e.g. unsigned:signed");
    }
    return new DirPair(s.substring(0, colon), s.substring(colon + 1));
  }

  /** {@code from/<relative>} becomes {@code to/<relative>}. */
  public String targetOf(String sourcePath) {
    return to + sourcePath.substring(from.length());
  }

  private static String normalize(String dir, String which) {
    String d = RepositoryPaths.directory(dir == null ? null : dir.strip());
    boolean bad = d.isEmpty() || d.startsWith("/");
    for (String segment : d.split("/", -1)) {
      bad |=
          segment.isEmpty()
              || segment.equals(".")
              || segment.equals("..")
              || segment.equalsIgnoreCase(".git");
    }
    if (bad) {
      throw new UsageProblem(
          "Invalid " + which + " directory \"" + dir + "\"",
          "perhaps you should give a path relative to the repository root, e.g. unsigned");
    }
    return d;
  }

  @Override
  public String toString() {
    return from + ":" + to;
  }
}
