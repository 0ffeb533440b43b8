package dev.countersign.github;

import java.time.Duration;

/** Waits between retries; tests pass one that records the delays and returns at once. */
@FunctionalInterface
public interface Sleeper {

  void sleep(Duration delay) throws InterruptedException;

  /** Blocks the calling thread. */
  static Sleeper real() {
    return delay -> Thread.sleep(delay.toMillis());
  }
}
