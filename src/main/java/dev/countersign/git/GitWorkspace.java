package dev.countersign.git;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * A git work tree countersign commits to and pushes from. Works from a branch, a detached HEAD and
 * a shallow clone alike: the branch to push to is always given explicitly, never inferred from
 * HEAD. Behaviour does not depend on the user's or runner's git configuration (signing, hooks,
 * identities, line-ending conversion).
 *
 * <p>Not thread-safe: one workspace per job.
 */
public interface GitWorkspace extends GitPushes {

  /**
   * {@code local} with its pushes made by {@code pushes} instead; every other call goes to {@code
   * local}.
   */
  static GitWorkspace pushingThrough(GitWorkspace local, GitPushes pushes) {
    return new PushRouting(local, pushes).workspace();
  }

  /** The work tree's root directory. */
  Path directory();

  /** The commit HEAD points at (full hex id). */
  String headCommitId();

  /**
   * Every regular file under {@code directory} in the tree of {@code commitId}, recursively, as
   * repository-relative path (forward slashes) to bytes. Symlinks and submodules are left out.
   * Empty when the directory does not exist in that tree.
   */
  SortedMap<String, byte[]> readFiles(String commitId, String directory);

  /**
   * Every entry under {@code directory} in the tree of {@code commitId}, recursively, directories
   * included, sorted by path; plus {@code directory} itself or any of its parents when it exists
   * but is not a directory (a symbolic link, say). Nothing is loaded: file sizes come from the
   * object headers. Paths are decoded as UTF-8, with U+FFFD where the bytes are not UTF-8. Empty
   * when the directory does not exist in that tree.
   */
  List<TreeEntry> entries(String commitId, String directory);

  /**
   * Every entry named {@code name} anywhere in the tree of {@code commitId} that is not a directory
   * (files, links, submodules), sorted by path, as {@link #entries} describes them. One walk of the
   * whole tree; nothing is loaded. For files a tool reads in every directory of the repository,
   * such as Flux's {@code .sourceignore}.
   */
  List<TreeEntry> entriesNamed(String commitId, String name);

  /**
   * One entry of a commit's tree.
   *
   * @param path repository-relative, forward slashes
   * @param size in bytes for files and links (the link target's length), 0 otherwise
   */
  record TreeEntry(String path, Kind kind, long size) {

    /**
     * Git's entry modes, grouped: files (plain or executable), trees, symbolic links, the rest
     * (submodules).
     */
    public enum Kind {
      FILE,
      DIRECTORY,
      LINK,
      OTHER
    }
  }

  /**
   * The bytes of one file in the tree of {@code commitId}, if it is a regular file there.
   *
   * @throws dev.countersign.support.problems.InputProblem when the file is too large to load at all
   *     (callers check sizes with {@link #entries} first)
   */
  Optional<byte[]> readFile(String commitId, String path);

  /**
   * {@link #readFile} for each of {@code paths} in one walk of the tree (a walk per file is
   * quadratic in the directory's size): path to bytes for those that are regular files there,
   * absent for the others.
   *
   * @throws dev.countersign.support.problems.InputProblem when a file is too large to load at all
   */
  SortedMap<String, byte[]> readFiles(String commitId, Collection<String> paths);

  /**
   * Where the work tree does not hold the regular files at {@code paths} in the tree of {@code
   * commitId} byte for byte: by path, for the paths that differ. It differs where git's checkout
   * converted a file ({@code .gitattributes}: {@code eol}, {@code ident}, {@code
   * working-tree-encoding}, a filter), where the file was edited or deleted since, and where the
   * work tree has a file the commit has not. Compared as git compares them, by blob id: each file
   * is streamed once, never held whole. No link is followed; a path that is a regular file on
   * neither side is no difference.
   *
   * @throws dev.countersign.support.problems.InputProblem when a link is on the way to a path
   */
  SortedMap<String, WorkTreeDifference> workTreeDifferences(
      String commitId, Collection<String> paths);

  /** How a work tree file differs from the commit's. */
  enum WorkTreeDifference {
    /** Both have the file, with different bytes. */
    CHANGED,
    /** The commit has the file, the work tree has not. */
    NOT_IN_WORK_TREE,
    /** The work tree has the file, the commit has not. */
    NOT_IN_COMMIT
  }

