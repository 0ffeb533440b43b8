package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ConfigurationYaml;
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
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

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
    public Optional<byte[]> readRuleFile(Path relative) {
      String path = RepositoryPaths.slashed(RepositoryFiles.insideRepository(relative));
      // The size from the object header: a blob over the limit is never loaded.
      boolean tooLarge =
          git.entries(commitId, path).stream()
              .anyMatch(
                  entry ->
                      entry.path().equals(path)
                          && entry.kind() == GitWorkspace.TreeEntry.Kind.FILE
                          && entry.size() > ConfigurationYaml.MAX_BYTES);
      if (tooLarge) {
        throw ConfigurationYaml.tooLarge(relative);
      }
      return git.readFile(commitId, path);
    }

    @Override
    public SortedSet<Path> filesAt(Path relative) {
      String path = RepositoryPaths.slashed(RepositoryFiles.insideRepository(relative));
      SortedSet<Path> files = new TreeSet<>();
      for (GitWorkspace.TreeEntry entry : git.entries(commitId, path)) {
        // entries also lists a link or file on the way to the path: not files at it.
        boolean at = entry.path().equals(path) || entry.path().startsWith(path + "/");
        if (at && entry.kind() == GitWorkspace.TreeEntry.Kind.FILE) {
          files.add(Path.of(entry.path()));
        }
      }
      return files;
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
