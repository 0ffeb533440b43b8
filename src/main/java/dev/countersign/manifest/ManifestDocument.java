package dev.countersign.manifest;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One parsed YAML document of a manifest file: a Kubernetes object as plain Java values.
 *
 * <p>Values are {@code String}, {@code Long} or {@code java.math.BigInteger} (a uint64 beyond
 * Long), {@code Double}, {@code Boolean}, {@code null}, {@code List<Object>} and {@code Map<String,
 * Object>} (insertion order = source order), exactly as Kubernetes tooling (YAML 1.1, yaml.v2)
 * resolves the scalars. The map is unmodifiable.
 *
 * @param content the object
 * @param line 1-based line in the source file where the document starts (0 when synthetic)
 * @param fieldLines 1-based source line of each field, keyed by dotted path with list indices as
 *     numbers ({@code spec.ingress.0.from}); empty for synthetic documents
 */
public record ManifestDocument(
    Map<String, Object> content, int line, Map<String, Integer> fieldLines) {

  /** What {@link #withOnlyObjectNames} keeps: at the top, and in {@code metadata}. */
  private static final Set<String> OBJECT_NAMES = Set.of("apiVersion", "kind", "metadata");

  private static final Set<String> METADATA_NAMES = Set.of("name", "namespace");

  public ManifestDocument {
    content = Collections.unmodifiableMap(new LinkedHashMap<>(content));
    fieldLines = Map.copyOf(fieldLines);
  }

  /** A document without source positions (built in memory). */
  public ManifestDocument(Map<String, Object> content) {
    this(content, 0, Map.of());
  }

  /**
   * This document with only its own line, no field positions: for holding many documents after
   * every check that names a field's line is done (the positions are a dotted path and a number per
   * field; dropping them took 15-20 MB off the peak RSS of a 5,000-manifest run).
   */
  public ManifestDocument withoutFieldLines() {
    return fieldLines.isEmpty() ? this : new ManifestDocument(content, line, Map.of());
  }

  /**
   * This document with only its own line and what names its object: {@code apiVersion}, {@code
   * kind}, {@code metadata.name} and {@code metadata.namespace}, each as it is (so {@link #kind},
   * {@link #group}, {@link #name}, {@link #namespace} and {@link #describe} answer as for the whole
   * document). For holding every document of a tree to tell its objects apart: the rest, a signed
   * document's signature annotations above all (a keyless one's certificate and log entry), is most
   * of its size, and held for all of them it is copied by every young collection
   * (docs/performance.md, the gate's cost).
   */
  public ManifestDocument withOnlyObjectNames() {
    if (fieldLines.isEmpty()
        && OBJECT_NAMES.containsAll(content.keySet())
        && METADATA_NAMES.containsAll(metadata().keySet())) {
      return this;
    }
    Map<String, Object> names = new LinkedHashMap<>();
    copyIfPresent(content, names, "apiVersion");
    copyIfPresent(content, names, "kind");
    if (content.get("metadata") instanceof Map<?, ?> metadata) {
      Map<String, Object> kept = new LinkedHashMap<>();
      copyIfPresent(metadata, kept, "name");
      copyIfPresent(metadata, kept, "namespace");
      names.put("metadata", Collections.unmodifiableMap(kept));
    }
    return new ManifestDocument(names, line, Map.of());
  }

  private static void copyIfPresent(Map<?, ?> from, Map<String, Object> to, String key) {
    if (from.containsKey(key)) {
      to.put(key, from.get(key));
    }
  }

  /** The line of {@code dottedPath}, else of its nearest ancestor, else the document's line. */
  public int lineOf(String dottedPath) {
    return YamlValues.lineOf(fieldLines, dottedPath, line);
  }

  public String kind() {
    return stringAt("kind");
  }

  public String apiVersion() {
    return stringAt("apiVersion");
  }

  /** The API group: the part of {@code apiVersion} before '/', empty for the core group. */
  public String group() {
    String apiVersion = apiVersion();
    int slash = apiVersion.indexOf('/');
    return slash < 0 ? "" : apiVersion.substring(0, slash);
  }

  public String name() {
    Object name = metadata().get("name");
    return name instanceof String s ? s : "";
  }

  public Optional<String> namespace() {
    Object ns = metadata().get("namespace");
    return ns instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty();
  }

  /** {@code metadata}, or an empty map. */
  public Map<String, Object> metadata() {
    return YamlValues.map(content.get("metadata"));
  }

  /** {@code metadata.annotations} with string values only, or an empty map. */
  public Map<String, String> annotations() {
    Object annotations = metadata().get("annotations");
    Map<String, String> result = new LinkedHashMap<>();
    if (annotations instanceof Map<?, ?> m) {
      m.forEach(
          (k, v) -> {
            if (v instanceof String s) {
              result.put(String.valueOf(k), s);
            }
          });
    }
    return result;
  }

  /**
   * The number of objects when this document is a Kubernetes list ({@code kind: List}, {@code
   * ConfigMapList}...) holding them in {@code items}; empty otherwise. countersign signs one object
   * per document, so {@code run}, {@code sign} and {@code check} all refuse lists.
   */
  public Optional<Integer> listItems() {
    return kind().endsWith("List") && content.get("items") instanceof List<?> items
        ? Optional.of(items.size())
        : Optional.empty();
  }

  /** Why a list document is refused, when {@link #listItems} says it is one. */
  public Optional<String> listProblem() {
    return listItems()
        .map(
            n ->
                "is a "
                    + kind()
                    + " holding "
                    + n
                    + " objects, but countersign signs one object per document");
  }

  /** What to do about a list document. */
  public static final String LIST_HINT =
      "perhaps you should write each item as its own document, separated by ---";

  /** "Kind/namespace/name" or "Kind/name", for messages. */
  public String describe() {
    // Kind, namespace and name are the author's text: escaped, so that they cannot break a line of
    // output (a forged "PASS" line, a workflow command).
    return ManifestTree.escaped(kind() + "/" + namespace().map(ns -> ns + "/").orElse("") + name());
  }

  private String stringAt(String key) {
    Object value = content.get(key);
    return value instanceof String s ? s : "";
  }
}