  /** The full message of the commit {@code revision} resolves to (e.g. {@code HEAD}). */
  String lastCommitMessage(String revision);

  /**
   * Writes and deletes files in the work tree and stages exactly those bytes in the index (no clean
   * filters or line-ending conversion). Other index entries are left alone. Every file is written
   * in full beside its target before any target is replaced: when writing fails (a full disk, a
   * file that cannot be handed to the workspace's owner) what was written is removed again, and
   * work tree and index are as they were, never holding a half-written file. A JVM stopped while
   * writing (SIGTERM) removes the files not yet in place on its way out.
   *
   * @throws dev.countersign.support.problems.UsageProblem as {@link
   *     #refuseToOverwriteUncommittedWork} does, before anything is written
   */
  void apply(ChangeSet changes);

  /**
   * Stops when committing {@code changes} on {@code commitId} (HEAD's commit, or the one {@link
   * #resetTo} will move to first) would overwrite or delete work nobody committed: a path it writes
   * or deletes, or one the move to {@code commitId} changes, that a step before countersign edited
   * or staged (a deletion too), or an untracked file (one git does not ignore) where one of them
   * puts a file, unless that already holds what it would put there. The test {@link #resetTo} stops
   * on (git checkout's); {@link #apply} and {@link #commit} make it first too. For callers to ask
   * before the costly work that produces the bytes (signing): nothing in the work tree or index
   * changes.
   *
   * @throws dev.countersign.support.problems.InputProblem naming a link on the way to a path, as
   *     {@link #apply} does first
   * @throws dev.countersign.support.problems.UsageProblem naming those paths
   */
  void refuseToOverwriteUncommittedWork(String commitId, ChangeSet changes);

  /** Where HEAD is now: the branch it is on (empty when detached) and the commit. */
  Checkout checkout();

  /**
   * Where HEAD was, as {@link #checkout()} saw it.
   *
   * @param branch the full ref name ({@code refs/heads/main}), empty when HEAD was detached
   */
  record Checkout(Optional<String> branch, String commitId) {}

  /**
   * Puts HEAD back where {@code checkout} found it, after {@link #commit} or {@link #resetTo} moved
   * it: the branch at its commit again (a commit made on it is dropped from it, not from the
   * repository) and HEAD on it, or HEAD detached at the commit, with the paths that differ between
   * the two commits put back in index and work tree as that commit has them (like {@code git
   * checkout}). What else is uncommitted (a file a step before countersign edited or staged) and
   * untracked files stay. Does nothing when HEAD has not moved, so edits that nothing here made are
   * never reset.
   *
   * @throws dev.countersign.support.problems.EnvironmentProblem when a path to put back was edited
   *     since HEAD moved (nothing of the edit is overwritten)
   */
  void restore(Checkout checkout);

  /**
   * Records that {@code pushedCommit}, where HEAD is, is now {@code branch} on {@code remote}, so
   * that no ref of this clone says otherwise: when the run started on that branch ({@code start}),
   * the branch is moved to the commit and HEAD put on it, as after a plain commit and push (an
   * attempt before a lost race leaves it on a commit that was never pushed, and HEAD detached);
   * another branch the run started on, once HEAD has left it, is back at its start. The
   * remote-tracking ref of every configured remote with {@code remote}'s URL that tracks the branch
   * (its fetch refspec maps it) is moved to the commit too. Only refs move: index and work tree
   * already match HEAD.
   *
   * @throws dev.countersign.support.problems.InternalProblem when HEAD is not at {@code
   *     pushedCommit}
   */
  void recordPush(Checkout start, GitRemote remote, String branch, String pushedCommit);

  /**
   * Runs {@code work} and returns what it returns; when it throws, first puts the checkout of
   * {@code workspace} back where {@code start} found it ({@link #restore}), adding a failure to do
   * so to the thrown one as suppressed.
   */
  static <T> T restoringOnThrow(GitWorkspace workspace, Checkout start, Supplier<T> work) {
    try {
      return work.get();
    } catch (RuntimeException | Error failure) {
      try {
        workspace.restore(start);
      } catch (RuntimeException notRestored) {
        failure.addSuppressed(notRestored);
      }
      throw failure;
    }
  }

