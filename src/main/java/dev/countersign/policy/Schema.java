package dev.countersign.policy;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Typed, strict access to one parsed configuration document: every wrong type, missing field or
 * unknown key becomes an {@link InputProblem} naming the file, the line and the dotted path.
 */
public final class Schema {

  private final Path file;
  private final ManifestDocument document;

  public Schema(Path file, ManifestDocument document) {
    this.file = file;
    this.document = document;
  }

  public Path file() {
    return file;
  }

  public int lineOf(String path) {
    return document.lineOf(path);
  }

  public InputProblem problem(String path, String what, String hint) {
    return new InputProblem(file, lineOf(path), what, hint);
  }

  /** Fails on the first key of the mapping at {@code path} that is not in {@code allowed}. */
  public void allowOnly(String path, Map<String, Object> map, Set<String> allowed) {
    for (String key : map.keySet()) {
      if (!allowed.contains(key)) {
        String where = path.isEmpty() ? key : path + "." + key;
        throw problem(
            where,
            "unknown key \"" + where + "\"",
            "perhaps you should use one of " + String.join(", ", new TreeSet<>(allowed)));
      }
    }
  }

  public Optional<String> string(Map<String, Object> map, String path, String key) {
    Object value = map.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof String s)) {
      throw problem(
          join(path, key),
          "\"" + join(path, key) + "\" must be a string, not " + describe(value),
          null);
    }
    return Optional.of(s);
  }

  public String requiredString(Map<String, Object> map, String path, String key) {
    return string(map, path, key)
        .filter(s -> !s.isBlank())
        .orElseThrow(
            () ->
                problem(
                    map.containsKey(key) ? join(path, key) : path,
                    "\"" + join(path, key) + "\" is required",
                    null));
  }

  public Optional<Long> integer(Map<String, Object> map, String path, String key) {
    Object value = map.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Long l)) {
      throw problem(
          join(path, key),
          "\"" + join(path, key) + "\" must be an integer, not " + describe(value),
          null);
    }
    return Optional.of(l);
  }

  @SuppressWarnings("unchecked")
  public Optional<Map<String, Object>> mapping(Map<String, Object> map, String path, String key) {
    Object value = map.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Map<?, ?> m)) {
      throw problem(
          join(path, key),
          "\"" + join(path, key) + "\" must be a mapping, not " + describe(value),
          null);
    }
    return Optional.of((Map<String, Object>) m);
  }

  public List<Object> list(Map<String, Object> map, String path, String key) {
    Object value = map.get(key);
    if (value == null) {
      return List.of();
    }
    if (!(value instanceof List<?> l)) {
      throw problem(
          join(path, key),
          "\"" + join(path, key) + "\" must be a list, not " + describe(value),
          null);
    }
    return new ArrayList<>(l);
  }

  /** The items of a list of mappings, each with its dotted path. */
  @SuppressWarnings("unchecked")
  public List<Item> mappings(Map<String, Object> map, String path, String key) {
    List<Item> items = new ArrayList<>();
    List<Object> list = list(map, path, key);
    for (int i = 0; i < list.size(); i++) {
      String itemPath = join(path, key) + "." + i;
      if (!(list.get(i) instanceof Map<?, ?> m)) {
        throw problem(
            itemPath,
            "\""
                + join(path, key)
                + "["
                + i
                + "]\" must be a mapping, not "
                + describe(list.get(i)),
            null);
      }
      items.add(new Item(itemPath, (Map<String, Object>) m));
    }
    return items;
  }

  public List<String> strings(Map<String, Object> map, String path, String key) {
    List<String> result = new ArrayList<>();
    List<Object> list = list(map, path, key);
    for (int i = 0; i < list.size(); i++) {
      if (!(list.get(i) instanceof String s)) {
        throw problem(
            join(path, key) + "." + i,
            "\"" + join(path, key) + "[" + i + "]\" must be a string, not " + describe(list.get(i)),
            null);
      }
      result.add(s);
    }
    return result;
  }

  public record Item(String path, Map<String, Object> map) {}

  public static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  public static String describe(Object value) {
    if (value instanceof Map) {
      return "a mapping";
    }
    if (value instanceof List) {
      return "a list";
    }
    if (value instanceof String) {
      return "a string";
    }
    if (value instanceof Boolean) {
      return "a boolean (" + value + ")";
    }
    if (value instanceof Number) {
      return "a number (" + value + ")";
    }
    return String.valueOf(value);
  }
}
