package dev.countersign.action;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * The event that started the workflow run: its name ({@code GITHUB_EVENT_NAME}) and the JSON
 * payload GitHub wrote to {@code GITHUB_EVENT_PATH}. Read with plain Jackson, never through a
 * GitHub client that might call the API to fill gaps. Payload text (titles, branch names) is
 * attacker-controlled: use it as data only.
 *
 * <p>Bounded and typed: a payload larger than {@value #MAX_BYTES} bytes, nested deeper than {@value
 * #MAX_DEPTH} levels, not a JSON object, or with a field of the wrong type where the run decision
 * reads it is an {@link EnvironmentProblem} (exit 3) naming {@code GITHUB_EVENT_PATH}, never a
 * crash. (GitHub caps webhook payloads at 25 MB; its objects nest about ten deep.)
 */
public record GitHubEvent(String name, JsonNode payload) {

  /** Largest payload read, in bytes. */
  static final long MAX_BYTES = 32L * 1024 * 1024;

  /** Deepest nesting of arrays and objects accepted. */
  static final int MAX_DEPTH = 100;

  private static final String HINT =
      "perhaps you should not override GITHUB_EVENT_PATH in the workflow";

  private static final ObjectMapper JSON =
      new ObjectMapper(
          JsonFactory.builder()
              .streamReadConstraints(
                  StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
              .build());

  public GitHubEvent {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(payload, "payload");
  }

  /**
   * Reads the event of the current run from {@code GITHUB_EVENT_NAME} and {@code
   * GITHUB_EVENT_PATH}.
   */
  public static GitHubEvent read(Env env) {
    String name =
        env.get("GITHUB_EVENT_NAME")
            .map(String::strip)
            .orElseThrow(
                () ->
                    new EnvironmentProblem(
                        "GITHUB_EVENT_NAME is not set while reading the triggering event",
                        "perhaps you should run this inside GitHub Actions, or run countersign run"
                            + " with --branch outside it"));
    Optional<String> path = env.get("GITHUB_EVENT_PATH");
    if (path.isEmpty()) {
      // Some runners (act, older GHES) omit the payload for schedule; decide from the env then.
      return new GitHubEvent(name, MissingNode.getInstance());
    }
    Path file = Path.of(path.get());
    try {
      if (Files.isDirectory(file)) {
        throw new EnvironmentProblem(
            "The event payload "
                + file
                + " named by GITHUB_EVENT_PATH is a directory while reading the "
                + name
                + " event",
            HINT);
      }
      long size = Files.size(file);
      if (size > MAX_BYTES) {
        throw new EnvironmentProblem(
            "The event payload "
                + file
                + " named by GITHUB_EVENT_PATH is "
                + size
                + " bytes, more than the "
                + MAX_BYTES
                + " countersign reads, while reading the "
                + name
                + " event",
            HINT);
      }
      return parse(
          name,
          Files.readAllBytes(file),
          "The " + name + " event payload " + file + " (GITHUB_EVENT_PATH)");
    } catch (NoSuchFileException e) {
      throw new EnvironmentProblem(
          "The event payload "
              + file
              + " named by GITHUB_EVENT_PATH does not exist while reading the "
              + name
              + " event",
          HINT,
          e);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not read the event payload "
              + file
              + " named by GITHUB_EVENT_PATH while reading the "
              + name
              + " event",
          "perhaps you should check the runner's file permissions",
          e);
    }
  }

  /** Parses a payload document; an empty document is an empty payload. */
  public static GitHubEvent parse(String name, String json) {
    return parse(
        name,
        json.getBytes(StandardCharsets.UTF_8),
        "The " + name + " event payload (GITHUB_EVENT_PATH)");
  }

  private static GitHubEvent parse(String name, byte[] json, String what) {
    if (new String(json, StandardCharsets.UTF_8).isBlank()) {
      return new GitHubEvent(name, MissingNode.getInstance());
    }
    JsonNode node;
    try {
      node = JSON.readTree(json);
    } catch (StreamConstraintsException e) {
      throw new EnvironmentProblem(
          what + " nests deeper than " + MAX_DEPTH + " levels" + where(e.getLocation()), HINT, e);
    } catch (JsonProcessingException e) {
      throw new EnvironmentProblem(what + " is not valid JSON" + where(e.getLocation()), HINT, e);
    } catch (IOException | RuntimeException e) {
      throw new EnvironmentProblem(what + " could not be read as JSON", HINT, e);
    }
    if (node == null || node.isMissingNode()) {
      return new GitHubEvent(name, MissingNode.getInstance());
    }
    if (!node.isObject()) {
      throw new EnvironmentProblem(what + " is " + describe(node) + ", not a JSON object", HINT);
    }
    return new GitHubEvent(name, node);
  }

  private static String where(JsonLocation location) {
    return location == null || location.getLineNr() < 1
        ? ""
        : " (line " + location.getLineNr() + ")";
  }

  /**
   * The text at a path of field names, e.g. {@code text("pull_request", "base", "ref")}; empty when
   * a field on the way is absent or null.
   *
   * @throws EnvironmentProblem when a field on the way is not an object, or the value is an object
   *     or array
   */
  public Optional<String> text(String... path) {
    JsonNode node = at(path);
    if (node.isMissingNode() || node.isNull()) {
      return Optional.empty();
    }
    if (!node.isValueNode()) {
      throw wrongType(path, node, "a string");
    }
    return Optional.of(node.asText());
  }

  /**
   * True only when the field is the JSON literal {@code true}; false when it is absent or null.
   *
   * @throws EnvironmentProblem when it is present with another type
   */
  public boolean isTrue(String... path) {
    JsonNode node = at(path);
    if (node.isMissingNode() || node.isNull()) {
      return false;
    }
    if (!node.isBoolean()) {
      throw wrongType(path, node, "true or false");
    }
    return node.booleanValue();
  }

  private JsonNode at(String... path) {
    JsonNode node = payload;
    for (int i = 0; i < path.length; i++) {
      if (node.isMissingNode() || node.isNull()) {
        return MissingNode.getInstance();
      }
      if (!node.isObject()) {
        throw wrongType(Arrays.copyOf(path, i), node, "an object");
      }
      node = node.path(path[i]);
    }
    return node;
  }

  private EnvironmentProblem wrongType(String[] path, JsonNode node, String expected) {
    return new EnvironmentProblem(
        "The "
            + name
            + " event payload (GITHUB_EVENT_PATH) has "
            + describe(node)
            + " at "
            + (path.length == 0 ? "its top level" : String.join(".", path))
            + " where "
            + expected
            + " belongs",
        HINT);
  }

  private static String describe(JsonNode node) {
    return switch (node.getNodeType()) {
      case ARRAY -> "an array";
      case OBJECT -> "an object";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "a " + node.getNodeType().name().toLowerCase(Locale.ROOT);
    };
  }
}
