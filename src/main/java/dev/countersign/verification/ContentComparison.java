package dev.countersign.verification;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Field-by-field comparison of a document with the document its signed message holds, as
 * k8s-manifest-sigstore's {@code directMatch} does it: both flattened to dotted leaf keys (list
 * indices as numbers; nulls and empty collections contribute nothing) and diffed. For {@link
 * ContentMatch#CLUSTER_OBJECT} the diff is then filtered by ignore fields (the defaults for spec
 * fields only where the message leaves the field out, see {@link IgnoreFields}), an absent {@code
 * metadata.namespace} in the message, and image references that differ only by {@code docker.io/}
 * or {@code :latest}; for {@link ContentMatch#EXACT} nothing is filtered (and the verifier also
 * compares the canonical form, which sees nulls and empty collections).
 */
final class ContentComparison {

  /** A difference; empty sides are absent keys. */
  record FieldDiff(String path, Optional<Object> signed, Optional<Object> found) {

    String describe() {
      return path
          + ": signed "
          + signed.map(ContentComparison::show).orElse("nothing")
          + ", found "
          + found.map(ContentComparison::show).orElse("nothing");
    }
  }

  private ContentComparison() {}

  static List<FieldDiff> diff(
      ManifestDocument signed,
      ManifestDocument live,
      AnnotationDomain domain,
      IgnoreFields ignore,
      ContentMatch match) {
    boolean tolerant = match == ContentMatch.CLUSTER_OBJECT;
    Map<String, Object> before = flatten(signed.content(), domain);
    Map<String, Object> after = flatten(live.content(), domain);
    Set<String> keys = new LinkedHashSet<>(before.keySet());
    keys.addAll(after.keySet());
    List<FieldDiff> diffs = new ArrayList<>();
    for (String key : keys) {
      Object b = before.get(key);
      Object a = after.get(key);
      if (sameValue(b, a)) {
        continue;
      }
      if (tolerant && ignore.ignores(live, key, b != null)) {
        continue;
      }
      if (tolerant && key.equals("metadata.namespace") && b == null) {
        continue;
      }
      if (tolerant
          && b instanceof String bs
          && a instanceof String as
          && isImageKey(key)
          && canonicalImage(bs).equals(canonicalImage(as))) {
        continue;
      }
      diffs.add(new FieldDiff(key, Optional.ofNullable(b), Optional.ofNullable(a)));
    }
    return diffs;
  }

  /** Dotted leaf keys of {@code content}, this domain's signature annotations removed. */
  static Map<String, Object> flatten(Map<String, Object> content, AnnotationDomain domain) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> e : content.entrySet()) {
      walk(e.getKey(), e.getValue(), out);
    }
    out.keySet()
        .removeIf(
            k ->
                k.startsWith("metadata.annotations.")
                    && domain.isSignatureAnnotation(k.substring("metadata.annotations.".length())));
    return out;
  }

  private static void walk(String path, Object value, Map<String, Object> out) {
    if (value == null) {
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> walk(path + "." + k, v, out));
    } else if (value instanceof List<?> list) {
      for (int i = 0; i < list.size(); i++) {
        walk(path + "." + i, list.get(i), out);
      }
    } else {
      out.put(path, value);
    }
  }

  /**
   * Values as Go sees them after a JSON round trip: numbers compare by value (80 == 80.0), but a
   * string is never equal to a number or a boolean.
   */
  private static boolean sameValue(Object a, Object b) {
    if (a instanceof Number x && b instanceof Number y) {
      return decimal(x).compareTo(decimal(y)) == 0;
    }
    return Objects.equals(a, b);
  }

  private static BigDecimal decimal(Number n) {
    if (n instanceof BigDecimal d) {
      return d;
    }
    if (n instanceof BigInteger i) {
      return new BigDecimal(i);
    }
    if (n instanceof Double || n instanceof Float) {
      double d = n.doubleValue();
      return Double.isFinite(d) ? BigDecimal.valueOf(d) : BigDecimal.valueOf(Double.MAX_VALUE);
    }
    return BigDecimal.valueOf(n.longValue());
  }

  private static boolean isImageKey(String key) {
    return key.equals("image") || key.endsWith(".image");
  }

  /** {@code nginx} -> {@code docker.io/library/nginx:latest}; registries and digests kept. */
  static String canonicalImage(String image) {
    String name = image;
    String suffix = "";
    int at = name.indexOf('@');
    if (at >= 0) {
      suffix = name.substring(at);
      name = name.substring(0, at);
    }
    int slash = name.lastIndexOf('/');
    int colon = name.lastIndexOf(':');
    if (colon > slash) {
      suffix = name.substring(colon) + suffix;
      name = name.substring(0, colon);
    } else if (at < 0) {
      suffix = ":latest";
    }
    int first = name.indexOf('/');
    String host = first < 0 ? "" : name.substring(0, first);
    boolean hasRegistry =
        first >= 0 && (host.contains(".") || host.contains(":") || host.equals("localhost"));
    if (!hasRegistry) {
      name = "docker.io/" + name;
    } else if (host.equals("index.docker.io")) {
      name = "docker.io" + name.substring(first);
    }
    if (name.startsWith("docker.io/") && name.indexOf('/', "docker.io/".length()) < 0) {
      name = "docker.io/library/" + name.substring("docker.io/".length());
    }
    return name + suffix;
  }

  static String show(Object value) {
    if (value instanceof String s) {
      // A JSON string literal: quotes, backslashes and control characters escaped.
      String shown = s.length() > 120 ? s.substring(0, 117) + "..." : s;
      return '"' + new String(JsonStringEncoder.getInstance().quoteAsString(shown)) + '"';
    }
    return String.valueOf(value);
  }
}
