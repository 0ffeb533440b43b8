package dev.countersign.manifest;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Resolves untagged plain scalars the way {@code gopkg.in/yaml.v2} does when decoding into {@code
 * interface{}} (what Kubernetes tooling uses): YAML 1.1 booleans including {@code y}/{@code n}, Go
 * integer literals (hex, {@code 0o}/leading-zero octal, binary, underscores), yaml.v2-style floats,
 * and timestamps kept as strings.
 *
 * <p>Integers beyond 64 bits read as yaml.v2 reads them, not as their exact value: a uint64 stays
 * exact (a {@link BigInteger}); anything larger, or below the int64 range, is a float when it is
 * decimal digits ({@code 0777777777777777777777777} too, which Go's float parser reads as decimal)
 * and a string otherwise ({@code 0x10000000000000000}). Sexagesimal numbers ({@code 1:30}) stay
 * strings, exactly as in yaml.v2 (SnakeYAML's YAML 1.1 resolver would make them integers).
 */
final class Yaml11Scalars {

  /** Marker for a resolved YAML null (a Java map cannot tell "absent" from a null value here). */
  static final Object NULL = new Object();

  private static final Map<String, Object> WORDS =
      Map.ofEntries(
          Map.entry("y", true),
          Map.entry("Y", true),
          Map.entry("yes", true),
          Map.entry("Yes", true),
          Map.entry("YES", true),
          Map.entry("true", true),
          Map.entry("True", true),
          Map.entry("TRUE", true),
          Map.entry("on", true),
          Map.entry("On", true),
          Map.entry("ON", true),
          Map.entry("n", false),
          Map.entry("N", false),
          Map.entry("no", false),
          Map.entry("No", false),
          Map.entry("NO", false),
          Map.entry("false", false),
          Map.entry("False", false),
          Map.entry("FALSE", false),
          Map.entry("off", false),
          Map.entry("Off", false),
          Map.entry("OFF", false),
          Map.entry("~", NULL),
          Map.entry("null", NULL),
          Map.entry("Null", NULL),
          Map.entry("NULL", NULL),
          Map.entry(".nan", Double.NaN),
          Map.entry(".NaN", Double.NaN),
          Map.entry(".NAN", Double.NaN),
          Map.entry(".inf", Double.POSITIVE_INFINITY),
          Map.entry(".Inf", Double.POSITIVE_INFINITY),
          Map.entry(".INF", Double.POSITIVE_INFINITY),
          Map.entry("+.inf", Double.POSITIVE_INFINITY),
          Map.entry("+.Inf", Double.POSITIVE_INFINITY),
          Map.entry("+.INF", Double.POSITIVE_INFINITY),
          Map.entry("-.inf", Double.NEGATIVE_INFINITY),
          Map.entry("-.Inf", Double.NEGATIVE_INFINITY),
          Map.entry("-.INF", Double.NEGATIVE_INFINITY));

  /** yaml.v2's {@code yamlStyleFloat}. */
  private static final Pattern YAML_STYLE_FLOAT =
      Pattern.compile("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");

  private Yaml11Scalars() {}

  /**
   * The value of an untagged plain scalar: {@code Boolean}, {@code Long}, {@code BigInteger},
   * {@code Double}, {@link #NULL}, or the text itself.
   */
  static Object resolvePlain(String text) {
    if (text.isEmpty()) {
      return NULL;
    }
    Object word = WORDS.get(text);
    if (word != null) {
      return word;
    }
    char first = text.charAt(0);
    if (first == '.') {
      if (!isGoDotFloat(text)) {
        return text;
      }
      double value = Double.parseDouble(text.replace("_", ""));
      // As below: ParseFloat's range error keeps the string (".5e400").
      return Double.isInfinite(value) ? text : Double.valueOf(value);
    }
    if ((first >= '0' && first <= '9') || first == '+' || first == '-') {
      String plain = text.replace("_", "");
      Optional<Number> integer = goYamlInteger(plain);
      if (integer.isPresent()) {
        return integer.get();
      }
      if (YAML_STYLE_FLOAT.matcher(plain).matches()) {
        double value = Double.parseDouble(plain);
        // Go's ParseFloat reports a range error for overflow; yaml.v2 then keeps the string.
        return Double.isInfinite(value) ? text : Double.valueOf(value);
      }
    }
    return text;
  }

  /**
   * Whether Go's {@code strconv.ParseFloat} reads {@code text}, which starts with '.', as a number:
   * digits, an optional exponent, and single underscores between digits (Go's number syntax;
   * yaml.v2 hands such a scalar to ParseFloat as written). A loop, not a regular expression, so a
   * long scalar cannot exhaust the stack.
   */
  private static boolean isGoDotFloat(String text) {
    int i = digitRun(text, 1);
    if (i == 1) {
      return false;
    }
    if (i < text.length() && (text.charAt(i) == 'e' || text.charAt(i) == 'E')) {
      i++;
      if (i < text.length() && (text.charAt(i) == '+' || text.charAt(i) == '-')) {
        i++;
      }
      int exponent = digitRun(text, i);
      if (exponent == i) {
        return false;
      }
      i = exponent;
    }
    return i == text.length();
  }

  /** The end of the digits from {@code start}, single underscores allowed between two digits. */
  private static int digitRun(String text, int start) {
    int i = start;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c >= '0' && c <= '9') {
        i++;
      } else if (c == '_'
          && i > start
          && i + 1 < text.length()
          && text.charAt(i + 1) >= '0'
          && text.charAt(i + 1) <= '9') {
        i++;
      } else {
        break;
      }
    }
    return i;
  }

  /**
   * The text sigs.k8s.io/yaml makes of a float mapping key on its way to JSON: Go's {@code
   * strconv.FormatFloat(key, 'g', -1, 32)}, the shortest digits of the float32 nearest the key
   * ({@code 1.0} is "1", {@code 1e6} "1e+06", {@code 123456789.5} "1.2345679e+08"), and {@code
   * .inf}, {@code -.inf}, {@code .nan} for the specials.
   */
  static String floatKeyText(double key) {
    float f = (float) key;
    if (Float.isNaN(f)) {
      return ".nan";
    }
    if (Float.isInfinite(f)) {
      return f > 0 ? ".inf" : "-.inf";
    }
    String sign = Float.floatToRawIntBits(f) < 0 ? "-" : "";
    float magnitude = Math.abs(f);
    if (magnitude == 0) {
      return sign + "0";
    }
    BigDecimal exact = new BigDecimal(magnitude);
    BigDecimal shortest = exact;
    search:
    for (int precision = 1; precision <= 9; precision++) {
      // The nearest decimal of this precision first; at a power of two the float's interval is
      // narrower below than above, so the nearest can miss it while the one above still reads
      // back (2^-96 is "1.2621775e-29", not "1.26217745e-29").
      for (RoundingMode mode : new RoundingMode[] {RoundingMode.HALF_EVEN, RoundingMode.UP}) {
        BigDecimal rounded = exact.round(new MathContext(precision, mode));
        if (Float.parseFloat(rounded.toString()) == magnitude) {
          shortest = rounded;
          break search;
        }
      }
    }
    BigDecimal stripped = shortest.stripTrailingZeros();
    String digits = stripped.unscaledValue().toString();
    int exponent = digits.length() - 1 - stripped.scale();
    if (exponent < -4 || exponent >= 6) {
      String mantissa =
          digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
      int e = Math.abs(exponent);
      return sign + mantissa + "e" + (exponent < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
    }
    int point = exponent + 1;
    if (point <= 0) {
      return sign + "0." + "0".repeat(-point) + digits;
    }
    if (point >= digits.length()) {
      return sign + digits + "0".repeat(point - digits.length());
    }
    return sign + digits.substring(0, point) + "." + digits.substring(point);
  }

  /**
   * An integer as yaml.v2 takes it (underscores already removed): what Go's {@code
   * strconv.ParseInt(s, 0, 64)} reads, as a Long, else what {@code strconv.ParseUint(s, 0, 64)}
   * reads (no sign allowed), as a BigInteger; empty when neither does.
   */
  static Optional<Number> goYamlInteger(String plain) {
    Optional<BigInteger> integer = goInteger(plain);
    if (integer.isEmpty()) {
      return Optional.empty();
    }
    BigInteger value = integer.get();
    if (value.bitLength() < 64) {
      return Optional.of(value.longValue());
    }
    boolean unsigned = value.signum() > 0 && value.bitLength() == 64 && plain.charAt(0) != '+';
    return unsigned ? Optional.of(value) : Optional.empty();
  }

  /**
   * Go's {@code strconv.ParseInt(s, 0, 64)} syntax without its range limit: optional sign, then
   * {@code 0x}/{@code 0o}/{@code 0b} prefixed digits, a leading-zero octal, or decimal digits.
   */
  static Optional<BigInteger> goInteger(String s) {
    int i = 0;
    boolean negative = false;
    if (!s.isEmpty() && (s.charAt(0) == '+' || s.charAt(0) == '-')) {
      negative = s.charAt(0) == '-';
      i = 1;
    }
    String body = s.substring(i);
    if (body.isEmpty()) {
      return Optional.empty();
    }
    int radix = 10;
    String digits = body;
    if (body.length() > 1 && body.charAt(0) == '0') {
      char p = body.charAt(1);
      if (p == 'x' || p == 'X') {
        radix = 16;
        digits = body.substring(2);
      } else if (p == 'o' || p == 'O') {
        radix = 8;
        digits = body.substring(2);
      } else if (p == 'b' || p == 'B') {
        radix = 2;
        digits = body.substring(2);
      } else {
        radix = 8;
        digits = body.substring(1);
      }
    }
    if (digits.isEmpty()) {
      return Optional.empty();
    }
    for (int k = 0; k < digits.length(); k++) {
      if (Character.digit(digits.charAt(k), radix) < 0 || digits.charAt(k) > 'z') {
        return Optional.empty();
      }
    }
    BigInteger value = new BigInteger(digits, radix);
    return Optional.of(negative ? value.negate() : value);
  }
}
