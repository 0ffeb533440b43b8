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
