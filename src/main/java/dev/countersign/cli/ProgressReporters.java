package dev.countersign.cli;

import dev.countersign.action.WorkflowLog;
import dev.countersign.signing.SignProgress;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Map;

/**
 * Progress for long sign runs: a one-line bar on a terminal (signed / total, rate), grouped plain
 * lines in GitHub Actions logs (a bar's carriage returns make Actions logs unreadable), nothing
 * otherwise.
 */
final class ProgressReporters {

  private ProgressReporters() {}

  static SignProgress forRuntime(Runtime runtime) {
    if (runtime.env().inGitHubActions()) {
      return new ActionsLog(runtime.out());
    }
    if (runtime.interactive()) {
      return new TerminalBar(runtime.err(), runtime.clock());
    }
    return SignProgress.NONE;
  }

  /**
   * For the signing inside {@code run}/{@code promote}: the pipeline already opens a group and
   * lists every file, so only a terminal gets the live bar (a second, nested group would break the
   * Actions log).
   */
  static SignProgress insidePipeline(Runtime runtime) {
    return runtime.interactive() && !runtime.env().inGitHubActions()
        ? new TerminalBar(runtime.err(), runtime.clock())
        : SignProgress.NONE;
  }

  /** {@code ::group::} with one line per signed file. */
  static final class ActionsLog implements SignProgress {
    private final WorkflowLog out;

    ActionsLog(PrintWriter out) {
      this.out = WorkflowLog.over(out);
    }

    @Override
    public void started(int toSign, int unchanged) {
      out.command(
          "group",
          Map.of(),
          "Signing " + toSign + " manifest(s); " + unchanged + " already signed and unchanged");
    }

    @Override
    public synchronized void signed(Path displayPath, int done, int total) {
      out.println("signed " + displayPath + " (" + done + "/" + total + ")");
      out.flush();
    }

    @Override
    public void finished() {
      out.command("endgroup", Map.of(), "");
    }
  }

  /** A bar redrawn in place at most ten times a second. */
  static final class TerminalBar implements SignProgress {
    private final PrintWriter err;
    private final Clock clock;
    private Instant start;
    private Instant lastDraw = Instant.EPOCH;
    private boolean drew;

    TerminalBar(PrintWriter err, Clock clock) {
      this.err = err;
      this.clock = clock;
    }

    @Override
    public void started(int toSign, int unchanged) {
      start = clock.instant();
    }

    @Override
    public synchronized void signed(Path displayPath, int done, int total) {
      Instant now = clock.instant();
      if (done < total && Duration.between(lastDraw, now).toMillis() < 100) {
        return;
      }
      lastDraw = now;
      double seconds = Math.max(Duration.between(start, now).toMillis(), 1) / 1000.0;
      int width = 30;
      int filled = total == 0 ? width : (int) ((long) done * width / total);
      err.print(
          String.format(
              Locale.ROOT,
              "\r[%s%s] %d/%d signed (%.1f/s)",
              "#".repeat(filled),
              " ".repeat(width - filled),
              done,
              total,
              done / seconds));
      err.flush();
      drew = true;
    }

    @Override
    public void finished() {
      if (drew) {
        err.println();
        err.flush();
      }
    }
  }
}
