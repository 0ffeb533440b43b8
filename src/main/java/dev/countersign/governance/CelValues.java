package dev.countersign.governance;

import com.google.common.primitives.UnsignedLong;
import dev.cel.common.values.NullValue;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts plain YAML values to what cel-java's runtime expects: {@code null} becomes CEL's null
 * value (a Java null inside a map would read as "unknown"), integers become {@code Long}, integers
 * beyond int64 become uint or double as Kubernetes' JSON decoding would.
 */
final class CelValues {

  private CelValues() {}

  static Object toCel(Object value) {
    if (value == null) {
      return NullValue.NULL_VALUE;
    }
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> result = new LinkedHashMap<>();
      map.forEach((k, v) -> result.put(String.valueOf(k), toCel(v)));
      return Collections.unmodifiableMap(result);
    }
    if (value instanceof List<?> list) {
      List<Object> result = new ArrayList<>(list.size());
      list.forEach(item -> result.add(toCel(item)));
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
}
