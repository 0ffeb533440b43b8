package dev.countersign.git;

import java.nio.file.FileStore;
import java.nio.file.FileSystems;
import java.util.Set;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;

/**
 * Tells jgit how file times behave on this machine's Linux file systems instead of letting it
 * measure them.
 *
 * <p>jgit needs two facts per file system to notice changes that happen within one timestamp tick
 * ("racy git"): the timestamp resolution and the interval after a write in which a second write may
 * not change the time. When its configuration ({@code $XDG_CONFIG_HOME/jgit/config}, else {@code
 * ~/.config/jgit/config}, section {@code [filesystem "VENDOR|VERSION|DEVICE"]}) has no entry for a
 * file system, it measures them on first use: about 3 seconds of writing a probe file. A
 * developer's machine pays that once; a container pays it on every start, because the saved result
 * goes with the container (GitHub runs the Action in a fresh one each time).
 *
 * <p>For the file systems below, which store nanosecond timestamps, this declares upper bounds
 * instead of measuring: 1 ms resolution, and a 10 ms interval (file times come from the kernel's
 * coarse clock, which ticks every 1 to 10 ms, CONFIG_HZ 1000 to 100). Bounds, because a value too
 * large only makes jgit re-read files changed in the last few tens of milliseconds, while one too
 * small could hide a change. Values jgit measured and saved earlier take precedence; other file
 * systems are measured as before.
 *
 * <p>Process-wide (jgit has one {@link SystemReader}): the production entry point calls {@link
 * #install()}; tests exercise an instance without installing it.
 */
public final class FileStoreTiming extends SystemReader.Delegate {

  /** Linux file systems with nanosecond timestamps (ext2/3 store seconds and are not here). */
  static final Set<String> NANOSECOND_FILE_SYSTEMS =
      Set.of("ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs");

  static final String RESOLUTION = "1 milliseconds";
  static final String RACY_INTERVAL = "10 milliseconds";

  /** Everything but {@link #openJGitConfig} is {@code delegate}'s (jgit's forwarding base). */
  FileStoreTiming(SystemReader delegate) {
    super(delegate);
  }

  /** Wraps jgit's process-wide reader; idempotent. */
  public static synchronized void install() {
    SystemReader current = SystemReader.getInstance();
    if (!(current instanceof FileStoreTiming)) {
      SystemReader.setInstance(new FileStoreTiming(current));
    }
  }

  /**
   * jgit's own configuration, on top of the declared file-system entries: what it has saved wins,
   * the declarations fill the gaps.
   */
  @Override
  public FileBasedConfig openJGitConfig(Config parent, FS fs) {
    return super.openJGitConfig(declarations(parent), fs);
  }

  /** The {@code [filesystem "..."]} entries for every mounted file system of a listed type. */
  static Config declarations(Config parent) {
    Config declared = new Config(parent);
    for (FileStore store : FileSystems.getDefault().getFileStores()) {
      if (NANOSECOND_FILE_SYSTEMS.contains(store.type())) {
        String key = configKey(store);
        declared.setString("filesystem", key, "timestampResolution", RESOLUTION);
        declared.setString("filesystem", key, "minRacyThreshold", RACY_INTERVAL);
      }
    }
    return declared;
  }

  /** The subsection name jgit looks up for {@code store} (FS.FileStoreAttributes, on Linux). */
  static String configKey(FileStore store) {
    return System.getProperty("java.vendor")
        + '|'
        + System.getProperty("java.version")
        + '|'
        + store.name();
  }
}
