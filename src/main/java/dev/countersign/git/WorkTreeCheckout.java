package dev.countersign.git;

import dev.countersign.git.GitWorkspace.Checkout;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.BiFunction;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheCheckout;
import org.eclipse.jgit.dircache.InvalidPathException;
import org.eclipse.jgit.errors.CorruptObjectException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectChecker;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;
import org.eclipse.jgit.util.SystemReader;

/**
 * Moves HEAD, index and work tree between commits as {@code git checkout} does, only the paths that
 * differ, and tells which paths hold work nobody committed: the test every move, and every write of
 * countersign's change ({@link ChangeWriter}), stops on before anything changes.
 *
 * <p>A method named as one of {@link GitWorkspace} is that method of {@link JGitWorkspace}, whose
 * contract the interface states.
 */
final class WorkTreeCheckout {

  private final WorkTreeRepository workTree;
  private final Path directory;
  private final Repository repository;
  private final Git git;

  WorkTreeCheckout(WorkTreeRepository workTree) {
    this.workTree = workTree;
    this.directory = workTree.directory();
    this.repository = workTree.repository();
    this.git = workTree.git();
  }

  void resetTo(String commitId) {
    try {
      ObjectId target = workTree.resolve(commitId);
      ObjectId current = repository.resolve(Constants.HEAD + "^{commit}");
      // The work tree first, while HEAD has not moved: a path in the way stops it with nothing
      // changed. Then HEAD, detached, so no local branch moves (it may not even be the branch
      // we push to).
      checkOutChangedPaths(
          current,
          target,
          (edited, conflict) ->
              uncommittedWorkInTheWay(
                  edited,
                  "moving to " + CommitIds.abbreviate(target.name()) + ", which changes them,",
                  conflict));
      RefUpdate detach = repository.updateRef(Constants.HEAD, true);
      detach.setNewObjectId(target);
      detach.setRefLogMessage("countersign: start from " + target.name(), false);
      RefUpdate.Result r = detach.forceUpdate();
      if (r == RefUpdate.Result.LOCK_FAILURE || r == RefUpdate.Result.IO_FAILURE) {
        throw new EnvironmentProblem(
            "Could not detach HEAD (" + r + ") in " + directory + " while moving to " + commitId,
            "perhaps you should make sure no other git process is using the repository");
      }
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not move the work tree in " + directory + " to " + commitId,
          "perhaps you should check that the workspace is writable",
          e);
    }
  }

  Checkout checkout() {
    try {
      Ref head = repository.exactRef(Constants.HEAD);
      if (head == null || head.getObjectId() == null) {
        throw new EnvironmentProblem(
            "The repository in " + directory + " has no commit checked out",
            "perhaps you should run actions/checkout with a ref that exists");
      }
      return new Checkout(
          head.isSymbolic() ? Optional.of(head.getTarget().getName()) : Optional.empty(),
          head.getObjectId().name());
    } catch (IOException e) {
      throw workTree.readProblem(Constants.HEAD, e);
    }
  }

  void restore(Checkout checkout) {
    Checkout now = checkout();
    if (now.equals(checkout)) {
      return;
    }
    try {
      ObjectId target = workTree.resolve(checkout.commitId());
      ObjectId left = ObjectId.fromString(now.commitId());
      RefUpdate.Result moved;
      if (checkout.branch().isPresent()) {
        RefUpdate branch = repository.updateRef(checkout.branch().get());
        branch.setNewObjectId(target);
        branch.setRefLogMessage("countersign: back to where the run started", false);
        RefUpdate.Result back = branch.forceUpdate();
        if (back == RefUpdate.Result.LOCK_FAILURE || back == RefUpdate.Result.IO_FAILURE) {
          moved = back;
        } else {
          moved = repository.updateRef(Constants.HEAD).link(checkout.branch().get());
        }
      } else {
        RefUpdate detach = repository.updateRef(Constants.HEAD, true);
        detach.setNewObjectId(target);
        detach.setRefLogMessage("countersign: back to where the run started", false);
        moved = detach.forceUpdate();
      }
      if (moved == RefUpdate.Result.LOCK_FAILURE || moved == RefUpdate.Result.IO_FAILURE) {
        throw new EnvironmentProblem(
            "Could not put HEAD back on "
                + checkout.branch().orElse(checkout.commitId())
                + " ("
                + moved
                + ") in "
                + directory,
            "perhaps you should make sure no other git process is using the repository");
      }
      checkOutChangedPaths(
          left,
          target,
          (edited, conflict) ->
              new EnvironmentProblem(
                  "Could not put "
                      + String.join(", ", edited)
                      + " in "
                      + directory
                      + " back: edited since countersign changed them",
                  "perhaps you should make sure no other process writes to the checkout while"
                      + " countersign runs",
                  conflict));
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not put the work tree in "
              + directory
              + " back to "
              + checkout.branch().orElse(checkout.commitId()),
          "perhaps you should check that the workspace is writable",
          e);
    }
  }

  /**
   * The usage problem for {@code paths} (sorted) that hold work nobody committed, which {@code
   * change} (what countersign was about to do, saying it changes them) would overwrite.
   */
  UsageProblem uncommittedWorkInTheWay(List<String> paths, String change, Exception cause) {
    return new UsageProblem(
        "The checkout in "
            + directory
            + " has uncommitted changes to "
            + String.join(", ", paths)
            + " that "
            + change
            + " would overwrite",
        "perhaps you should commit or stash them in the step that makes them, or run countersign"
            + " before it; nothing of them was overwritten",
        cause);
  }

  /**
   * The paths where moving index and work tree from the tree {@code from} (null: none) to the tree
   * {@code to} would overwrite or delete work nobody committed, sorted; changes nothing (none: from
   * the empty tree, {@link #treeOrEmpty}). A path counts when it differs between the two trees and
   * the index or work tree holds something else than {@code from} has there (an edit, staged or
   * not, a staged deletion, an untracked file where {@code to} has one), unless that is already
   * what {@code to} has: jgit's checkout conflicts, the very test on which {@link
   * #checkOutChangedPaths} stops, with a file holding its index entry's text counted as unedited
   * ({@link TextExactTreeIterator}). As for git checkout, a file missing from the work tree holds
   * nothing to lose, and an untracked file git ignores is expendable.
   */
  List<String> workInTheWay(ObjectId from, ObjectId to) throws IOException {
    DirCacheCheckout scan =
        new DirCacheCheckout(
            repository,
            treeOrEmpty(from),
            repository.readDirCache(),
            to,
            new TextExactTreeIterator(repository));
    try {
      scan.preScanTwoTrees();
    } catch (InvalidPathException refused) {
      throw unwritableNames(treeOrEmpty(from), to, refused);
    }
    return scan.getConflicts().stream().sorted().toList();
  }

  /**
   * The problem for a move from the tree {@code from} to the tree {@code to} that jgit refused
   * before changing anything ({@code refused}), because {@code to} holds a name it never writes to
   * a work tree: one that Windows or macOS takes for {@code .git} ({@code .git }, {@code .GIT.},
   * {@code git~1}), as git itself refuses it ({@code core.protectNTFS}), so actions/checkout could
   * not have checked it out either. One problem per such path, each naming it.
   */
  private InputProblem unwritableNames(ObjectId from, ObjectId to, InvalidPathException refused)
      throws IOException {
    ObjectChecker checker =
        new ObjectChecker()
            .setSafeForWindows(SystemReader.getInstance().isWindows())
            .setSafeForMacOS(SystemReader.getInstance().isMacOS());
    List<InputProblem> problems = new ArrayList<>();
    try (TreeWalk walk = new TreeWalk(repository)) {
      walk.addTree(from);
      walk.addTree(to);
      walk.setRecursive(true);
      walk.setFilter(TreeFilter.ANY_DIFF);
      while (walk.next()) {
        if (walk.getFileMode(1) == FileMode.MISSING) {
          continue;
        }
        try {
          byte[] raw = walk.getRawPath();
          checker.checkPath(raw, 0, raw.length);
        } catch (CorruptObjectException invalid) {
          problems.add(
              new InputProblem(
                  Path.of(walk.getPathString()),
                  0,
                  "has a name git refuses to write to a work tree ("
                      + invalid.getMessage()
                      + "), so the commit cannot be checked out",
                  "perhaps you should rename it: Windows and macOS take such a name for .git",
                  refused));
        }
      }
    }
    if (problems.isEmpty()) {
      // jgit refused a path this check does not see: still bad input, named as jgit names it.
      throw new InputProblem(
          Path.of(CommitIds.abbreviate(to.name())),
          0,
          "cannot be checked out: " + refused.getMessage(),
          "perhaps you should rename the path it names",
          refused);
    }
    return InputProblem.combine(problems);
  }

  /**
   * {@code tree}, or the empty tree (written to the object database) for none, when HEAD is on a
   * branch with no commit yet. jgit's checkout from no tree is a forced one (its one-tree scan puts
   * the target over a staged file and deletes one the target lacks); from the empty tree, what is
   * staged there is work nobody committed, as on any other branch.
   */
  private ObjectId treeOrEmpty(ObjectId tree) throws IOException {
    if (tree != null) {
      return tree;
    }
    try (ObjectInserter inserter = repository.newObjectInserter()) {
      ObjectId empty = inserter.insert(new TreeFormatter());
      inserter.flush();
      return empty;
    }
  }

  /**
   * Puts the paths that differ between the commits {@code from} (where HEAD is, or was) and {@code
   * to} in index and work tree as {@code to} has them, as {@code git checkout} does: not a hard
   * reset, which would also throw away what a step before countersign left uncommitted elsewhere
   * (an edited file, a staged new one). {@link #resetTo} and {@link #restore} both move this way.
   *
   * @param from null when HEAD has no commit
   * @param inTheWay the problem to throw when a path that differs was edited, staged or is an
   *     untracked file where {@code to} has one: given those paths, sorted, and jgit's exception as
   *     the cause; nothing has moved then
   */
  private void checkOutChangedPaths(
      ObjectId from,
      ObjectId to,
      BiFunction<List<String>, Exception, CountersignException> inTheWay)
      throws IOException {
    DirCache index = repository.lockDirCache();
    try (RevWalk walk = new RevWalk(repository)) {
      DirCacheCheckout move =
          new DirCacheCheckout(
              repository,
              treeOrEmpty(from == null ? null : walk.parseCommit(from).getTree()),
              index,
              walk.parseCommit(to).getTree(),
              new TextExactTreeIterator(repository));
      // Not forced: a forced checkout also reverts every other edited file. A path that differs
      // and holds work nobody committed stops it before anything moves.
      try {
        move.checkout();
      } catch (InvalidPathException refused) {
        throw unwritableNames(
            treeOrEmpty(from == null ? null : walk.parseCommit(from).getTree()),
            walk.parseCommit(to).getTree(),
            refused);
      }
    } catch (org.eclipse.jgit.errors.CheckoutConflictException edited) {
      throw inTheWay.apply(Arrays.stream(edited.getConflictingFiles()).sorted().toList(), edited);
    } finally {
      index.unlock();
    }
  }

  List<String> uncommittedChanges() {
    try {
      // The same view of the work tree as the checks before a commit or a move: a file holding
      // its committed text, with line ends converted as git add does, is not an edit.
      org.eclipse.jgit.api.Status status =
          git.status().setWorkingTreeIt(new TextExactTreeIterator(repository)).call();
      java.util.SortedSet<String> changed = new java.util.TreeSet<>();
      changed.addAll(status.getAdded());
      changed.addAll(status.getChanged());
      changed.addAll(status.getRemoved());
      changed.addAll(status.getMissing());
      changed.addAll(status.getModified());
      changed.addAll(status.getConflicting());
      return List.copyOf(changed);
    } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
      throw new EnvironmentProblem(
          "Could not compare the work tree in " + directory + " with HEAD",
          "perhaps you should check that the workspace is readable",
          e);
    }
  }
}
