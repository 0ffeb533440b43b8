package dev.countersign.action;

import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * Hands files countersign writes into the workspace to the workspace's owner. Docker actions run
 * as root while the runner's later steps run as the runner user (uid 1001 on GitHub-hosted
 * runners), which cannot modify root-owned files (actions/runner#1282). When not running as
 * root, or when the workspace is root's, this does nothing.
 *
 * <p>Pass it as the {@code afterWrite} callback of {@code JGitWorkspace.open}.
 */
public final class WorkspaceOwnership implements Consumer<Path> {

  private final boolean active;
  private final int uid;
  private final int gid;

  private WorkspaceOwnership(boolean active, int uid, int gid) {
    this.active = active;
    this.uid = uid;
    this.gid = gid;
  }

  /** For this process: its uid is read from {@code /proc/self} (Linux); elsewhere inactive. */
  public static WorkspaceOwnership forProcess(Path workspace) {
    int processUid;
    try {
      processUid = (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
      return new WorkspaceOwnership(false, -1, -1);
    }
    return of(workspace, processUid);
  }

  /**
   * @param processUid the uid this process runs as; only 0 (root) can and needs to chown
   */
  public static WorkspaceOwnership of(Path workspace, int processUid) {
    if (processUid != 0) {
      return new WorkspaceOwnership(false, -1, -1);
    }
    try {
      int uid = (Integer) Files.getAttribute(workspace, "unix:uid");
      int gid = (Integer) Files.getAttribute(workspace, "unix:gid");
      return new WorkspaceOwnership(uid != 0 || gid != 0, uid, gid);
    } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
      return new WorkspaceOwnership(false, -1, -1);
    }
  }

  public boolean isActive() {
    return active;
  }

  /**
   * Gives every root-owned file and directory under {@code root} (not following symlinks) to the
   * workspace owner. For {@code .git} after a run: jgit writes objects, refs, logs and the index as
   * root, and a later step running git as the runner user could not update them.
   *
   * @return how many entries changed owner
   */
  public int adoptRootOwned(Path root) {
    if (!active || !Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
      return 0;
    }
    int[] changed = {0};
    try (var paths = Files.walk(root)) {
      paths.forEach(p -> {
        try {
          if ((Integer) Files.getAttribute(p, "unix:uid", LinkOption.NOFOLLOW_LINKS) == 0) {
            accept(p);
            changed[0]++;
          }
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
    } catch (IOException | java.io.UncheckedIOException e) {
      throw new EnvironmentProblem(
          "Could not give the files under " + root + " to the workspace owner (uid " + uid + ")",
          "perhaps you should check that the container runs as root, as GitHub requires for docker actions",
          e);
    }
    return changed[0];
  }

  @Override
  public void accept(Path path) {
    if (!active) {
      return;
    }
    try {
      Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
      Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not give " + path + " to the workspace owner (uid " + uid + ") after writing it",
          "perhaps you should check that the container runs as root, as GitHub requires for docker actions",
          e);
    }
  }
}
