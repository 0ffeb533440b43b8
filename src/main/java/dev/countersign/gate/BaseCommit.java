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

  /** How far back {@link #history} looks for earlier versions. */
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
   * Every content the files at or under {@code paths} (files or directories) held, as far as the
   * local history goes (and at most {@value #HISTORY_DEPTH} commits back), by repository-relative
   * file path, the base's own first; one walk for all paths.
   */
  Map<Path, List<GitWorkspace.FileVersion>> history(Collection<Path> paths) {
    Map<Path, List<GitWorkspace.FileVersion>> byPath = new HashMap<>();
    List<String> names = paths.stream().map(p -> RepositoryPaths.slashed(p.normalize())).toList();
    git.history(commitId, names, HISTORY_DEPTH)
        .forEach((name, versions) -> byPath.put(Path.of(name), versions));
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
      return git.readFile(
          commitId, RepositoryPaths.slashed(RepositoryFiles.insideRepository(relative)));
    }

    @Override
    public boolean isDirectory(Path relative) {
      String dir = RepositoryPaths.slashed(RepositoryFiles.insideRepository(relative));
      return !git.entries(commitId, dir).isEmpty();
    }

    @Override
    public SortedMap<Path, byte[]> filesUnder(Path relative) {
      SortedMap<Path, byte[]> files = new TreeMap<>();
      git.readFiles(commitId, RepositoryPaths.slashed(RepositoryFiles.insideRepository(relative)))
          .forEach((path, bytes) -> files.put(Path.of(path), bytes));
      return files;
    }
  }
}
