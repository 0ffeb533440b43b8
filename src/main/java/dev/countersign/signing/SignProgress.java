package dev.countersign.signing;

import java.nio.file.Path;

/** Told about a sign job's progress; a terminal bar, grouped Action log lines, or nothing. */
public interface SignProgress {

  SignProgress NONE = new SignProgress() {};

  default void started(int toSign, int unchanged) {}

  /** Called from signing threads, possibly concurrently. */
  default void signed(Path displayPath, int done, int total) {}

  default void finished() {}
}
