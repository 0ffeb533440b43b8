package dev.countersign.governance;

import com.google.common.primitives.UnsignedLong;
import dev.cel.common.values.NullValue;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Converts plain YAML values to what cel-java's runtime expects, as the API server's decoding into
 * the typed object leaves them: integers become {@code Long}, integers beyond int64 become uint or
 * double as Kubernetes' JSON decoding would, and a {@code null} is handled as below. Builds new
 * values; the manifest's own maps (what is signed) are never changed.
 *
 * <p>Nulls. A typed object has no place for a null: a field or map entry whose value is {@code
 * null} ({@code livenessProbe:} left empty) decodes to an unset field, which the conversion back to
 * the unstructured object CEL sees omits, so {@code has()} is false there and it is dropped here,
 * at every depth. The exception is a {@code map[string]string}: Go's JSON decoding stores the
 * element type's zero value for a null, so {@code labels: {team: null}} keeps {@code team} as
 * {@code ""}. Without schemas the only such maps recognised are {@code labels} and {@code
 * annotations} of a {@code metadata} (ObjectMeta, also inside templates); a null entry of another
 * string map ({@code nodeSelector}, a ConfigMap's {@code data}) is dropped. Anywhere else (a list
 * item, the value itself) {@code null} becomes CEL's null value, since a Java null in a map would
 * read as "unknown".
 */
final class CelValues {

  /** The {@code map[string]string} fields of ObjectMeta. */
  private static final Set<String> METADATA_STRING_MAPS = Set.of("labels", "annotations");

  /** Where a value sits, as far as its null handling goes. */
  private enum Place {
    ANY,
    METADATA,
    STRING_MAP
  }

  private CelValues() {}

  static Object toCel(Object value) {
    return toCel(value, Place.ANY);
  }

  /**
   * What an entry of a {@code map[string]string} (labels, annotations) decodes to: a null is the
   * empty string; anything else as is. For the objectSelector, which reads labels directly.
   */
  static Object stringMapEntry(Object value) {
    return value == null ? "" : value;
  }

  private static Object toCel(Object value, Place place) {
    if (value == null) {
      return NullValue.NULL_VALUE;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> result = new LinkedHashMap<>();
      map.forEach(
          (k, v) -> {
            String key = String.valueOf(k);
            if (place == Place.STRING_MAP) {
              result.put(key, toCel(stringMapEntry(v), Place.ANY));
            } else if (v != null) {
              result.put(key, toCel(v, inside(place, key)));
            }
          });
      return Collections.unmodifiableMap(result);
    }
    if (value instanceof List<?> list) {
      List<Object> result = new ArrayList<>(list.size());
      list.forEach(item -> result.add(toCel(item, Place.ANY)));
      return Collections.unmodifiableList(result);
    }
    if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
      return ((Number) value).longValue();
    }
    if (value instanceof Float f) {
      return f.doubleValue();
    }
    if (value instanceof BigInteger big) {
      if (big.bitLength() < 64) {
        return big.longValue();
      }
      if (big.signum() > 0 && big.bitLength() <= 64) {
        return UnsignedLong.valueOf(big);
      }
      return big.doubleValue();
    }
    return value;
  }

  /** The place of the value under {@code key} of a map at {@code place}. */
  private static Place inside(Place place, String key) {
    if (place == Place.METADATA && METADATA_STRING_MAPS.contains(key)) {
      return Place.STRING_MAP;
    }
    return key.equals("metadata") ? Place.METADATA : Place.ANY;
  }
}
