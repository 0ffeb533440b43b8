package dev.countersign.manifest;

import java.util.List;
import java.util.Map;

/**
 * Lenient views of a plain-value YAML tree (what {@link ManifestDocument#content()} holds): a node
 * of another shape reads as empty, for code that looks for fields and treats anything else as
 * absent. Strict reading, with errors naming the line, is {@code policy.Schema}'s job.
 */
public final class YamlValues {

  private YamlValues() {}

  /** {@code value} as a mapping, or an empty one. */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> map(Object value) {
    return value instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /**
   * The line of {@code dottedPath} ({@code jobs.sign.steps.1.uses}) in {@code lines}, else of its
   * nearest ancestor that has one, else {@code fallback}.
   */
  public static int lineOf(Map<String, Integer> lines, String dottedPath, int fallback) {
    String path = dottedPath;
    while (!path.isEmpty()) {
      Integer found = lines.get(path);
      if (found != null) {
        return found;
      }
      int dot = path.lastIndexOf('.');
      path = dot < 0 ? "" : path.substring(0, dot);
    }
    return fallback;
  }

  /** {@code value} as a sequence, or an empty one. */
  @SuppressWarnings("unchecked")
  public static List<Object> list(Object value) {
    return value instanceof List<?> l ? (List<Object>) l : List.of();
  }
}
