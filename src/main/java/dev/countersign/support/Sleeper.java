package dev.countersign.support;

import java.time.Duration;

/**
 * Waits between retries (push attempts, GitHub's eventual consistency); tests pass one that records
 * the delays instead of sleeping.
 */
@FunctionalInterface
public interface Sleeper {

  void sleep(Duration duration) throws InterruptedException;

  static Sleeper real() {
    return duration -> Thread.sleep(duration.toMillis());
  }
}
