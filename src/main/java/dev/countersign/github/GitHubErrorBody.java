package dev.countersign.github;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Json;
import java.io.IOException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * GitHub's own words from an error body, in one line: its {@code message}, each {@code
 * errors[].message}, and the {@code documentation_url}. A body that is not GitHub's JSON (a proxy's
 * or load balancer's HTML page on a 502) is never quoted whole: only its title, if it has one, and
 * its size.
 */
final class GitHubErrorBody {

  private static final ObjectMapper JSON = Json.mapper();
  private static final Pattern TITLE = Pattern.compile("(?is)<title[^>]*>(.*?)</title>");
  private static final int MAX_TEXT = 120;

  private GitHubErrorBody() {}

  /** The {@code message} field, or empty when the body is not GitHub's JSON. */
  static String message(String body) {
    JsonNode root = json(body);
    return root != null && root.hasNonNull("message") ? root.get("message").asText() : "";
  }

  /** One line for an error message; see the class comment. */
  static String summary(String body) {
    if (body == null || body.isBlank()) {
      return "no message";
    }
    JsonNode root = json(body);
    if (root != null && root.hasNonNull("message")) {
      StringBuilder text = new StringBuilder(oneLine(root.get("message").asText()));
      for (JsonNode error : root.path("errors")) {
        if (error.hasNonNull("message")) {
          text.append(": ").append(oneLine(error.get("message").asText()));
        }
      }
      if (root.hasNonNull("documentation_url")) {
        text.append("; see ").append(oneLine(root.get("documentation_url").asText()));
      }
      return text.toString();
    }
    String trimmed = body.strip();
    if (trimmed.startsWith("<") || trimmed.toLowerCase(Locale.ROOT).contains("<html")) {
      Matcher title = TITLE.matcher(trimmed);
      String name = title.find() ? " \"" + cap(oneLine(title.group(1))) + "\"" : "";
      return "an HTML page"
          + name
          + " of "
          + body.length()
          + " characters instead of GitHub's JSON";
    }
    // Plain text (a connection message, a proxy's one-liner): short enough to be useful.
    return cap(oneLine(trimmed));
  }

  private static JsonNode json(String body) {
    if (body == null || body.isBlank()) {
      return null;
    }
    try {
      JsonNode root = JSON.readTree(body);
      return root != null && root.isObject() ? root : null;
    } catch (IOException notJson) {
      return null;
    }
  }

  private static String oneLine(String text) {
    return text.strip().replaceAll("\\s+", " ");
  }

  private static String cap(String text) {
    return text.length() > MAX_TEXT ? text.substring(0, MAX_TEXT) + "..." : text;
  }
}
