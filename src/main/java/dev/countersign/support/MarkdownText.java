package dev.countersign.support;

import java.util.Locale;

/**
 * Makes text countersign does not control (file names, object names, messages that quote them,
 * answers from remotes) inert in GitHub-flavoured Markdown: the job summary and pull request
 * bodies, which GitHub renders with a sanitiser that still keeps headings, images and links.
 *
 * <p>One approach everywhere: escape, never fence. HTML's specials become entities, every Markdown
 * punctuation that can open a link, image, emphasis, code span, strikethrough, math, heading or
 * table cell gets a backslash (CommonMark escapes any ASCII punctuation, GFM honours {@code \|}
 * even inside code spans), the two GFM extended autolinks ({@code scheme://}, {@code www.}) are
 * broken by one escape each, and line breaks become {@code <br>}. The rendered text reads as the
 * input did; only the Markdown source grows.
 */
public final class MarkdownText {

  private MarkdownText() {}

  /**
   * {@code text} as it should read in a table cell or a line of prose, with no markup of its own.
   * Pure and total: every input gives one line of Markdown that renders as {@code text}, with each
   * line break shown as {@code <br>}.
   */
  public static String cell(String text) {
    StringBuilder out = new StringBuilder(text.length() + 16);
    int length = text.length();
    for (int i = 0; i < length; i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> out.append("&amp;");
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '"' -> out.append("&quot;");
        case '\r' -> {
          if (i + 1 < length && text.charAt(i + 1) == '\n') {
            i++;
          }
          out.append("<br>");
        }
        case '\n' -> out.append("<br>");
        case '\\', '`', '*', '_', '~', '[', ']', '(', ')', '!', '|', '#', '$', '@' ->
            out.append('\\').append(c);
        // GFM turns "https://…" into a link where it meets the ':'; an escaped ':' is text.
        case ':' -> out.append(text.startsWith("//", i + 1) ? "\\:" : ":");
        // GFM turns "www.…" into a link where it meets the 'w'; "www\." no longer matches.
        case '.' -> out.append(endsWithWww(text, i) ? "\\." : ".");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * {@link #cell} in monospace, as {@code <code>} rather than a backtick code span: no delimiter to
   * count, and the escapes still apply inside it (GitHub's sanitiser keeps {@code code}, and its
   * mention and issue-reference links skip code elements).
   */
  public static String code(String text) {
    return "<code>" + cell(text) + "</code>";
  }

  private static boolean endsWithWww(String text, int dot) {
    return dot >= 3 && text.substring(dot - 3, dot).toLowerCase(Locale.ROOT).equals("www");
  }
}
