package dev.countersign.action;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * The event that started the workflow run: its name ({@code GITHUB_EVENT_NAME}) and the JSON
 * payload GitHub wrote to {@code GITHUB_EVENT_PATH}. Read with plain Jackson, never through a
 * GitHub client that might call the API to fill gaps. Payload text (titles, branch names) is
 * attacker-controlled: use it as data only.
 */
public record GitHubEvent(String name, JsonNode payload) {

  private static final ObjectMapper JSON = new ObjectMapper();

  public GitHubEvent {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(payload, "payload");
  }

  /** Reads the event of the current run from {@code GITHUB_EVENT_NAME} and {@code GITHUB_EVENT_PATH}. */
  public static GitHubEvent read(Env env) {
    String name =
        env.get("GITHUB_EVENT_NAME")
            .map(String::strip)
            .orElseThrow(
                () -> new EnvironmentProblem(
                    "GITHUB_EVENT_NAME is not set while reading the triggering event",
                    "perhaps you should run this inside GitHub Actions, or run countersign run with --branch outside it"));
    Optional<String> path = env.get("GITHUB_EVENT_PATH");
    if (path.isEmpty()) {
      // Some runners (act, older GHES) omit the payload for schedule; decide from the env then.
      return new GitHubEvent(name, MissingNode.getInstance());
    }
    Path file = Path.of(path.get());
    try {
      return parse(name, Files.readString(file));
    } catch (NoSuchFileException e) {
      throw new EnvironmentProblem(
          "The event payload " + file + " named by GITHUB_EVENT_PATH does not exist while reading the " + name + " event",
          "perhaps you should not override GITHUB_EVENT_PATH in the workflow",
          e);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not read the event payload " + file + " while reading the " + name + " event",
          "perhaps you should check the runner's file permissions",
          e);
    }
  }

  /** Parses a payload document; an empty document is an empty payload. */
  public static GitHubEvent parse(String name, String json) {
    if (json.isBlank()) {
      return new GitHubEvent(name, MissingNode.getInstance());
    }
    try {
      JsonNode node = JSON.readTree(json);
      return new GitHubEvent(name, node == null ? MissingNode.getInstance() : node);
    } catch (JsonProcessingException e) {
      throw new EnvironmentProblem(
          "The " + name + " event payload is not valid JSON (line " + e.getLocation().getLineNr() + ")",
          "perhaps you should not override GITHUB_EVENT_PATH in the workflow",
          e);
    }
  }

  /** The text at a path of field names, e.g. {@code text("pull_request", "base", "ref")}. */
  public Optional<String> text(String... path) {
    JsonNode node = at(path);
    return node.isValueNode() && !node.isNull() ? Optional.of(node.asText()) : Optional.empty();
  }

  /** True only when the field is the JSON literal {@code true}. */
  public boolean isTrue(String... path) {
    JsonNode node = at(path);
    return node.isBoolean() && node.booleanValue();
  }

  private JsonNode at(String... path) {
    JsonNode node = payload;
    for (String field : path) {
      node = node.path(field);
    }
    return node;
  }
}
