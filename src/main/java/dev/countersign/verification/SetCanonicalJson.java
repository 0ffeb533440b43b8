package dev.countersign.verification;

import dev.countersign.manifest.RekorBundle;
import java.nio.charset.StandardCharsets;

/**
 * The bytes a Rekor signed entry timestamp (SET) signs: the RFC 8785 (JCS) canonical JSON of {@code
 * {"body","integratedTime","logID","logIndex"}}: keys sorted, no whitespace, integers as plain
 * decimals, strings with JSON's minimal escaping.
 */
final class SetCanonicalJson {

  private SetCanonicalJson() {}

  static byte[] of(RekorBundle bundle) {
    StringBuilder out = new StringBuilder(bundle.body().length() + 160);
    out.append("{\"body\":");
    string(out, bundle.body());
    out.append(",\"integratedTime\":").append(bundle.integratedTime());
    out.append(",\"logID\":");
    string(out, bundle.logId());
    out.append(",\"logIndex\":").append(bundle.logIndex());
    out.append('}');
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** JCS string serialization (ECMAScript JSON.stringify): only '"', '\' and controls escaped. */
  static void string(StringBuilder out, String value) {
    out.append('"');
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }
}
