package dev.countersign.git;

import java.util.ArrayList;
import java.util.List;
import org.eclipse.jgit.ignore.FastIgnoreRule;

/**
 * Ignore files in gitignore syntax, each scoped to the directory it sits in, matched as Flux's
 * source-controller matches its {@code .sourceignore} files when it builds the artifact Flux
 * deploys (fluxcd/pkg {@code sourceignore.LoadIgnorePatterns}, go-git's gitignore matcher): the
 * patterns of every file, shallower directories first, lines in order; the last pattern that
 * matches a path decides ({@code !pattern} keeps it); a pattern that matches a directory on the way
 * matches everything below it; blank lines and lines starting with {@code #} are no patterns.
 *
 * <p>Immutable once built; not thread-safe while files are being added.
 */
public final class IgnorePatterns {

  private record Scoped(String directory, FastIgnoreRule rule) {}

  private final List<Scoped> patterns = new ArrayList<>();

  /**
   * Adds the patterns of one ignore file. Add the files of shallower directories first.
   *
   * @param directory the directory the file sits in, repository-relative, {@code /}-separated,
   *     empty for the root
   * @param text the file's content
   */
  public IgnorePatterns add(String directory, String text) {
    for (String line : text.split("\n", -1)) {
      String pattern = line.endsWith("\r") ? line.substring(0, line.length() - 1) : line;
      if (pattern.startsWith("#") || pattern.isBlank()) {
        continue;
      }
      FastIgnoreRule rule = new FastIgnoreRule(pattern);
      if (!rule.isEmpty()) {
        patterns.add(new Scoped(directory, rule));
      }
    }
    return this;
  }

  /** True when the file at {@code path} (repository-relative, {@code /}-separated) is ignored. */
  public boolean ignores(String path) {
    for (int i = patterns.size() - 1; i >= 0; i--) {
      Scoped scoped = patterns.get(i);
      String prefix = scoped.directory().isEmpty() ? "" : scoped.directory() + "/";
      if (!path.startsWith(prefix)) {
        continue;
      }
      if (matches(scoped.rule(), path.substring(prefix.length()))) {
        return scoped.rule().getResult();
      }
    }
    return false;
  }

  /** The file itself, or a directory on its way below the pattern's directory. */
  private static boolean matches(FastIgnoreRule rule, String relative) {
    if (rule.isMatch(relative, false, true)) {
      return true;
    }
    for (int slash = relative.indexOf('/'); slash > 0; slash = relative.indexOf('/', slash + 1)) {
      if (rule.isMatch(relative.substring(0, slash), true, true)) {
        return true;
      }
    }
    return false;
  }
}
