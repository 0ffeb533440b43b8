package dev.countersign.action;

import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Hands files countersign writes into the workspace to the workspace's owner. Docker actions run as
 * root while the runner's later steps run as the runner user (uid 1001 on GitHub-hosted runners),
 * which cannot modify root-owned files (actions/runner#1282). When not running as root, or when the
 * workspace is root's, this does nothing.
 *
 * <p>Pass it as the {@code afterWrite} callback of {@code JGitWorkspace.open}, and hold a {@link
 * #handBackOnExit} guard around everything a command does in the workspace.
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
    } catch (IOException
        | UnsupportedOperationException
        | IllegalArgumentException
        | SecurityException e) {
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
    try {
      Files.walkFileTree(
          root,
          new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attributes)
                throws IOException {
              handOver(dir);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attributes)
                throws IOException {
              handOver(file);
              return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
              if (e instanceof NoSuchFileException) {
                return FileVisitResult.CONTINUE;
              }
              throw e;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
              if (e != null && !(e instanceof NoSuchFileException)) {
                throw e;
              }
              return FileVisitResult.CONTINUE;
            }

            /**
             * An entry removed while the walk reaches it is skipped: on a cancelled job the
             * temporary files' shutdown hook deletes files while this one walks.
             */
            private void handOver(Path entry) throws IOException {
              try {
                if ((Integer) Files.getAttribute(entry, "unix:uid", LinkOption.NOFOLLOW_LINKS)
                    == 0) {
                  giveToOwner(entry);
                  changed[0]++;
                }
              } catch (NoSuchFileException gone) {
                // Nothing left to hand over.
              }
            }
          });
    } catch (IOException e) {
      throw couldNotGive("the files under " + root, "", e);
    }
    return changed[0];
  }

  /**
   * Hands every root-owned entry under {@code root} to the workspace owner when the returned guard
   * closes (success, rejection or exception: use try-with-resources) and, should the JVM be stopped
   * before that (SIGTERM from a cancelled job, System.exit), from a shutdown hook. A failed run
   * must leave the runner user able to use the workspace: its next {@code git fetch} rewrites
   * FETCH_HEAD, refs and the index, which jgit may have created as root.
   *
   * <p>A shutdown hook runs while other threads still write; a file created after its walk stays
   * root-owned. Nothing better exists for a signal: the JVM does not stop the other threads first.
   *
   * @param onHookFailure told what went wrong when the shutdown hook could not hand files back
   *     (nobody else can report it by then)
   */
  public HandBack handBackOnExit(Path root, Consumer<String> onHookFailure) {
    if (!active) {
      return new HandBack(() -> 0, null);
    }
    Supplier<Integer> handBack = () -> adoptRootOwned(root);
    Thread hook =
        new Thread(
            () -> {
              try {
                handBack.get();
              } catch (RuntimeException e) {
                onHookFailure.accept(e.getMessage());
              }
            },
            "countersign-workspace-ownership");
    Runtime.getRuntime().addShutdownHook(hook);
    return new HandBack(handBack, hook);
  }

  /** The guard {@link #handBackOnExit} returns. */
  public static final class HandBack implements AutoCloseable {
    private final Supplier<Integer> handBack;
    private final Thread hook;

    private HandBack(Supplier<Integer> handBack, Thread hook) {
      this.handBack = handBack;
      this.hook = hook;
    }

    /** Hands the files back now, in this thread; the shutdown hook is no longer needed. */
    @Override
    public void close() {
      if (hook != null) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          return; // the hook is running or about to: it hands the files back
        }
      }
      handBack.get();
    }
  }

  @Override
  public void accept(Path path) {
    if (!active) {
      return;
    }
    try {
      giveToOwner(path);
    } catch (IOException e) {
      throw couldNotGive(path.toString(), " after writing it", e);
    }
  }

  private void giveToOwner(Path path) throws IOException {
    Files.setAttribute(path, "unix:uid", uid, LinkOption.NOFOLLOW_LINKS);
    Files.setAttribute(path, "unix:gid", gid, LinkOption.NOFOLLOW_LINKS);
  }

  /**
   * The problem for {@code what} whose owner could not be changed ({@code when}: "" or a clause).
   */
  private EnvironmentProblem couldNotGive(String what, String when, IOException e) {
    return new EnvironmentProblem(
        "Could not give " + what + " to the workspace owner (uid " + uid + ")" + when,
        "perhaps you should check that the container runs as root, as GitHub requires for docker"
            + " actions",
        e);
  }
}
