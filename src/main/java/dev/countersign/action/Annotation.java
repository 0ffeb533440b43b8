package dev.countersign.action;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Where a message points in the repository, for {@code ::error file=...,line=...::} annotations.
 * All parts are optional; {@code file} is repository-relative.
 */
public record Annotation(
    Optional<String> file,
    Optional<Integer> line,
    Optional<Integer> endLine,
    Optional<Integer> column,
    Optional<Integer> endColumn,
    Optional<String> title) {

  public static final Annotation NONE =
      new Annotation(
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty());

  public static Annotation at(String file) {
    return NONE.withFile(file);
  }

  public static Annotation at(String file, int line) {
    return new Annotation(
        Optional.of(file),
        Optional.of(line),
        Optional.empty(),
        Optional.empty(),
        Optional.empty(),
        Optional.empty());
  }

  public Annotation withFile(String value) {
    return new Annotation(Optional.of(value), line, endLine, column, endColumn, title);
  }

  public Annotation withTitle(String value) {
    return new Annotation(file, line, endLine, column, endColumn, Optional.of(value));
  }

  /** The properties in the order the Actions toolkit writes them. */
  Map<String, String> properties() {
    Map<String, String> p = new LinkedHashMap<>();
    file.ifPresent(v -> p.put("file", v));
    line.ifPresent(v -> p.put("line", Integer.toString(v)));
    endLine.ifPresent(v -> p.put("endLine", Integer.toString(v)));
    column.ifPresent(v -> p.put("col", Integer.toString(v)));
    endColumn.ifPresent(v -> p.put("endColumn", Integer.toString(v)));
    title.ifPresent(v -> p.put("title", v));
    return p;
  }

  /** {@code file:line: } for plain consoles, or "" when there is no file. */
  String consolePrefix() {
    return file.map(f -> f + line.map(l -> ":" + l).orElse("") + ": ").orElse("");
  }
}
