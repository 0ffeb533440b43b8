package dev.countersign.cli;

import dev.countersign.action.WorkspaceOwnership;
import dev.countersign.git.JGitWorkspace;
import java.nio.file.Path;

/**
 * A work tree's repository opened by a command that writes in it (run, promote, check): what jgit
 * writes is handed to the workspace owner as it is written and, on every way out (success, failure,
 * SIGTERM), everything root-owned under the work tree is (see {@link WorkspaceOwnership}).
 */
record OwnedWorkspace(JGitWorkspace git, WorkspaceOwnership.HandBack handBack)
    implements AutoCloseable {

  static OwnedWorkspace open(Path workTree, Runtime runtime) {
    WorkspaceOwnership ownership = WorkspaceOwnership.forProcess(workTree);
    WorkspaceOwnership.HandBack handBack =
        ownership.handBackOnExit(workTree, runtime.err()::println);
    try {
      return new OwnedWorkspace(JGitWorkspace.open(workTree, runtime.clock(), ownership), handBack);
    } catch (RuntimeException e) {
      handBack.close();
      throw e;
    }
  }

  /** Closes the repository, then hands the files back (last, so that nothing is written after). */
  @Override
  public void close() {
    try (handBack) {
      git.close();
    }
  }
}
