package dev.countersign.manifest;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Writes plain Java values (as {@link ManifestDocument} holds them) as deterministic, Go-like YAML:
 * what goes into the signed message and the signed files.
 *
 * <p>Rules, chosen so that every YAML 1.1 parser (yaml.v2, SnakeYAML) and every YAML 1.2 core
 * parser reads the output back to the same values:
 *
 * <ul>
 *   <li>mapping keys sorted by Unicode code point; block style; 2-space indent; sequences not
 *       indented under their parent key ({@code - name: x} at the key's column), like yaml.v2;
 *   <li>empty mapping {@code {}}, empty sequence {@code []}, null {@code null}, booleans {@code
 *       true}/{@code false}, integers as digits, floats always with a '.' or as {@code .inf}/{@code
 *       -.inf}/{@code .nan}, exponents signed ({@code 1.0e+20});
 *   <li>strings plain only when no parser could read them as anything else and they contain no
 *       indicator problem; multi-line strings as literal blocks ({@code |}, {@code |-}) when that
 *       is exact, else double-quoted with escapes;
 *   <li>every document ends with exactly one {@code "\n"}.
 * </ul>
 *
 * Long strings are never folded (yaml.v2 folds at 80 columns; values are equal either way).
 */
public final class CanonicalYaml {

  private static final Resolver YAML_11 = new Resolver();

  private static final Pattern CORE_12_NON_STRING =
      Pattern.compile(
          "null|Null|NULL|~|true|True|TRUE|false|False|FALSE"
              + "|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
              + "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?"
              + "|[-+]?\\.(inf|Inf|INF)|\\.nan|\\.NaN|\\.NAN");

  /** Dates and timestamps in any parser's reading, kept quoted so no parser makes them dates. */
  private static final Pattern TIMESTAMP_LIKE =
      Pattern.compile("[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}.*", Pattern.DOTALL);

  /** Number-like strings (with underscores, sexagesimal colons, signs): always quoted. */
  private static final Pattern NUMBER_LIKE =
      Pattern.compile("[-+]?[0-9.][0-9a-fA-FxXoObB_:.eE+-]*");

  private static final Set<String> WORDS =
      Set.of("y", "n", "yes", "no", "on", "off", "true", "false", "null", "~", "=", "<<");

  private static final int LONGEST_WORD = 5;

  private static final String INDICATORS = "-?:,[]{}#&*!|>'\"%@`";

  /**
   * Answers of {@link #isPlainSafe} for short strings. The check runs four regular expressions and
   * SnakeYAML's resolver, and is a pure function of the string; keys and many values repeat in
   * every manifest of a run (it was ~9 % of a run's CPU at 2,000 manifests). Bounded: once full,
   * new strings are checked without being remembered. Base64 values (signatures, unique per
   * manifest) are answered by {@link #isPlainBase64Text} before they could fill it.
   */
  private static final ConcurrentHashMap<String, Boolean> PLAIN_SAFE = new ConcurrentHashMap<>();

  private static final int PLAIN_SAFE_MAX_ENTRIES = 4096;
  private static final int PLAIN_SAFE_MAX_LENGTH = 128;

  /** Longest key written in the implicit {@code key: value} form (YAML allows 1024). */
  private static final int MAX_IMPLICIT_KEY = 1000;

  private CanonicalYaml() {}

  /** One document: a mapping written as canonical YAML, ending with "\n". */
  public static String write(Map<String, ?> document) {
    StringBuilder out = new StringBuilder();
    if (document.isEmpty()) {
      return "{}\n";
    }
    writeMapping(out, document, 0, "");
    return out.toString();
  }

  /**
   * A mapping at {@code indent}; its first key line starts with {@code firstPrefix} instead of
   * indentation (used for "- " in sequences).
   */
  private static void writeMapping(
      StringBuilder out, Map<?, ?> map, int indent, String firstPrefix) {
    List<String> keys = new ArrayList<>(map.size());
    for (Object key : map.keySet()) {
      keys.add(String.valueOf(key));
    }
    keys.sort(CanonicalYaml::compareCodePoints);
    boolean first = true;
    for (String key : keys) {
      Object value = map.containsKey(key) ? map.get(key) : valueForKey(map, key);
      out.append(first ? firstPrefix : " ".repeat(indent));
      first = false;
      String written = key(key);
      if (written.length() > MAX_IMPLICIT_KEY) {
        // YAML limits implicit keys to 1024 characters; longer ones need the explicit "? " form.
        out.append("? ").append(written).append('\n').append(" ".repeat(indent));
      } else {
        out.append(written);
      }
      out.append(':');
      writeValueAfterKey(out, value, indent);
    }
  }

  /** Map keys that are not Strings (Integer keys in hand-built maps) are looked up by text. */
  private static Object valueForKey(Map<?, ?> map, String key) {
    for (Map.Entry<?, ?> entry : map.entrySet()) {
      if (String.valueOf(entry.getKey()).equals(key)) {
        return entry.getValue();
      }
    }
    return null;
  }

  private static void writeValueAfterKey(StringBuilder out, Object value, int indent) {
    if (value instanceof Map<?, ?> child && !child.isEmpty()) {
      out.append('\n');
      writeMapping(out, child, indent + 2, " ".repeat(indent + 2));
    } else if (value instanceof List<?> list && !list.isEmpty()) {
      out.append('\n');
      writeSequence(out, list, indent, " ".repeat(indent));
    } else if (value instanceof String s && isLiteralSafe(s)) {
      out.append(' ');
      writeLiteral(out, s, indent + 2);
    } else {
      out.append(' ').append(scalar(value)).append('\n');
    }
  }

  private static void writeSequence(
      StringBuilder out, List<?> list, int indent, String firstPrefix) {
    boolean first = true;
    for (Object item : list) {
      String prefix = (first ? firstPrefix : " ".repeat(indent)) + "- ";
      first = false;
      if (item instanceof Map<?, ?> map && !map.isEmpty()) {
        writeMapping(out, map, indent + 2, prefix);
      } else if (item instanceof List<?> nested && !nested.isEmpty()) {
        writeSequence(out, nested, indent + 2, prefix);
      } else if (item instanceof String s && isLiteralSafe(s)) {
        out.append(prefix);
        writeLiteral(out, s, indent + 2);
      } else {
        out.append(prefix).append(scalar(item)).append('\n');
      }
    }
  }

  private static void writeLiteral(StringBuilder out, String s, int indent) {
    boolean trailingNewline = s.endsWith("\n");
    out.append(trailingNewline ? "|" : "|-").append('\n');
    String body = trailingNewline ? s.substring(0, s.length() - 1) : s;
    for (String line : body.split("\n", -1)) {
      if (!line.isEmpty()) {
        out.append(" ".repeat(indent)).append(line);
      }
      out.append('\n');
    }
  }

  /**
   * A literal block is exact when: the string has a line break, at most one trailing line break
   * (more would need "keep" chomping, which the "---" separator would change), only printable
   * characters (tabs allowed), no trailing spaces before a line break or at the end, and a first
   * non-empty line that does not start with a space (it sets the block's indentation).
   */
  private static boolean isLiteralSafe(String s) {
    if (s.indexOf('\n') < 0 || s.endsWith("\n\n") || s.equals("\n")) {
      return false;
    }
    String body = s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    boolean seenContent = false;
    for (String line : body.split("\n", -1)) {
      if (line.endsWith(" ") || line.endsWith("\t")) {
        return false;
      }
      if (!line.isEmpty() && !seenContent) {
        if (line.charAt(0) == ' ') {
          return false;
        }
        seenContent = true;
      }
      for (int i = 0; i < line.length(); ) {
        int cp = line.codePointAt(i);
        if (cp != '\t' && !isPlainPrintable(cp)) {
          return false;
        }
        i += Character.charCount(cp);
      }
    }
    return seenContent;
  }

  private static String key(String key) {
    return isPlainSafe(key) ? key : doubleQuoted(key);
  }

  /** A scalar value on one line. */
  static String scalar(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String s) {
      return isPlainSafe(s) ? s : doubleQuoted(s);
    }
    if (value instanceof Boolean b) {
      return b ? "true" : "false";
    }
    if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte
        || value instanceof BigInteger) {
      return value.toString();
    }
    if (value instanceof Double || value instanceof Float) {
      return formatDouble(((Number) value).doubleValue());
    }
    if (value instanceof BigDecimal d) {
      return formatDouble(d.doubleValue());
    }
    if (value instanceof Map<?, ?> m && m.isEmpty()) {
      return "{}";
    }
    if (value instanceof List<?> l && l.isEmpty()) {
      return "[]";
    }
    throw new IllegalArgumentException(
        "cannot write a "
            + value.getClass().getName()
            + " as YAML (only String, Boolean, Long,"
            + " BigInteger, Double, null, List and Map)");
  }

  /**
   * A float every YAML 1.1 and 1.2 parser reads back as the same double: plain decimal with a '.'
   * between 1e-3 and 1e16, else the shortest round-trip digits with a signed exponent.
   */
  static String formatDouble(double d) {
    if (Double.isNaN(d)) {
      return ".nan";
    }
    if (Double.isInfinite(d)) {
      return d > 0 ? ".inf" : "-.inf";
    }
    if (d == 0) {
      return Double.doubleToRawLongBits(d) < 0 ? "-0.0" : "0.0"; // BigDecimal has no -0
    }
    String shortest = Double.toString(d);
    double magnitude = Math.abs(d);
    if (magnitude >= 1e-3 && magnitude < 1e16) {
      String plain = new BigDecimal(shortest).toPlainString();
      return plain.contains(".") ? plain : plain + ".0";
    }
    int e = shortest.indexOf('E');
    String mantissa = shortest.substring(0, e);
    int exponent = Integer.parseInt(shortest.substring(e + 1));
    if (!mantissa.contains(".")) {
      mantissa = mantissa + ".0";
    }
    return mantissa + "e" + (exponent < 0 ? "-" : "+") + Math.abs(exponent);
  }

  /**
   * True when {@code s} can be written plain: it resolves to the same string under yaml.v2,
   * SnakeYAML's YAML 1.1 resolver and the YAML 1.2 core schema, looks like no number, date or
   * keyword in any case, and has no indicator or whitespace problem.
   */
  static boolean isPlainSafe(String s) {
    if (isPlainBase64Text(s)) {
      return true;
    }
    if (s.length() > PLAIN_SAFE_MAX_LENGTH) {
      return checkPlainSafe(s);
    }
    Boolean known = PLAIN_SAFE.get(s);
    if (known != null) {
      return known;
    }
    boolean safe = checkPlainSafe(s);
    if (PLAIN_SAFE.size() < PLAIN_SAFE_MAX_ENTRIES) {
      PLAIN_SAFE.put(s, safe);
    }
    return safe;
  }

  /**
   * A shortcut of {@link #checkPlainSafe} for the base64 annotation values (message, signature,
   * certificate, bundle: several KB each, unique per manifest, so neither cacheable nor cheap to
   * check). True only for strings {@link #checkPlainSafe} accepts: longer than every keyword
   * (longest: "false"), made only of letters, digits, '+', '/' and '=' (no indicator, space, line
   * break, '-', ':', '.' or '_'), and holding at least one character that appears in no YAML 1.1 or
   * 1.2 number, date or timestamp form: '/', '=', or a letter other than a-f, o and x in either
   * case (hex digits, exponents, the 0b/0o/0x prefixes). Every non-string reading of a plain scalar
   * (the regular expressions of {@link #checkPlainSafe}, {@link Yaml11Scalars}, SnakeYAML's
   * resolver) needs either such a keyword, or a string made only of digits, signs, '.', '_', ':',
   * '-', hex digits and those prefix letters. {@code CanonicalYamlTest} compares both answers on
   * generated strings. False means "not decided here", not "unsafe".
   */
  static boolean isPlainBase64Text(String s) {
    if (s.length() <= LONGEST_WORD) {
      return false;
    }
    boolean ruledOut = false;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) {
        if (!ruledOut) {
          char lower = (char) (c | 0x20);
          ruledOut = lower > 'f' && lower != 'o' && lower != 'x';
        }
      } else if (c == '/' || c == '=') {
        ruledOut = true;
      } else if ((c < '0' || c > '9') && c != '+') {
        return false;
      }
    }
    return ruledOut;
  }

  static boolean checkPlainSafe(String s) {
    if (s.isEmpty()) {
      return false;
    }
    char first = s.charAt(0);
    char last = s.charAt(s.length() - 1);
    // A leading '-' is fine when a non-space follows ("-v", "--flag"), as yaml.v2 writes it.
    boolean dashStart =
        first == '-' && s.length() > 1 && s.charAt(1) != ' ' && !s.startsWith("---");
    if ((INDICATORS.indexOf(first) >= 0 && !dashStart)
        || first == ' '
        || last == ' '
        || last == ':') {
      return false;
    }
    if (s.startsWith("...") || s.contains(": ") || s.contains(" #")) {
      return false;
    }
    for (int i = 0; i < s.length(); ) {
      char c = s.charAt(i);
      int cp = Character.isSurrogate(c) ? s.codePointAt(i) : c;
      if (!isPlainPrintable(cp)) {
        return false;
      }
      i += Character.charCount(cp);
    }
    // No word is longer than five characters: long strings (base64 annotations) skip the copy.
    if ((s.length() <= LONGEST_WORD && WORDS.contains(s.toLowerCase(Locale.ROOT)))
        || NUMBER_LIKE.matcher(s).matches()
        || TIMESTAMP_LIKE.matcher(s).matches()
        || CORE_12_NON_STRING.matcher(s).matches()
        || !s.equals(Yaml11Scalars.resolvePlain(s))) {
      return false;
    }
    return Tag.STR.equals(YAML_11.resolve(NodeId.scalar, s, true));
  }

  /**
   * Printable in YAML and safe unescaped: no controls, no YAML 1.1 line breaks (U+0085, U+2028,
   * U+2029), no BOM, no surrogate halves, no non-characters U+FFFE/U+FFFF.
   */
  private static boolean isPlainPrintable(int cp) {
    if (cp >= 0x20 && cp <= 0x7E) {
      return true;
    }
    if (cp >= 0xA0 && cp <= 0xD7FF) {
      return cp != 0x2028 && cp != 0x2029;
    }
    if (cp >= 0xE000 && cp <= 0xFFFD) {
      return cp != 0xFEFF;
    }
    return cp >= 0x10000 && cp <= 0x10FFFF;
  }

  static String doubleQuoted(String s) {
    StringBuilder out = new StringBuilder(s.length() + 2).append('"');
    for (int i = 0; i < s.length(); ) {
      int cp = s.codePointAt(i);
      i += Character.charCount(cp);
      switch (cp) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        case '\r' -> out.append("\\r");
        default -> {
          if (isPlainPrintable(cp)) {
            out.appendCodePoint(cp);
          } else if (cp <= 0xFFFF) {
            out.append(String.format("\\u%04X", cp));
          } else {
            out.append(String.format("\\U%08X", cp));
          }
        }
      }
    }
    return out.append('"').toString();
  }

  static int compareCodePoints(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      int ca = a.codePointAt(i);
      int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }
}
