package dev.countersign.action;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * What the GitHub Actions runner executes in a log line, how countersign writes the commands it
 * means, and how it writes every other line so that the runner never executes it.
 *
 * <p>The runner (actions/runner {@code ActionCommand}) splits the output of a step into lines at
 * {@code \n}, {@code \r} and {@code \r\n}, and reads a line as a command when, after leading white
 * space, it starts with {@code ::} (v2 syntax), or when it contains {@code ##[} anywhere (v1
 * syntax). Both matches are .NET culture-sensitive string comparisons, which skip "ignorable"
 * characters such as U+00AD or U+200B, so {@code :\u00AD:} counts as {@code ::}.
 *
 * <p>{@link #neutralize} therefore (1) shows invisible and control characters as {@code \\uXXXX},
 * (2) writes the first {@code :} of a line that would start with {@code ::} as {@code %3A}, and (3)
 * writes the {@code [} of every {@code ##[} as {@code %5B}. The result is a line the runner shows
 * as it is and never executes. Command data and properties are escaped as {@code @actions/core}
 * does (data: {@code % \r \n}; properties also {@code : ,}).
 */
public final class WorkflowCommands {

  private static final Pattern NAME = Pattern.compile("[a-z][a-z-]*");

  private WorkflowCommands() {}

  /**
   * One command line, {@code ::name k=v,k=v::data}, with data and properties escaped as the Actions
   * toolkit does. Text in annotations and group titles is also {@linkplain #neutralize neutralized}
   * line by line (it comes from file names, YAML and exceptions); {@code add-mask} data is kept
   * exact, since the mask must match the secret.
   */
  public static String format(String name, Map<String, String> properties, String data) {
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("not a workflow command name: " + name);
    }
    boolean exact = name.equals("add-mask");
    StringBuilder sb = new StringBuilder("::").append(name);
    if (!properties.isEmpty()) {
      sb.append(' ');
      boolean first = true;
      for (Map.Entry<String, String> p : properties.entrySet()) {
        if (!NAME.matcher(p.getKey().toLowerCase(Locale.ROOT)).matches()) {
          throw new IllegalArgumentException("not a workflow command property: " + p.getKey());
        }
        sb.append(first ? "" : ",")
            .append(p.getKey())
            .append('=')
            .append(escapeProperty(neutralizeText(p.getValue())));
        first = false;
      }
    }
    sb.append("::").append(escapeData(exact ? data : neutralizeText(data)));
    return sb.toString();
  }

  /** Command data as {@code @actions/core} escapes it: {@code %}, {@code \r}, {@code \n}. */
  public static String escapeData(String s) {
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A");
  }

  /**
   * A command property as {@code @actions/core} escapes it: data escapes plus {@code :} and {@code
   * ,}.
   */
  public static String escapeProperty(String s) {
    return escapeData(s).replace(":", "%3A").replace(",", "%2C");
  }

  /**
   * Splits text into lines where the runner does ({@code \r\n}, {@code \r}, {@code \n}); a trailing
   * separator does not start another line. Empty text is one empty line.
   */
  public static List<String> lines(String text) {
    List<String> lines = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n') {
        lines.add(text.substring(start, i));
        if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
          i++;
        }
        start = i + 1;
      }
    }
    if (start < text.length() || lines.isEmpty()) {
      lines.add(text.substring(start));
    }
    return lines;
  }

  /**
   * One line of untrusted text (no line separators) as the runner will show but never execute it.
   * Text that is already safe is returned unchanged.
   */
  public static String neutralize(String line) {
    StringBuilder visible = new StringBuilder(line.length() + 8);
    line.codePoints()
        .forEach(
            cp -> {
              if (isInvisible(cp)) {
                visible.append(String.format(Locale.ROOT, cp > 0xFFFF ? "\\U%08X" : "\\u%04X", cp));
              } else {
                visible.appendCodePoint(cp);
              }
            });
    String text = visible.toString().replace("##[", "##%5B");
    int first = 0;
    while (first < text.length() && isLeadingSpace(text.charAt(first))) {
      first++;
    }
    return text.startsWith("::", first)
        ? text.substring(0, first) + "%3A" + text.substring(first + 1)
        : text;
  }

  /** Every line of {@code text} neutralized; the line separators are kept as they are. */
  public static String neutralizeText(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 8);
    int start = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\r' || c == '\n') {
        sb.append(neutralize(text.substring(start, i))).append(c);
        start = i + 1;
      }
    }
    return sb.append(neutralize(text.substring(start))).toString();
  }

  /**
   * True when the runner would try to read {@code line} as a command: after leading white space it
   * starts with {@code ::}, or it contains {@code ##[} (ignorable characters skipped, as the
   * runner's comparison does). A conservative superset; {@link WorkflowLog} checks every line it
   * writes with it.
   */
  public static boolean looksLikeCommand(String line) {
    StringBuilder significant = new StringBuilder();
    line.codePoints().filter(cp -> !isInvisible(cp)).forEach(significant::appendCodePoint);
    String s = significant.toString();
    int first = 0;
    while (first < s.length()
        && (isLeadingSpace(s.charAt(first)) || Character.isWhitespace(s.charAt(first)))) {
      first++;
    }
    return s.startsWith("::", first) || s.contains("##[");
  }

  /** White space .NET's {@code TrimStart} removes that {@link #neutralize} leaves visible. */
  private static boolean isLeadingSpace(char c) {
    return c == '\t' || c == ' ' || Character.getType(c) == Character.SPACE_SEPARATOR;
  }

  /**
   * Characters a reader cannot see or that a culture-sensitive comparison ignores: controls (except
   * tab), format characters, line and paragraph separators, private use, unassigned code points,
   * lone surrogates, and Unicode's other default-ignorable code points (variation selectors, the
   * combining grapheme joiner, Hangul fillers, ...).
   */
  static boolean isInvisible(int cp) {
    if (cp == '\t') {
      return false;
    }
    switch (Character.getType(cp)) {
      case Character.CONTROL,
          Character.FORMAT,
          Character.LINE_SEPARATOR,
          Character.PARAGRAPH_SEPARATOR,
          Character.PRIVATE_USE,
          Character.UNASSIGNED,
          Character.SURROGATE -> {
        return true;
      }
      default -> {
        return cp == 0x034F
            || cp == 0x115F
            || cp == 0x1160
            || cp == 0x17B4
            || cp == 0x17B5
            || (cp >= 0x180B && cp <= 0x180F)
            || cp == 0x3164
            || (cp >= 0xFE00 && cp <= 0xFE0F)
            || cp == 0xFFA0
            || (cp >= 0x1BCA0 && cp <= 0x1BCA3)
            || (cp >= 0x1D173 && cp <= 0x1D17A)
            || (cp >= 0xE0000 && cp <= 0xE0FFF);
      }
    }
  }
}
