package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The bookkeeping of {@link TemporaryFiles} costs a write of many files time in proportion to its
 * files, not their square: one {@code sign} or {@code run} registers every temporary file of its
 * write and unregisters them all at once. (What the shutdown hook removes is StoppedCommandTest's.)
 */
class TemporaryFilesTest {

  @TempDir Path tmp;

  @Test
  void control_unregisteringTheTemporaryFilesOfAThousandFileWrite_isQuick() throws IOException {
    assertThat(registerAndUnregister(1_000)).isLessThan(Duration.ofSeconds(2));
  }

  @Test
  void unregisteringTheTemporaryFilesOfA50000FileWrite_isQuickToo() throws IOException {
    // Before, unregistering compared each registered path with every path of the list: ~15 s
    // here, holding the lock every other writer and the shutdown hook wait for.
    assertThat(registerAndUnregister(50_000)).isLessThan(Duration.ofSeconds(2));
  }

  /**
   * Registers {@code files} paths shaped like a write's temporary files, none of them made (the
   * hook would find nothing to remove), and returns how long unregistering them all took.
   */
  private Duration registerAndUnregister(int files) throws IOException {
    List<Path> temporaries = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      temporaries.add(
          tmp.resolve("signed/namespace-" + (i % 50))
              .resolve(".countersign-" + Long.toHexString(0x5DEECE66DL * (i + 1)) + ".tmp"));
    }
    for (Path temporary : temporaries) {
      TemporaryFiles.register(temporary);
    }
    long start = System.nanoTime();
    TemporaryFiles.unregister(temporaries);
    return Duration.ofNanos(System.nanoTime() - start);
  }
}
