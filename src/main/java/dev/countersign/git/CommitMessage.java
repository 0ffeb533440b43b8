package dev.countersign.git;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Builds commit messages with git trailers ({@code Key: value} lines in the last paragraph) and
 * reads them back. Trailers are how countersign recognises its own commits (loop guard) and how
 * {@code Signed-off-by} is added, since jgit has no signoff option.
 */
public final class CommitMessage {

  /** The trailer countersign adds to every commit it makes; its value is the run id. */
  public static final String MARKER_TRAILER = "Countersign-Run";

  public static final String SIGNED_OFF_BY = "Signed-off-by";

  private static final Pattern TRAILER = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9-]*):\\s*(.*)$");

  private CommitMessage() {}

  /**
   * Joins subject, optional body and trailers into a message that ends with a newline.
   *
   * @param trailers key to value, in order; values must be single-line
   */
  public static String compose(String subject, String body, Map<String, String> trailers) {
    StringBuilder sb = new StringBuilder(oneLine(subject).strip()).append('\n');
    if (body != null && !body.isBlank()) {
      sb.append('\n').append(body.strip()).append('\n');
    }
    if (!trailers.isEmpty()) {
      sb.append('\n');
      trailers.forEach((k, v) -> sb.append(k).append(": ").append(oneLine(v).strip()).append('\n'));
    }
    return sb.toString();
  }

  /** The trailers of the last paragraph, in order; empty when it is not all trailers. */
  public static List<Map.Entry<String, String>> trailers(String message) {
    String[] paragraphs = message.strip().split("\\n\\s*\\n");
    if (paragraphs.length < 2) {
      return List.of(); // a subject line alone is never a trailer block
    }
    List<Map.Entry<String, String>> found = new ArrayList<>();
    for (String line : paragraphs[paragraphs.length - 1].split("\\n")) {
      Matcher m = TRAILER.matcher(line.strip());
      if (!m.matches()) {
        return List.of();
      }
      found.add(Map.entry(m.group(1), m.group(2)));
    }
    return found;
  }

  /** The value of the first trailer named {@code key} (case-insensitive, as git compares them). */
  public static Optional<String> trailer(String message, String key) {
    return trailers(message).stream()
        .filter(e -> e.getKey().equalsIgnoreCase(key))
        .map(Map.Entry::getValue)
        .findFirst();
  }

  /** True when countersign made the commit with this message. */
  public static boolean isCountersignCommit(String message) {
    return trailer(message, MARKER_TRAILER).isPresent();
  }

  /** Trailers for a countersign commit: the marker, then the sign-off when asked for. */
  public static Map<String, String> countersignTrailers(
      String runId, Optional<GitIdentity> signOff) {
    Map<String, String> t = new LinkedHashMap<>();
    t.put(MARKER_TRAILER, runId);
    signOff.ifPresent(id -> t.put(SIGNED_OFF_BY, id.toString()));
    return t;
  }

  private static String oneLine(String s) {
    return s == null ? "" : s.replace('\r', ' ').replace('\n', ' ');
  }
}
