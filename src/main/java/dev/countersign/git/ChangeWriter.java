package dev.countersign.git;

import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.TemporaryFiles;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;

/**
 * Writes countersign's change ({@link ChangeSet}) into the work tree and index and commits HEAD's
 * tree with exactly that change made to it, or moves HEAD to the same commit made elsewhere. Asks
 * {@link WorkTreeCheckout} whether work nobody committed is in the way before it writes anything.
 *
 * <p>A method named as one of {@link GitWorkspace} is that method of {@link JGitWorkspace}, whose
 * contract the interface states.
 */
final class ChangeWriter {

  /** Names of staged files; unguessable so that nothing can be waiting at one. */
  private static final java.security.SecureRandom RANDOM_NAMES = new java.security.SecureRandom();

  // From this many new blobs on, apply writes one pack instead of loose objects, as git's own
  // receive-pack does (transfer.unpackLimit 100): a loose object is a temp file, a deflate stream
  // and a rename each, 1.3 ms per file and most of a 5,000-manifest run's system time.
  static final int PACK_FROM_BLOBS = 100;

  private final WorkTreeRepository workTree;
  private final WorkTreeCheckout checkouts;
  private final Path directory;
  private final Repository repository;
  private final Clock clock;
  private final Consumer<Path> afterWrite;

  /**
   * @param clock stamps commit times (UTC)
   * @param afterWrite called with every file and directory written, see {@link JGitWorkspace#open}
   */
  ChangeWriter(
      WorkTreeRepository workTree,
      WorkTreeCheckout checkouts,
      Clock clock,
      Consumer<Path> afterWrite) {
    this.workTree = workTree;
    this.checkouts = checkouts;
    this.directory = workTree.directory();
    this.repository = workTree.repository();
    this.clock = clock;
    this.afterWrite = afterWrite;
  }

  private ObjectInserter inserterFor(int blobs) {
    if (blobs >= PACK_FROM_BLOBS
        && repository.getObjectDatabase()
            instanceof org.eclipse.jgit.internal.storage.file.ObjectDirectory objects) {
      // jgit's PackInserter (internal API, stable since jgit 5): one pack + index per flush.
      return objects.newPackInserter();
    }
    return repository.newObjectInserter();
  }

  void apply(ChangeSet changes) {
    write(changes);
  }

