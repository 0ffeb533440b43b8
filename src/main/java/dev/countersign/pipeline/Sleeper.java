package dev.countersign.pipeline;

import java.time.Duration;

/** Waits between push attempts; tests pass one that records instead of sleeping. */
@FunctionalInterface
public interface Sleeper {

  void sleep(Duration duration) throws InterruptedException;

  static Sleeper real() {
    return duration -> Thread.sleep(duration.toMillis());
  }
}
