package dev.countersign.support.problems;

import dev.countersign.support.ExitCode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * An input file that cannot be used: malformed YAML, a document without {@code kind}, a file that
 * is too large, a symlink. Always names the file, and the line where there is one, so the Action
 * can annotate it ({@code ::error file=...,line=...::}).
 */
public final class InputProblem extends CountersignException {

  private final Path file;
  private final int line;
  private final String what;
  private final List<InputProblem> others = new ArrayList<>();

  /**
   * One exception for several bad files, so a run reports every bad manifest at once: the first
   * problem, carrying the rest in {@link #all()}.
   */
  public static InputProblem combine(List<InputProblem> problems) {
    if (problems.isEmpty()) {
      throw new IllegalArgumentException("no problems to combine");
    }
    InputProblem first = problems.get(0);
    first.others.addAll(problems.subList(1, problems.size()));
    return first;
  }

  /** This problem followed by any combined with it. */
  public List<InputProblem> all() {
    List<InputProblem> all = new ArrayList<>();
    all.add(this);
    all.addAll(others);
    return all;
  }

  /**
   * @param file the offending file, as the user named it or relative to the repository
   * @param line 1-based line, or 0 when the problem is not tied to a line
   */
  public InputProblem(Path file, int line, String what, String hint) {
    this(file, line, what, hint, null);
  }

  public InputProblem(Path file, int line, String what, String hint, Throwable cause) {
    super(ExitCode.INVALID_INPUT, describe(file, line, what), hint, cause);
    this.file = file;
    this.line = line;
    this.what = what;
  }

  /** {@code file} could not be read or inspected ({@code e}): most often its permissions. */
  public static InputProblem unreadable(Path file, IOException e) {
    return new InputProblem(
        file,
        0,
        "cannot be read: " + e.getMessage(),
        "perhaps you should check its permissions",
        e);
  }

  private static String describe(Path file, int line, String what) {
    return line > 0 ? file + ":" + line + ": " + what : file + ": " + what;
  }

  public Path file() {
    return file;
  }

  public Optional<Integer> line() {
    return line > 0 ? Optional.of(line) : Optional.empty();
  }

  /**
   * What is wrong, without the {@code file:line: } the message starts with: for reports that carry
   * the location separately (a finding, an annotation).
   */
  public String what() {
    return what;
  }
}