  /**
   * The tracked files whose staged or work tree content differs from HEAD (edited, deleted,
   * staged), sorted. Untracked files are not listed.
   */
  List<String> uncommittedChanges();

  /**
   * Applies {@code changes} ({@link #apply}) and commits HEAD's tree with exactly those changes
   * made to it on top of HEAD (moving the branch, or the detached HEAD); returns the new commit id.
   * The commit is never the index: whatever else the index holds (what a step before countersign
   * staged: a file added, edited, deleted or made executable, an intent-to-add entry) stays staged
   * as it was and is not committed under countersign's name. Never signs, never runs hooks.
   *
   * @throws dev.countersign.support.problems.UsageProblem as {@link
   *     #refuseToOverwriteUncommittedWork} does, before anything is written or committed
   */
  String commit(ChangeSet changes, CommitRequest request);

  /**
   * Fetches {@code refs/heads/<branch>} from the remote (one commit deep when this clone is
   * shallow) and returns its commit id.
   */
  String fetch(GitRemote remote, String branch);

  /**
   * Like {@link #fetch}, but a branch the remote does not have is an answer, not a failure: empty
   * then. For branches countersign creates on demand (promotion branches), whose absence is the
   * normal first-run state.
   */
  Optional<String> fetchIfExists(GitRemote remote, String branch);

  /**
   * True when the two commits make the same change: the same parents, in the same order, and
   * exactly the same tree (every file, its bytes and mode); their messages, authors and dates may
   * differ. Parents are read from the commits themselves, so a commit at this clone's shallow
   * boundary still has them.
   */
  boolean sameChange(String commitA, String commitB);

  /**
   * Detaches HEAD at {@code commitId}, with the paths that differ between HEAD's commit and it put
   * in index and work tree as it has them (like {@code git checkout --detach}, not a hard reset).
   * What else is uncommitted (a file a step before countersign edited or staged) and untracked
   * files stay. Never moves a local branch.
   *
   * @throws dev.countersign.support.problems.UsageProblem naming the paths, when one that differs
   *     holds uncommitted work (edited, staged, or an untracked file where {@code commitId} has
   *     one); nothing has moved then
   */
  void resetTo(String commitId);

  /**
   * The message, committer and changed paths of the commit {@code revision} resolves to, for the
   * loop guard. Changes are against its single parent; unknown (empty) when the parent is not in
   * this clone or the commit is a merge or a root.
   */
  CommitFacts commitFacts(String revision);

  /**
   * The full ids of the parents the commit {@code commitId} names, in order, read from the commit
   * object itself: a shallow clone's boundary commit still names its parents, though it lacks them.
   *
   * @throws dev.countersign.support.problems.EnvironmentProblem when this repository does not have
   *     the commit
   */
  List<String> parents(String commitId);

  /**
   * The full id of the commit {@code revision} names in this repository (a commit id, a ref), or
   * empty when this repository does not have it (not fetched, or shallow history).
   */
  Optional<String> findCommit(String revision);

  /**
   * The distinct contents of every regular file at or under {@code paths} (files or directories) in
   * the commits reachable from {@code commitId}, side branches included, as far as the local
   * history goes and at most {@code maxCommits} commits back: by file path, each content with the
   * commit that introduced it, newest first; one walk of the history for all paths. The contents at
   * {@code commitId} itself come first. A path that never held a regular file has no entry.
   */
  Map<String, List<FileVersion>> history(String commitId, Collection<String> paths, int maxCommits);

  /** One content a path held, and the newest commit that held it. */
  record FileVersion(String commitId, byte[] bytes) {}

  /**
   * {@code commitId} as a change to its first parent.
   *
   * @throws dev.countersign.support.problems.InternalProblem when it has no parent, or changes
   *     something other than regular files (a symbolic link, a submodule, an executable bit set); a
   *     file that was executable and is now a plain file is a write
   */
  CommitContent commitContent(String commitId);

  /**
   * Moves HEAD (the checked-out branch, or the detached HEAD) to {@code commitId}, a commit with
   * exactly HEAD's tree made elsewhere (the same change committed through GitHub's API). Index and
   * work tree already match it, so they are left alone.
   */
  void adoptCommit(String commitId);
}
