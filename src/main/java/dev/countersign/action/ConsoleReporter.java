package dev.countersign.action;

import java.io.PrintWriter;

/** Plain output for terminals and other CI systems: progress on out, problems on err. */
public final class ConsoleReporter implements Reporter {

  private final PrintWriter out;
  private final PrintWriter err;

  public ConsoleReporter(PrintWriter out, PrintWriter err) {
    this.out = out;
    this.err = err;
  }

  @Override
  public void mask(String secret) {
    // Nothing to register outside Actions; callers never print secrets anyway.
  }

  @Override
  public void info(String line) {
    out.println(line);
    out.flush();
  }

  @Override
  public void group(String title) {
    info("== " + title);
  }

  @Override
  public void endGroup() {}

  @Override
  public void error(String message, Annotation at) {
    err.println("error: " + at.consolePrefix() + message);
    err.flush();
  }

  @Override
  public void warning(String message, Annotation at) {
    err.println("warning: " + at.consolePrefix() + message);
    err.flush();
  }

  @Override
  public void notice(String message, Annotation at) {
    info("notice: " + at.consolePrefix() + message);
  }

  @Override
  public void output(String name, String value) {}

  @Override
  public void summary(String markdown) {}
}
