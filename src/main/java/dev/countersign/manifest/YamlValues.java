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

  /** {@code value} as a sequence, or an empty one. */
  @SuppressWarnings("unchecked")
  public static List<Object> list(Object value) {
    return value instanceof List<?> l ? (List<Object>) l : List.of();
  }
}