  void refuseToOverwriteUncommittedWork(String commitId, ChangeSet changes) {
    workTreeFiles(changes);
    ObjectId onto;
    try {
      onto = workTree.resolve(commitId);
    } catch (IOException e) {
      throw workTree.readProblem(commitId, e);
    }
    // Loose objects: the bytes asked about are mostly in the repository already (a run asks with
    // the unsigned files), which this inserter skips and a pack inserter would copy.
    try (ObjectInserter inserter = repository.newObjectInserter()) {
      Map<String, ObjectId> blobs = new HashMap<>();
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        blobs.put(write.getKey(), inserter.insert(Constants.OBJ_BLOB, write.getValue()));
      }
      checkedTree(onto, changes, blobs, inserter);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not compare the work tree in "
              + directory
              + " with the "
              + (changes.writes().size() + changes.deletes().size())
              + " path(s) countersign would write or delete",
          "perhaps you should check that the workspace is readable and has free space",
          e);
    }
  }

  /**
   * {@link #apply}, returning the tree of HEAD with {@code changes} made to it, in the object
   * database with its blobs.
   */
  private ObjectId write(ChangeSet changes) {
    Map<String, Path> files = workTreeFiles(changes);
    Staging staging = new Staging();
    String current = null;
    boolean applied = false;
    DirCache index = null;
    try (ObjectInserter inserter = inserterFor(changes.writes().size())) {
      // First every blob and the tree of the change, so that uncommitted work in its way stops
      // it before the work tree is touched; then every file in full beside its target. All with
      // no lock held: a full disk here leaves nothing behind (the finally below removes what was
      // staged).
      Map<String, ObjectId> blobs = new HashMap<>();
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        blobs.put(current, inserter.insert(Constants.OBJ_BLOB, write.getValue()));
      }
      current = null;
      ObjectId tree =
          checkedTree(repository.resolve(Constants.HEAD + "^{commit}"), changes, blobs, inserter);
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        staging.write(files.get(current), write.getValue());
      }
      current = null;
      index = repository.lockDirCache();
      DirCacheEditor editor = index.editor();
      // Then renames, which need no space for content.
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        Path file = staging.commit(files.get(current));
        ObjectId blob = blobs.get(current);
        Instant modified = Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant();
        int length = write.getValue().length;
        editor.add(new RegularFileEdit(current, blob, length, modified));
      }
      for (String path : changes.deletes()) {
        current = path;
        Files.deleteIfExists(files.get(path));
        editor.add(new DirCacheEditor.DeletePath(path));
      }
      current = null;
      editor.commit(); // writes the index and releases the lock
      index = null;
      applied = true;
      return tree;
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write "
              + (current == null ? changes.toString() : current)
              + " to the work tree in "
              + directory
              + " while applying "
              + changes.writes().size()
              + " write(s) and "
              + changes.deletes().size()
              + " deletion(s)"
              + (staging.committed() ? "" : "; the work tree and index were left as they were")
              + ": "
              + e.getMessage(),
          "perhaps you should check that the workspace is writable, has free space, and that no"
              + " other git process holds .git/index.lock",
          e);
    } finally {
      if (!applied) {
        staging.discard();
      }
      staging.close();
      if (index != null) {
        index.unlock();
      }
    }
  }

  /**
   * Files of one {@link #apply} written in full beside their targets ({@link #write}) and then
   * renamed onto them ({@link #commit}); {@link #discard} removes what was not renamed, and the
   * directories made for them when none of their files arrived. Until {@link #close}, a JVM that
   * stops first (SIGTERM from a cancelled job) removes them on its way out ({@link
   * TemporaryFiles}): otherwise they stay beside the manifests as untracked files, for a later step
   * that commits everything to push.
   */
  private final class Staging implements AutoCloseable {
    private final Map<Path, Path> staged = new HashMap<>();
    private final Set<Path> readyParents = new HashSet<>();
    private final List<Path> createdDirectories = new ArrayList<>();
    private final List<Path> removedIfStopped = new ArrayList<>();
    private boolean committed;

    /** The files are renamed or discarded: nothing is left for the JVM to remove if it stops. */
    @Override
    public void close() {
      TemporaryFiles.unregister(removedIfStopped);
    }

    /**
     * Writes {@code bytes} to a new file beside {@code file} ({@link
     * WorkTreeRepository#workTreeFile} checked it), creating its parents without following a link
     * anywhere below the work tree's root; parents made or checked for an earlier file need no
     * second walk. What is at {@code file} itself must be a regular file or nothing, so the rename
     * cannot fail on it later.
     */
    void write(Path file, byte[] bytes) throws IOException {
      if (readyParents.add(file.getParent())) {
        List<Path> created = NoFollowPaths.createParents(directory, file);
        createdDirectories.addAll(created);
        for (Path made : created) {
          removedIfStopped.add(made);
          TemporaryFiles.register(made);
        }
        created.forEach(afterWrite);
      }
      NoFollowPaths.lstat(file)
          .filter(existing -> !existing.isRegularFile())
          .ifPresent(
              existing -> {
                throw new InputProblem(
                    directory.relativize(file),
                    0,
                    "is in the work tree but is not a regular file, so the signed file cannot be"
                        + " written there",
                    "perhaps you should remove it from the work tree");
              });
      Path temporary =
          file.resolveSibling(".countersign-" + Long.toHexString(RANDOM_NAMES.nextLong()) + ".tmp");
      staged.put(file, temporary);
      try (var out =
          Files.newOutputStream(
              temporary,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS)) {
        removedIfStopped.add(temporary);
        TemporaryFiles.register(temporary);
        out.write(bytes);
      }
      afterWrite.accept(temporary);
    }

    /** Renames the file staged for {@code file} onto it; returns {@code file}. */
    Path commit(Path file) throws IOException {
      committed = true;
      // rename(2) replaces what is at the target, a link included, and never follows it.
      Files.move(staged.get(file), file, StandardCopyOption.ATOMIC_MOVE);
      staged.remove(file);
      return file;
    }

    boolean committed() {
      return committed;
    }

    void discard() {
      for (Path temporary : staged.values()) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException e) {
          // Best effort after a failure that is being reported; an untracked leftover is inert.
        }
      }
      staged.clear();
      for (int i = createdDirectories.size() - 1; i >= 0; i--) {
        try {
          Files.deleteIfExists(createdDirectories.get(i));
        } catch (IOException notEmpty) {
          // A file did arrive in it: it stays.
        }
      }
      createdDirectories.clear();
    }
  }

  /**
   * {@link WorkTreeRepository#workTreeFile} for every path {@code changes} writes or deletes, by
   * path: all are checked before anything is written, so a link anywhere on the way stops the whole
   * change set with the work tree untouched. The checked paths are the ones written.
   */
  private Map<String, Path> workTreeFiles(ChangeSet changes) {
    Map<String, Path> files = new HashMap<>();
    for (String path : changes.writes().keySet()) {
      files.put(path, workTree.workTreeFile(path));
    }
    for (String path : changes.deletes()) {
      files.put(path, workTree.workTreeFile(path));
    }
    return files;
  }

  String commit(ChangeSet changes, CommitRequest request) {
    ObjectId tree = write(changes);
    try (ObjectInserter inserter = repository.newObjectInserter();
        RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      RevCommit parent = head == null ? null : walk.parseCommit(head);
      if (parent != null && parent.getTree().equals(tree)) {
        throw new InternalProblem("Nothing to commit in " + directory + ": the change is in HEAD");
      }
      Instant now = clock.instant();
      CommitBuilder commit = new CommitBuilder();
      commit.setTreeId(tree);
      if (head != null) {
        commit.setParentId(head);
      }
      commit.setAuthor(person(request.author(), now));
      commit.setCommitter(person(request.committer(), now));
      commit.setEncoding(StandardCharsets.UTF_8);
      commit.setMessage(request.message());
      ObjectId id = inserter.insert(commit);
      inserter.flush();

      // Updating HEAD moves the checked-out branch, or HEAD itself when detached.
      RefUpdate update = repository.updateRef(Constants.HEAD);
      update.setNewObjectId(id);
      update.setExpectedOldObjectId(head == null ? ObjectId.zeroId() : head);
      update.setRefLogIdent(person(request.committer(), now));
      update.setRefLogMessage("commit (countersign): " + firstLine(request.message()), false);
      // The commit is HEAD's child by construction, and the expected old value still guards the
      // update. Forced, because jgit's fast-forward check walks parents and sees none at a shallow
      // boundary: a commit identical to one fetched one commit deep (same change, same second, as
      // when a bot branch already holds it) would be REJECTED.
      update.setForceUpdate(true);
      RefUpdate.Result result = update.update(walk);
      if (result != RefUpdate.Result.NEW
          && result != RefUpdate.Result.FAST_FORWARD
          && result != RefUpdate.Result.FORCED) {
        throw new EnvironmentProblem(
            "Could not move HEAD to the new commit ("
                + result
                + ") in "
                + directory
                + " while committing",
            "perhaps you should make sure no other git process is using the repository");
      }
      return id.name();
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write a commit in " + directory + " while committing",
          "perhaps you should check that the repository is writable",
          e);
    }
  }

  /**
   * The tree of the commit {@code onto} (null: none, HEAD on a branch with no commit) with {@code
   * changes} (whose blobs are {@code blobs}, by path) made to it, inserted and flushed, once moving
   * index and work tree from HEAD's tree to it is known to overwrite nothing uncommitted ({@link
   * WorkTreeCheckout#workInTheWay}). When {@code onto} is not HEAD's commit, the move there first
   * ({@link WorkTreeCheckout#resetTo}) is tested too: a path it changes that holds uncommitted work
   * stops it as well, even where the change puts back what HEAD has.
   *
   * @throws UsageProblem naming the paths in the way; nothing in the work tree or index changed
   */
  private ObjectId checkedTree(
      ObjectId onto, ChangeSet changes, Map<String, ObjectId> blobs, ObjectInserter inserter)
      throws IOException {
    try (RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      ObjectId headTree = head == null ? null : walk.parseCommit(head).getTree();
      RevCommit parent = onto == null ? null : walk.parseCommit(onto);
      ObjectId tree = treeWith(walk.getObjectReader(), parent, changes, blobs, inserter);
      inserter.flush();
      SortedSet<String> inTheWay = new TreeSet<>(checkouts.workInTheWay(headTree, tree));
      boolean movesFirst = parent != null && !parent.getTree().equals(headTree);
      if (movesFirst) {
        inTheWay.addAll(checkouts.workInTheWay(headTree, parent.getTree()));
      }
      if (!inTheWay.isEmpty()) {
        throw checkouts.uncommittedWorkInTheWay(
            List.copyOf(inTheWay),
            movesFirst
                ? "moving to "
                    + CommitIds.abbreviate(parent.name())
                    + " and writing countersign's change there, which change them,"
                : "writing countersign's change, which writes or deletes them,",
            null);
      }
      return tree;
    }
  }

  /**
   * The tree of {@code parent} (none: empty) with {@code changes} made to it: never the index, so
   * what a step before countersign staged (a file added, edited, deleted or made executable, an
   * intent-to-add entry) cannot ride along under countersign's name.
   */
  private static ObjectId treeWith(
      ObjectReader reader,
      RevCommit parent,
      ChangeSet changes,
      Map<String, ObjectId> blobs,
      ObjectInserter inserter)
      throws IOException {
    DirCache tree = DirCache.newInCore();
    org.eclipse.jgit.dircache.DirCacheBuilder builder = tree.builder();
    if (parent != null) {
      builder.addTree(new byte[0], DirCacheEntry.STAGE_0, reader, parent.getTree());
    }
    builder.finish();
    DirCacheEditor editor = tree.editor();
    for (String path : changes.writes().keySet()) {
      ObjectId blob = blobs.get(path);
      editor.add(new RegularFileEdit(path, blob, 0, null));
    }
    for (String path : changes.deletes()) {
      editor.add(new DirCacheEditor.DeletePath(path));
    }
    editor.finish();
    return tree.writeTree(inserter);
  }

  private static PersonIdent person(GitIdentity identity, Instant when) {
    return new PersonIdent(identity.name(), identity.email(), when, ZoneOffset.UTC);
  }

  void adoptCommit(String commitId) {
    try (RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      RevCommit adopted = walk.parseCommit(workTree.resolve(commitId));
      if (head == null || !walk.parseCommit(head).getTree().equals(adopted.getTree())) {
        throw new InternalProblem(
            "The commit " + commitId + " does not hold HEAD's tree, so HEAD cannot move to it");
      }
      RefUpdate update = repository.updateRef(Constants.HEAD);
      update.setNewObjectId(adopted);
      update.setExpectedOldObjectId(head);
      update.setRefLogMessage("countersign: the same commit, as the remote made it", false);
      workTree.failOnLock(update.forceUpdate(), "move HEAD to " + commitId);
    } catch (IOException e) {
      throw workTree.readProblem(commitId, e);
    }
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  /**
   * Makes a path a regular file holding {@code blob}. With {@code modified} set, the entry also
   * records the written file's length and time, so that git sees the work tree file as clean
   * without hashing it again; without, the entry is for a tree that has no work tree.
   */
  private static final class RegularFileEdit extends DirCacheEditor.PathEdit {
    private final ObjectId blob;
    private final long length;
    private final Instant modified;

    RegularFileEdit(String path, ObjectId blob, long length, Instant modified) {
      super(path);
      this.blob = blob;
      this.length = length;
      this.modified = modified;
    }

    @Override
    public void apply(DirCacheEntry entry) {
      entry.setFileMode(FileMode.REGULAR_FILE);
      entry.setObjectId(blob);
      if (modified != null) {
        entry.setLength(length);
        entry.setLastModified(modified);
      }
    }
  }
}
