package dev.countersign.policy;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.Hints;
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
 *
 * @param file the file the document was read from, as problems name it
 * @param document the parsed document, which knows the line of each path
 */
public record Schema(Path file, ManifestDocument document) {

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
    return typed(map, path, key, String.class, "a string");
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

  /** Fails unless the string at {@code key} is {@code expected}, the one value supported. */
  public void requireValue(Map<String, Object> map, String path, String key, String expected) {
    String value = requiredString(map, path, key);
    if (!expected.equals(value)) {
      throw problem(
          join(path, key),
          join(path, key) + " \"" + value + "\" is not supported",
          Hints.suggest("use " + expected));
    }
  }

  public Optional<Long> integer(Map<String, Object> map, String path, String key) {
    return typed(map, path, key, Long.class, "an integer");
  }

  @SuppressWarnings("unchecked")
  public Optional<Map<String, Object>> mapping(Map<String, Object> map, String path, String key) {
    return typed(map, path, key, Map.class, "a mapping").map(m -> (Map<String, Object>) m);
  }

  public List<Object> list(Map<String, Object> map, String path, String key) {
    Optional<List<?>> list = typed(map, path, key, List.class, "a list").map(l -> l);
    return list.isPresent() ? new ArrayList<>(list.get()) : List.of();
  }

  /** The value at {@code key} if present; a problem when it is not a {@code type}. */
  private <T> Optional<T> typed(
      Map<String, Object> map, String path, String key, Class<T> type, String expected) {
    Object value = map.get(key);
    if (value == null) {
      return Optional.empty();
    }
    if (!type.isInstance(value)) {
      throw problem(
          join(path, key),
          "\"" + join(path, key) + "\" must be " + expected + ", not " + describe(value),
          null);
    }
    return Optional.of(type.cast(value));
  }

  /** The items of a list of mappings, each with its dotted path. */
  @SuppressWarnings("unchecked")
  public List<Item> mappings(Map<String, Object> map, String path, String key) {
    List<Item> items = new ArrayList<>();
    List<Map> maps = items(map, path, key, Map.class, "a mapping");
    for (int i = 0; i < maps.size(); i++) {
      items.add(new Item(join(path, key) + "." + i, (Map<String, Object>) maps.get(i)));
    }
    return items;
  }

  public List<String> strings(Map<String, Object> map, String path, String key) {
    return items(map, path, key, String.class, "a string");
  }

  /**
   * The items of the list at {@code key}; a problem naming the first that is not a {@code type}.
   */
  private <T> List<T> items(
      Map<String, Object> map, String path, String key, Class<T> type, String expected) {
    List<T> result = new ArrayList<>();
    List<Object> list = list(map, path, key);
    for (int i = 0; i < list.size(); i++) {
      if (!type.isInstance(list.get(i))) {
        throw problem(
            join(path, key) + "." + i,
            "\""
                + join(path, key)
                + "["
                + i
                + "]\" must be "
                + expected
                + ", not "
                + describe(list.get(i)),
            null);
      }
      result.add(type.cast(list.get(i)));
    }
    return result;
  }

  public record Item(String path, Map<String, Object> map) {}

  public static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /**
   * How a problem names a YAML value of an unexpected type: {@code a list}, {@code a number (3)}.
   */
  public static String describe(Object value) {
    for (Kind kind : Kind.values()) {
      if (kind.type.isInstance(value)) {
        return kind.showsValue ? kind.noun + " (" + value + ")" : kind.noun;
      }
    }
    return String.valueOf(value);
  }

  /** The kinds of YAML value {@link #describe} names; scalars other than strings show the value. */
  private enum Kind {
    MAPPING(Map.class, "a mapping", false),
    LIST(List.class, "a list", false),
    STRING(String.class, "a string", false),
    BOOLEAN(Boolean.class, "a boolean", true),
    NUMBER(Number.class, "a number", true);

    private final Class<?> type;
    private final String noun;
    private final boolean showsValue;

    Kind(Class<?> type, String noun, boolean showsValue) {
      this.type = type;
      this.noun = noun;
      this.showsValue = showsValue;
    }
  }
}
