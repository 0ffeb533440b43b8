package dev.countersign.git;

import dev.countersign.git.GitWorkspace.FileVersion;
import dev.countersign.git.GitWorkspace.TreeEntry;
import dev.countersign.git.GitWorkspace.WorkTreeDifference;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.eclipse.jgit.errors.LargeObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.PathSuffixFilter;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * Reads commits and their trees: files, entries, history, the facts and content of one commit, and
 * where the work tree does not hold a commit's files. Changes nothing in the repository, its index
 * or its work tree.
 *
 * <p>A method named as one of {@link GitWorkspace} is that method of {@link JGitWorkspace}, whose
 * contract the interface states.
 */
final class CommitReader {

  private final WorkTreeRepository workTree;
  private final Repository repository;

  CommitReader(WorkTreeRepository workTree) {
    this.workTree = workTree;
    this.repository = workTree.repository();
  }

  String headCommitId() {
    try {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      if (head == null) {
        throw new EnvironmentProblem(
            "The repository in " + workTree.directory() + " has no commit checked out",
            "perhaps you should run actions/checkout with a ref that exists");
      }
      return head.name();
    } catch (IOException e) {
      throw workTree.readProblem("HEAD", e);
    }
  }

  SortedMap<String, byte[]> readFiles(String commitId, String dir) {
    String prefix = ChangeSet.checkedPath(RepositoryPaths.directory(dir));
    return readRegularFiles(
        commitId,
        PathFilter.create(prefix),
        tw -> Optional.of(tw.getPathString()),
        commitId + ":" + prefix);
  }

