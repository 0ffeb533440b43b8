package dev.countersign.support.problems;

/**
 * The one place that shapes hints, the "perhaps you should …" half of a problem (jib's {@code
 * HelpfulSuggestions}). A hint is kept as it reads alone, {@code "perhaps you should <fix>"}; where
 * it follows a message it is joined with {@link #append}. Hints written with a leading comma (the
 * older house style) are accepted and normalised by {@link #text}.
 */
public final class Hints {

  /** How every hint starts. */
  public static final String PREFIX = "perhaps you should ";

  private Hints() {}

  /** {@code "perhaps you should " + fix}. */
  public static String suggest(String fix) {
    return PREFIX + fix;
  }

  /**
   * The hint as it reads alone: trimmed, without a leading comma; {@code null} for a missing or
   * blank hint.
   */
  public static String text(String hint) {
    if (hint == null || hint.isBlank()) {
      return null;
    }
    String text = hint.strip();
    return text.startsWith(",") ? text.substring(1).strip() : text;
  }

  /** What the hint asks for, without "perhaps you should" (to join several hints in one). */
  public static String fix(String hint) {
    String text = text(hint);
    if (text == null) {
      return "";
    }
    return text.startsWith(PREFIX) ? text.substring(PREFIX.length()) : text;
  }

  /** {@code what}, then {@code ", " + hint} when there is a hint: one sentence. */
  public static String append(String what, String hint) {
    String text = text(hint);
    return text == null ? what : what + ", " + text;
  }
}
