package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.RepositoryPaths;
import java.nio.file.Path;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The commit a pull request targets (its base), read from git objects, never from the work tree:
 * its trust policy, keys and governance policies judge the pull request, and its signed files are
 * what the pull request may change only the way countersign changes them.
 *
 * @param git the repository holding the commit
 * @param commitId the full id of the base commit
 */
public record BaseCommit(GitWorkspace git, String commitId) {

  /** How far back {@link #history} looks for earlier versions of a path. */
  static final int HISTORY_DEPTH = 10_000;

  public BaseCommit {
    Objects.requireNonNull(git, "git");
    Objects.requireNonNull(commitId, "commitId");
  }

  /** The base commit's files. */
  public RepositoryFiles files() {
    return new Files(git, commitId);
  }

  /**
   * Earlier contents of each of {@code paths} as far as the local history goes (and at most {@value
   * #HISTORY_DEPTH} commits back), the base's own first; one walk for all paths.
   */
  Map<Path, List<GitWorkspace.FileVersion>> history(Collection<Path> paths) {
    Map<Path, List<GitWorkspace.FileVersion>> byPath = new HashMap<>();
    Map<String, Path> names = new HashMap<>();
    paths.forEach(p -> names.put(RepositoryPaths.slashed(p.normalize()), p));
    git.history(commitId, names.keySet(), HISTORY_DEPTH)
        .forEach((name, versions) -> byPath.put(names.get(name), versions));
    return byPath;
  }

  /** A commit's tree as {@link RepositoryFiles}: regular files only, links never followed. */
  private record Files(GitWorkspace git, String commitId) implements RepositoryFiles {

    @Override
    public String describe() {
      return "base commit " + abbreviate(commitId);
    }

    @Override
    public Optional<byte[]> read(Path relative) {
      return git.readFile(commitId, RepositoryPaths.slashed(relative.normalize()));
    }

    @Override
    public boolean isDirectory(Path relative) {
      String dir = RepositoryPaths.slashed(relative.normalize());
      return !git.entries(commitId, dir).isEmpty();
    }

    @Override
    public SortedMap<Path, byte[]> filesUnder(Path relative) {
      SortedMap<Path, byte[]> files = new TreeMap<>();
      git.readFiles(commitId, RepositoryPaths.slashed(relative.normalize()))
          .forEach((path, bytes) -> files.put(Path.of(path), bytes));
      return files;
    }
  }
}
