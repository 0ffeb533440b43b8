package dev.countersign.pipeline;

/**
 * Where a job tells the user what it is doing. The Action implementation turns groups into {@code
 * ::group::} blocks and warnings into annotations; the console one prints plain lines.
 */
public interface Progress {

  void info(String line);

  void warning(String line);

  /** Starts a collapsible section; always closed by {@link #endGroup()}. */
  void group(String title);

  void endGroup();
}
