package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
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

  /**
   * Whether the checked-out work tree holds the regular file at {@code relative} byte for byte as
   * this commit does, however large it is: by size, then by git blob id, the work tree's file
   * streamed once and never held whole, the commit's blob not read at all (its size and id are in
   * the tree). False when either side has no regular file there, or the work tree's cannot be read.
   */
  boolean sameInWorkTree(Path relative) {
    Path normal = RepositoryFiles.insideRepository(relative);
    String path = RepositoryPaths.slashed(normal);
    Optional<Long> committedSize =
        git.entries(commitId, path).stream()
            .filter(e -> e.path().equals(path) && e.kind() == GitWorkspace.TreeEntry.Kind.FILE)
            .map(GitWorkspace.TreeEntry::size)
            .findFirst();
    Optional<BasicFileAttributes> inWorkTree = NoFollowPaths.lstat(git.directory().resolve(normal));
    if (committedSize.isEmpty()
        || inWorkTree.isEmpty()
        || !inWorkTree.get().isRegularFile()
        || inWorkTree.get().size() != committedSize.get()) {
      // A file of another size differs without being read: a pull request's file of gigabytes
      // is not hashed to find that out.
      return false;
    }
    try {
      return git.workTreeDifferences(commitId, List.of(path)).isEmpty();
    } catch (InputProblem unreadable) {
      return false;
    }
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
