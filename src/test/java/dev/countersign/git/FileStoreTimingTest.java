package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Exercises the reader directly; installing it would change jgit for every test in the JVM. */
class FileStoreTimingTest {

  @TempDir Path tmp;

  @Test
  void jgitConfig_withNothingSaved_declaresTheTimingOfTheWorkspaceFileSystem_soJgitDoesNotMeasure()
      throws Exception {
    FileStore store = Files.getFileStore(tmp);
    Assumptions.assumeTrue(
        FileStoreTiming.NANOSECOND_FILE_SYSTEMS.contains(store.type()),
        "tmp is on " + store.type());
    FileStoreTiming reader = new FileStoreTiming(new JGitConfigAt(tmp.resolve("jgit/config")));

    Config config = reader.getJGitConfig();

    // What FS.FileStoreAttributes reads before it would start a probe.
    String key =
        System.getProperty("java.vendor")
            + "|"
            + System.getProperty("java.version")
            + "|"
            + store.name();
    assertThat(
            config.getTimeUnit("filesystem", key, "timestampResolution", -1, TimeUnit.NANOSECONDS))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(1));
    assertThat(config.getTimeUnit("filesystem", key, "minRacyThreshold", -1, TimeUnit.NANOSECONDS))
        .isEqualTo(TimeUnit.MILLISECONDS.toNanos(10));
  }

  @Test
  void jgitConfig_whatJgitMeasuredAndSavedEarlier_winsOverTheDeclaration() throws Exception {
    FileStore store = Files.getFileStore(tmp);
    Assumptions.assumeTrue(
        FileStoreTiming.NANOSECOND_FILE_SYSTEMS.contains(store.type()),
        "tmp is on " + store.type());
    String key = FileStoreTiming.configKey(store);
    Path saved = Files.createDirectories(tmp.resolve("jgit")).resolve("config");
    Files.writeString(
        saved,
        "[filesystem \""
            + key
            + "\"]\n\ttimestampResolution = 4487 nanoseconds\n"
            + "\tminRacyThreshold = 0 nanoseconds\n");
    FileStoreTiming reader = new FileStoreTiming(new JGitConfigAt(saved));

    Config config = reader.getJGitConfig();

    assertThat(
            config.getTimeUnit("filesystem", key, "timestampResolution", -1, TimeUnit.NANOSECONDS))
        .isEqualTo(4487);
    assertThat(config.getTimeUnit("filesystem", key, "minRacyThreshold", -1, TimeUnit.NANOSECONDS))
        .isZero();
  }

  @Test
  void declarations_coverEveryMountedFileSystemWithNanosecondTimes_andNoOther() {
    Config declared = FileStoreTiming.declarations(null);

    java.util.Set<String> listed = new java.util.HashSet<>();
    java.util.Set<String> others = new java.util.HashSet<>();
    for (FileStore store : java.nio.file.FileSystems.getDefault().getFileStores()) {
      (FileStoreTiming.NANOSECOND_FILE_SYSTEMS.contains(store.type()) ? listed : others)
          .add(FileStoreTiming.configKey(store));
    }
    others.removeAll(listed); // one device may be mounted with two types (it is then declared)
    assertThat(declared.getSubsections("filesystem")).containsExactlyInAnyOrderElementsOf(listed);
    assertThat(FileStoreTiming.NANOSECOND_FILE_SYSTEMS)
        .doesNotContain("ext3", "ext2", "vfat", "nfs", "fuse");
    for (String key : others) {
      assertThat(declared.getString("filesystem", key, "timestampResolution")).as(key).isNull();
    }
  }

  /** The running JVM's reader, with jgit's own configuration in a file of the test's choosing. */
  private static final class JGitConfigAt extends SystemReader {
    private final SystemReader real = SystemReader.getInstance();
    private final Path file;

    JGitConfigAt(Path file) {
      this.file = file;
    }

    @Override
    public FileBasedConfig openJGitConfig(Config parent, FS fs) {
      return new FileBasedConfig(parent, file.toFile(), fs);
    }

    @Override
    public String getHostname() {
      return real.getHostname();
    }

    @Override
    public String getenv(String variable) {
      return real.getenv(variable);
    }

    @Override
    public String getProperty(String key) {
      return real.getProperty(key);
    }

    @Override
    public FileBasedConfig openUserConfig(Config parent, FS fs) {
      return real.openUserConfig(parent, fs);
    }

    @Override
    public FileBasedConfig openSystemConfig(Config parent, FS fs) {
      return real.openSystemConfig(parent, fs);
    }

    @Override
    public long getCurrentTime() {
      return real.getCurrentTime();
    }

    @Override
    public int getTimezone(long when) {
      return real.getTimezone(when);
    }
  }
}
