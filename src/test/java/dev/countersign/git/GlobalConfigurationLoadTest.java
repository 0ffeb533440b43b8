package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.Config;
import org.eclipse.jgit.storage.file.FileBasedConfig;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * jgit's global configuration is loaded once at a time: an {@link JGitWorkspace#open} that comes
 * while the start-up preloading is still loading it waits for that load instead of running its own
 * beside it (to find the system configuration, jgit runs {@code git} twice).
 */
class GlobalConfigurationLoadTest {

  @TempDir Path tmp;

  @Test
  void anOpenDuringTheStartUpLoad_waitsForIt_insteadOfLoadingAgainBesideIt() throws Exception {
    Path work = tmp.resolve("repo");
    Git.init().setDirectory(work.toFile()).setInitialBranch("main").call().close();
    SystemReader previous = SystemReader.getInstance();
    CountDownLatch searching = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger searches = new AtomicInteger();
    // A fresh reader has nothing cached, like the process at start; its system configuration
    // "search" holds until released, as git's two runs hold the real one.
    SystemReader.setInstance(
        new SystemReader.Delegate(previous) {
          @Override
          public FileBasedConfig openSystemConfig(Config parent, FS fs) {
            searches.incrementAndGet();
            searching.countDown();
            try {
              release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
            }
            return super.openSystemConfig(parent, fs);
          }
        });
    try {
      Thread preload = new Thread(JGitWorkspace::loadGlobalConfiguration, "preload");
      preload.start();
      assertThat(searching.await(10, TimeUnit.SECONDS)).isTrue();
      AtomicReference<JGitWorkspace> opened = new AtomicReference<>();
      Thread main =
          new Thread(() -> opened.set(JGitWorkspace.open(work, Clock.systemUTC())), "main");
      main.start();
      // The open goes as far as it can: blocked behind the load under way, or (were there no
      // gate) waiting inside a second search of its own.
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (main.getState() == Thread.State.RUNNABLE || main.getState() == Thread.State.NEW) {
        assertThat(System.nanoTime()).isLessThan(deadline);
        Thread.sleep(5);
      }
      release.countDown();
      preload.join(10_000);
      main.join(10_000);

      assertThat(opened.get()).isNotNull();
      assertThat(searches).hasValue(1);
      opened.get().close();
    } finally {
      release.countDown();
      SystemReader.setInstance(previous);
    }
  }
}
