package dev.countersign.action;

import java.io.PrintWriter;
import java.io.Writer;
import java.util.Map;

/**
 * The one writer for a GitHub Actions log stream (stdout or stderr of the step). Text printed
 * through it in the ordinary way ({@code print}, {@code println}, picocli's usage messages, stack
 * traces) is untrusted: it is cut into lines where the runner cuts them and each line is
 * {@linkplain WorkflowCommands#neutralize neutralized}, so no file name, YAML value, remote
 * response or exception message can become a workflow command. Only {@link #command} writes a line
 * the runner executes.
 *
 * <p>Whole lines reach the underlying writer in one call each, so lines from several threads never
 * interleave into a command. A line without its terminator is held back until the terminator, the
 * next {@link #command}, or {@link #finish}.
 */
public final class WorkflowLog extends PrintWriter {

  /** Longest line held back before it is written anyway, so memory stays bounded. */
  static final int MAX_LINE = 64 * 1024;

  /** Shown instead of a line that would still read as a command after neutralizing. */
  static final String WITHHELD =
      "(a line was withheld: the runner would have read it as a workflow command)";

  private final LineFilter filter;

  private WorkflowLog(LineFilter filter) {
    super(filter, true);
    this.filter = filter;
  }

  /**
   * The log writer over {@code raw}; {@code raw} itself when it already is one (so wrapping twice
   * changes nothing).
   */
  public static WorkflowLog over(PrintWriter raw) {
    return raw instanceof WorkflowLog log ? log : new WorkflowLog(new LineFilter(raw));
  }

  /**
   * Writes one workflow command countersign means to issue (see {@link WorkflowCommands#format}).
   */
  public void command(String name, Map<String, String> properties, String data) {
    filter.trusted(WorkflowCommands.format(name, properties, data));
  }

  /** Writes a held-back partial line, if any, and flushes. Call before the process ends. */
  public void finish() {
    filter.endPartialLine();
    flush();
  }

  /** Cuts text into lines and writes each neutralized; the only path to the raw writer. */
  private static final class LineFilter extends Writer {
    private final PrintWriter raw;
    private final StringBuilder pending = new StringBuilder();
    private boolean afterCarriageReturn;

    LineFilter(PrintWriter raw) {
      this.raw = raw;
    }

    @Override
    public synchronized void write(char[] buffer, int offset, int length) {
      for (int i = offset; i < offset + length; i++) {
        char c = buffer[i];
        if (c == '\n' && afterCarriageReturn) {
          afterCarriageReturn = false;
          continue;
        }
        afterCarriageReturn = c == '\r';
        if (c == '\r' || c == '\n') {
          emit();
        } else {
          pending.append(c);
          // Never cut between the halves of a surrogate pair.
          if (pending.length() >= MAX_LINE && !Character.isHighSurrogate(c)) {
            emit();
          }
        }
      }
    }

    synchronized void trusted(String commandLine) {
      endPartialLine();
      raw.write(commandLine + "\n");
      raw.flush();
    }

    synchronized void endPartialLine() {
      if (!pending.isEmpty()) {
        emit();
      }
    }

    private void emit() {
      String line = WorkflowCommands.neutralize(pending.toString());
      // Belt and braces: should neutralizing ever miss a form, withhold the line rather than run
      // it.
      raw.write((WorkflowCommands.looksLikeCommand(line) ? WITHHELD : line) + "\n");
      pending.setLength(0);
    }

    @Override
    public synchronized void flush() {
      raw.flush();
    }

    @Override
    public synchronized void close() {
      endPartialLine();
      raw.flush();
    }
  }
}
