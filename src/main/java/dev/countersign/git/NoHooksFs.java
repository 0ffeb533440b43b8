package dev.countersign.git;

import java.io.File;
import java.io.OutputStream;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.FS_POSIX;
import org.eclipse.jgit.util.ProcessResult;

/**
 * A POSIX file system view on which no git hook exists. jgit runs post-commit and pre-push hooks
 * even with {@code setNoVerify(true)}, and a runner's global {@code core.hooksPath} can point
 * anywhere; countersign must behave the same on every machine, so it never runs hooks.
 */
final class NoHooksFs extends FS_POSIX {

  NoHooksFs() {
    super();
  }

  private NoHooksFs(FS src) {
    super(src);
  }

  /** This view on POSIX systems; on others jgit's default (hooks there need a shell anyway). */
  static FS forThisPlatform() {
    FS detected = FS.detect();
    return detected instanceof FS_POSIX ? new NoHooksFs() : detected;
  }

  @Override
  public FS newInstance() {
    return new NoHooksFs(this);
  }

  @Override
  public File findHook(Repository repository, String hookName) {
    return null;
  }

  @Override
  public ProcessResult runHookIfPresent(
      Repository repository,
      String hookName,
      String[] args,
      OutputStream outRedirect,
      OutputStream errRedirect,
      String stdinArgs) {
    return new ProcessResult(ProcessResult.Status.NOT_PRESENT);
  }
}
