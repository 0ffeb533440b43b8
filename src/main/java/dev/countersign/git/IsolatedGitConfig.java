package dev.countersign.git;

import java.io.File;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;

/**
 * Makes jgit ignore the user's and the system's git configuration ({@code ~/.gitconfig},
 * {@code $XDG_CONFIG_HOME/git/config}, {@code /etc/gitconfig}) for the whole process, and stops it
 * from spawning {@code git config --system} to find the latter. Only repository configuration
 * ({@code .git/config}) is read.
 *
 * <p>{@link JGitWorkspace} does not need this to behave predictably (it neutralises each setting
 * that matters explicitly); it is a second fence for the production entry point, which may call
 * {@link #install()} once at start-up. Tests must not call it: it replaces jgit's process-wide
 * {@link SystemReader}.
 */
public final class IsolatedGitConfig extends SystemReader {

  private final SystemReader delegate;

  IsolatedGitConfig(SystemReader delegate) {
    this.delegate = delegate;
  }

  /** Replaces jgit's process-wide reader; idempotent. */
  public static synchronized void install() {
    SystemReader current = SystemReader.getInstance();
    if (!(current instanceof IsolatedGitConfig)) {
      SystemReader.setInstance(new IsolatedGitConfig(current));
    }
  }

  @Override
  public String getHostname() {
    return delegate.getHostname();
  }

  @Override
  public String getenv(String variable) {
    // jgit reads git's own variables through here; none of them may redirect configuration.
    if ("GIT_CONFIG_NOSYSTEM".equals(variable)) {
      return "1";
    }
    if (variable != null && (variable.startsWith("GIT_CONFIG") || variable.equals("XDG_CONFIG_HOME"))) {
      return null;
    }
    return delegate.getenv(variable);
  }

  @Override
  public String getProperty(String key) {
    return delegate.getProperty(key);
  }

  @Override
  public FileBasedConfig openUserConfig(Config parent, FS fs) {
    return new EmptyConfig(parent, fs);
  }

  @Override
  public FileBasedConfig openSystemConfig(Config parent, FS fs) {
    return new EmptyConfig(parent, fs);
  }

  @Override
  public FileBasedConfig openJGitConfig(Config parent, FS fs) {
    // jgit's own bookkeeping (e.g. measured file-timestamp resolution), not behaviour; keep it.
    return delegate.openJGitConfig(parent, fs);
  }

  @Override
  public long getCurrentTime() {
    return delegate.getCurrentTime();
  }

  @Override
  public int getTimezone(long when) {
    return delegate.getTimezone(when);
  }

  /** A configuration that is always empty and never touches the disk. */
  static final class EmptyConfig extends FileBasedConfig {
    EmptyConfig(Config parent, FS fs) {
      super(parent, null, fs);
    }

    @Override
    public void load() {
      clear();
    }

    @Override
    public void save() {
      // Nothing to persist: countersign never writes global configuration.
    }

    @Override
    public boolean isOutdated() {
      return false;
    }

    @Override
    public String toString() {
      return "EmptyConfig (countersign ignores user and system git configuration)";
    }
  }
}