  /**
   * The regular files of {@code commitId} that {@code filter} passes, by the path {@code accepted}
   * gives for them (empty: skipped), read in one walk of the tree.
   */
  private SortedMap<String, byte[]> readRegularFiles(
      String commitId,
      TreeFilter filter,
      Function<TreeWalk, Optional<String>> accepted,
      String describe) {
    SortedMap<String, byte[]> files = new TreeMap<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(commitId));
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(filter);
      ObjectReader reader = tw.getObjectReader();
      while (tw.next()) {
        Optional<String> path = accepted.apply(tw);
        if (path.isPresent() && isRegularFile(tw.getFileMode(0))) {
          files.put(path.get(), load(reader, tw.getObjectId(0), path.get()));
        }
      }
      return files;
    } catch (IOException e) {
      throw workTree.readProblem(describe, e);
    }
  }

  List<TreeEntry> entries(String commitId, String dir) {
    String prefix = ChangeSet.checkedPath(RepositoryPaths.directory(dir));
    List<TreeEntry> found = new ArrayList<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(commitId));
      ObjectReader reader = tw.getObjectReader();
      // A path filter does not report a parent that is not a tree (a link named like a parent
      // directory), so the parents are looked up one by one.
      int slash = prefix.indexOf('/');
      while (slash > 0) {
        try (TreeWalk parent =
            TreeWalk.forPath(repository, prefix.substring(0, slash), commit.getTree())) {
          if (parent == null) {
            return found;
          }
          if (parent.getFileMode(0) != FileMode.TREE) {
            found.add(
                new TreeEntry(
                    strictPath(parent.getRawPath()),
                    kindOf(parent.getFileMode(0)),
                    parent.getFileMode(0) == FileMode.GITLINK
                        ? 0
                        : reader.getObjectSize(parent.getObjectId(0), Constants.OBJ_BLOB)));
            return found;
          }
        }
        slash = prefix.indexOf('/', slash + 1);
      }
      tw.addTree(commit.getTree());
      tw.setRecursive(false);
      tw.setFilter(PathFilter.create(prefix));
      while (tw.next()) {
        String path = strictPath(tw.getRawPath());
        FileMode mode = tw.getFileMode(0);
        boolean below = path.startsWith(prefix + "/");
        if (mode == FileMode.TREE) {
          if (below) {
            found.add(new TreeEntry(path, TreeEntry.Kind.DIRECTORY, 0));
          }
          // The directory itself and its parents are entered, not listed.
          tw.enterSubtree();
          continue;
        }
        // A non-tree at the directory's own path or a parent's: a link where a directory should be.
        TreeEntry.Kind kind = kindOf(mode);
        long size =
            kind == TreeEntry.Kind.OTHER
                ? 0
                : reader.getObjectSize(tw.getObjectId(0), Constants.OBJ_BLOB);
        found.add(new TreeEntry(path, kind, size));
      }
      found.sort(Comparator.comparing(TreeEntry::path));
      return found;
    } catch (IOException e) {
      throw workTree.readProblem(commitId + ":" + prefix, e);
    }
  }

  List<TreeEntry> entriesNamed(String commitId, String name) {
    byte[] wanted = name.getBytes(StandardCharsets.UTF_8);
    List<TreeEntry> found = new ArrayList<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(commitId));
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(PathSuffixFilter.create(name));
      ObjectReader reader = tw.getObjectReader();
      while (tw.next()) {
        // The suffix filter also passes "x.sourceignore": the whole name must be the one wanted.
        byte[] raw = tw.getRawPath();
        int start = raw.length - wanted.length;
        if (start > 0 && raw[start - 1] != '/'
            || !Arrays.equals(raw, start, raw.length, wanted, 0, wanted.length)) {
          continue;
        }
        FileMode mode = tw.getFileMode(0);
        TreeEntry.Kind kind = kindOf(mode);
        long size =
            kind == TreeEntry.Kind.OTHER
                ? 0
                : reader.getObjectSize(tw.getObjectId(0), Constants.OBJ_BLOB);
        found.add(new TreeEntry(strictPath(raw), kind, size));
      }
      found.sort(Comparator.comparing(TreeEntry::path));
      return found;
    } catch (IOException e) {
      throw workTree.readProblem(commitId + ": every " + name, e);
    }
  }

  private static TreeEntry.Kind kindOf(FileMode mode) {
    return isRegularFile(mode)
        ? TreeEntry.Kind.FILE
        : mode == FileMode.SYMLINK ? TreeEntry.Kind.LINK : TreeEntry.Kind.OTHER;
  }

  /**
   * A raw tree path as UTF-8, with U+FFFD for bytes that are not (jgit would fall back to Latin-1).
   */
  private static String strictPath(byte[] raw) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .replaceWith("\uFFFD")
          .decode(ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException("a replacing decoder reported an error", e);
    }
  }

  Optional<byte[]> readFile(String commitId, String path) {
    String p = ChangeSet.checkedPath(path);
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(commitId));
      try (TreeWalk tw = TreeWalk.forPath(repository, p, commit.getTree())) {
        if (tw == null || !isRegularFile(tw.getFileMode(0))) {
          return Optional.empty();
        }
        return Optional.of(load(tw.getObjectReader(), tw.getObjectId(0), p));
      }
    } catch (IOException e) {
      throw workTree.readProblem(commitId + ":" + p, e);
    }
  }

  SortedMap<String, byte[]> readFiles(String commitId, Collection<String> paths) {
    if (paths.isEmpty()) {
      return new TreeMap<>();
    }
    Set<String> wanted = new HashSet<>();
    for (String path : paths) {
      wanted.add(ChangeSet.checkedPath(path));
    }
    return readRegularFiles(
        commitId,
        PathFilterGroup.createFromStrings(wanted),
        tw -> {
          // Exactly the listed path, byte for byte, as readFile's lookup: not a non-tree parent
          // the filter also passes, nor a name that only decodes to the same string.
          String path = strictPath(tw.getRawPath());
          return wanted.contains(path)
                  && Arrays.equals(tw.getRawPath(), path.getBytes(StandardCharsets.UTF_8))
              ? Optional.of(path)
              : Optional.empty();
        },
        wanted.size() + " listed files of " + commitId);
  }

  SortedMap<String, WorkTreeDifference> workTreeDifferences(
      String commitId, Collection<String> paths) {
    Set<String> wanted = new HashSet<>();
    for (String path : paths) {
      wanted.add(ChangeSet.checkedPath(path));
    }
    SortedMap<String, WorkTreeDifference> differences = new TreeMap<>();
    if (wanted.isEmpty()) {
      return differences;
    }
    Map<String, ObjectId> committed = new HashMap<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      tw.addTree(walk.parseCommit(workTree.resolve(commitId)).getTree());
      tw.setRecursive(true);
      tw.setFilter(PathFilterGroup.createFromStrings(wanted));
      while (tw.next()) {
        // Exactly a listed path, as readFiles takes it.
        String path = strictPath(tw.getRawPath());
        if (wanted.contains(path)
            && Arrays.equals(tw.getRawPath(), path.getBytes(StandardCharsets.UTF_8))
            && isRegularFile(tw.getFileMode(0))) {
          committed.put(path, tw.getObjectId(0));
        }
      }
    } catch (IOException e) {
      throw workTree.readProblem(wanted.size() + " listed files of " + commitId, e);
    }
    ObjectInserter.Formatter ids = new ObjectInserter.Formatter();
    for (String path : wanted) {
      Path file = workTree.workTreeFile(path);
      Optional<ObjectId> inWorkTree = workTreeBlobId(ids, file, path);
      ObjectId inCommit = committed.get(path);
      if (inWorkTree.isEmpty() && inCommit != null) {
        differences.put(path, WorkTreeDifference.NOT_IN_WORK_TREE);
      } else if (inWorkTree.isPresent() && inCommit == null) {
        differences.put(path, WorkTreeDifference.NOT_IN_COMMIT);
      } else if (inWorkTree.isPresent() && !inWorkTree.get().equals(inCommit)) {
        differences.put(path, WorkTreeDifference.CHANGED);
      }
    }
    return differences;
  }

  /** The blob id of the regular file {@code file} as it is, streamed; empty when it is none. */
  private Optional<ObjectId> workTreeBlobId(ObjectInserter.Formatter ids, Path file, String path) {
    Optional<BasicFileAttributes> attributes = NoFollowPaths.lstat(file);
    if (attributes.isEmpty() || !attributes.get().isRegularFile()) {
      return Optional.empty();
    }
    try (InputStream in =
        Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(ids.idFor(Constants.OBJ_BLOB, attributes.get().size(), in));
    } catch (IOException e) {
      // Also a file that changed size while it was read: git's id needs the length up front.
      throw InputProblem.unreadable(Path.of(path), e);
    }
  }

  /**
   * A blob's bytes. One too large for jgit to hold in memory is an input problem naming the file,
   * not a crash: callers check sizes with {@link #entries} first, so this is a backstop.
   */
  private static byte[] load(ObjectReader reader, ObjectId blob, String path) throws IOException {
    try {
      return reader.open(blob, Constants.OBJ_BLOB).getBytes();
    } catch (LargeObjectException e) {
      throw new InputProblem(
          Path.of(path),
          0,
          "is too large to read (" + e.getMessage() + ")",
          "perhaps you should split it into smaller files",
          e);
    }
  }

  List<String> parents(String commitId) {
    try (ObjectReader reader = repository.newObjectReader()) {
      // Parsed outside a walk of this repository: a walk reads .git/shallow and would report a
      // boundary commit of a shallow clone as having no parents.
      byte[] raw =
          reader.open(ObjectId.fromString(commitId), Constants.OBJ_COMMIT).getCachedBytes();
      RevCommit commit = RevCommit.parse(raw);
      List<String> parents = new ArrayList<>();
      for (RevCommit parent : commit.getParents()) {
        parents.add(parent.name());
      }
      return List.copyOf(parents);
    } catch (IOException e) {
      throw workTree.readProblem(commitId, e);
    }
  }

  Optional<String> findCommit(String revision) {
    try {
      ObjectId id = repository.resolve(revision + "^{commit}");
      if (id == null) {
        return Optional.empty();
      }
      try (RevWalk walk = new RevWalk(repository)) {
        walk.parseCommit(id);
      }
      return Optional.of(id.name());
    } catch (IOException | RuntimeException missing) {
      // Unknown, ambiguous, or named but not present (a shallow clone's boundary): not here.
      return Optional.empty();
    }
  }

  Map<String, List<FileVersion>> history(
      String commitId, Collection<String> paths, int maxCommits) {
    Map<String, List<FileVersion>> versions = new TreeMap<>();
    List<String> scope = paths.stream().map(ChangeSet::checkedPath).distinct().toList();
    if (scope.isEmpty()) {
      return versions;
    }
    Map<String, Set<ObjectId>> seen = new HashMap<>();
    TreeFilter under = PathFilterGroup.createFromStrings(scope);
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit start = walk.parseCommit(workTree.resolve(commitId));
      // Every commit is read as its change to its first parent (side branches are walked too),
      // so a version is found once, where it was introduced; the start commit whole, first.
      collect(walk, start, null, under, versions, seen);
      walk.markStart(start);
      int count = 0;
      for (RevCommit commit : walk) {
        if (++count > maxCommits) {
          break;
        }
        RevCommit parent = commit.getParentCount() == 0 ? null : commit.getParent(0);
        try {
          if (parent != null) {
            walk.parseHeaders(parent);
          }
        } catch (org.eclipse.jgit.errors.MissingObjectException shallowBoundary) {
          // The parent is beyond a shallow clone's boundary: this commit is read whole.
          parent = null;
        }
        collect(walk, commit, parent, under, versions, seen);
      }
      return versions;
    } catch (org.eclipse.jgit.errors.MissingObjectException shallowEnd) {
      // The local history ends here (a shallow clone): what was found is all there is.
      return versions;
    } catch (IOException e) {
      throw workTree.readProblem(commitId + ":" + scope, e);
    }
  }

  /**
   * Adds the regular files under {@code under} that {@code commit} holds and {@code parent} (when
   * given) does not hold with the same content.
   */
  private void collect(
      RevWalk walk,
      RevCommit commit,
      RevCommit parent,
      TreeFilter under,
      Map<String, List<FileVersion>> versions,
      Map<String, Set<ObjectId>> seen)
      throws IOException {
    try (TreeWalk tw = new TreeWalk(walk.getObjectReader())) {
      if (parent == null) {
        tw.addTree(commit.getTree());
        tw.setFilter(under);
      } else {
        tw.addTree(commit.getTree());
        tw.addTree(parent.getTree());
        tw.setFilter(AndTreeFilter.create(under, TreeFilter.ANY_DIFF));
      }
      tw.setRecursive(true);
      while (tw.next()) {
        String path = tw.getPathString();
        if (isRegularFile(tw.getFileMode(0))
            && seen.computeIfAbsent(path, p -> new HashSet<>()).add(tw.getObjectId(0).copy())) {
          versions
              .computeIfAbsent(path, p -> new ArrayList<>())
              .add(
                  new FileVersion(
                      commit.name(), load(tw.getObjectReader(), tw.getObjectId(0), path)));
        }
      }
    }
  }

  String resolveCommit(String revision) {
    return readCommit(revision, RevCommit::name);
  }

  Instant commitTime(String commitId) {
    return readCommit(commitId, commit -> Instant.ofEpochSecond(commit.getCommitTime()));
  }

  String lastCommitMessage(String revision) {
    return readCommit(revision, RevCommit::getFullMessage);
  }

  /** What {@code read} takes from the commit {@code revision} names. */
  private <T> T readCommit(String revision, Function<RevCommit, T> read) {
    try (RevWalk walk = new RevWalk(repository)) {
      return read.apply(walk.parseCommit(workTree.resolve(revision)));
    } catch (IOException e) {
      throw workTree.readProblem(revision, e);
    }
  }

  CommitFacts commitFacts(String revision) {
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(revision));
      PersonIdent committer = commit.getCommitterIdent();
      return new CommitFacts(
          commit.getFullMessage(),
          committer.getName(),
          committer.getEmailAddress(),
          changesAgainstParent(walk, commit));
    } catch (IOException e) {
      throw workTree.readProblem(revision, e);
    }
  }

  /** Paths {@code commit} changed against its only parent; empty when that parent is not here. */
  private Optional<List<CommitFacts.Change>> changesAgainstParent(RevWalk walk, RevCommit commit) {
    if (commit.getParentCount() != 1) {
      return Optional.empty();
    }
    try (TreeWalk tw = new TreeWalk(repository)) {
      RevCommit parent = walk.parseCommit(commit.getParent(0));
      tw.addTree(parent.getTree());
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      List<CommitFacts.Change> changes = new ArrayList<>();
      while (tw.next()) {
        changes.add(
            new CommitFacts.Change(tw.getPathString(), tw.getFileMode(1) == FileMode.MISSING));
      }
      return Optional.of(List.copyOf(changes));
    } catch (IOException e) {
      // A shallow clone has the commit but not its parent: the changes cannot be told.
      return Optional.empty();
    }
  }

  CommitContent commitContent(String commitId) {
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(workTree.resolve(commitId));
      if (commit.getParentCount() == 0) {
        throw new InternalProblem(
            "The commit " + commit.name() + " has no parent to describe it against");
      }
      RevCommit parent = walk.parseCommit(commit.getParent(0));
      tw.addTree(parent.getTree());
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      ChangeSet changes = ChangeSet.empty();
      ObjectReader reader = tw.getObjectReader();
      while (tw.next()) {
        FileMode after = tw.getFileMode(1);
        FileMode before = tw.getFileMode(0);
        if (after == FileMode.MISSING) {
          changes = changes.delete(tw.getPathString());
        } else if (after == FileMode.REGULAR_FILE
            && (before == FileMode.MISSING || isRegularFile(before))) {
          // An executable file countersign rewrote is staged as a plain one: the API's tree
          // entry (mode 100644) makes the same change.
          changes =
              changes.write(
                  tw.getPathString(),
                  reader.open(tw.getObjectId(1), Constants.OBJ_BLOB).getBytes());
        } else {
          // countersign only ever writes and deletes regular files; anything else is not ours.
          throw new InternalProblem(
              "The commit "
                  + commit.name()
                  + " changes "
                  + tw.getPathString()
                  + " to a "
                  + after
                  + ", which only regular files may be");
        }
      }
      return new CommitContent(
          commit.name(), parent.name(), parent.getTree().name(), commit.getFullMessage(), changes);
    } catch (IOException e) {
      throw workTree.readProblem(commitId, e);
    }
  }

  boolean sameChange(String commitA, String commitB) {
    try (ObjectReader reader = repository.newObjectReader()) {
      RevCommit a = rawCommit(reader, commitA);
      RevCommit b = rawCommit(reader, commitB);
      return a.getTree().equals(b.getTree()) && Arrays.equals(a.getParents(), b.getParents());
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not read commits " + commitA + " and " + commitB + " in " + workTree.directory(),
          "perhaps you should check that the repository is not corrupt",
          e);
    }
  }

  /**
   * The commit as its object says, parents included: a {@link RevWalk} of this repository would
   * give a commit at the shallow boundary none.
   */
  private RevCommit rawCommit(ObjectReader reader, String revision) throws IOException {
    return RevCommit.parse(
        reader.open(workTree.resolve(revision), Constants.OBJ_COMMIT).getCachedBytes());
  }

  private static boolean isRegularFile(FileMode mode) {
    return mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE;
  }
}
