package dev.countersign.git;

import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.nio.file.Path;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;

/**
 * The repository behind a work tree, as {@link JGitWorkspace} opened it, and what each of the
 * workspace's parts asks of it alike: a revision resolved to a commit, the problem for a failed
 * read, a repository path as a work tree file that no link leads to, and the failure of a ref move.
 * Owns nothing: {@link JGitWorkspace#close} closes the repository.
 *
 * @param directory the work tree's root, absolute and normalized
 * @param git jgit's commands on {@code repository}; closing it would not close the repository
 */
record WorkTreeRepository(Path directory, Repository repository, Git git) {

  /**
   * The commit {@code revision} names (HEAD, a branch, an id).
   *
   * @throws EnvironmentProblem when this repository has no such commit
   */
  ObjectId resolve(String revision) throws IOException {
    ObjectId id = repository.resolve(revision + "^{commit}");
    if (id == null) {
      throw new EnvironmentProblem(
          "Unknown revision " + revision + " in " + directory,
          "perhaps you should fetch it first (actions/checkout with a deeper fetch-depth)");
    }
    return id;
  }

  /** The problem for a read of {@code what} that failed with {@code e}. */
  EnvironmentProblem readProblem(String what, IOException e) {
    return new EnvironmentProblem(
        "Could not read " + what + " from the repository in " + directory,
        "perhaps you should run actions/checkout again; the clone may be incomplete",
        e);
  }

  /**
   * The work tree file for a repository-relative path: lexically inside the work tree, and no
   * existing component of it below the root is a symbolic link.
   *
   * @throws InputProblem naming the link
   */
  Path workTreeFile(String relative) {
    return NoFollowPaths.inside(directory, Path.of(ChangeSet.checkedPath(relative)));
  }

  /**
   * Throws when a ref move ended locked, in an I/O failure or rejected ({@code what}: the move).
   */
  void failOnLock(RefUpdate.Result result, String what) {
    if (result == RefUpdate.Result.LOCK_FAILURE
        || result == RefUpdate.Result.IO_FAILURE
        || result == RefUpdate.Result.REJECTED) {
      throw new EnvironmentProblem(
          "Could not " + what + " (" + result + ") in " + directory,
          "perhaps you should make sure no other git process is using the repository");
    }
  }
}
