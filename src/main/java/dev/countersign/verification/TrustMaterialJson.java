package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Json;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reading Sigstore's JSON trust material ({@code trusted_root.json}, {@code signing_config.json}):
 * the protobuf-specs JSON mapping, read with Jackson.
 */
public final class TrustMaterialJson {

  private static final ObjectMapper JSON = Json.mapper();

  private TrustMaterialJson() {}

  /**
   * The JSON object in {@code json} whose {@code mediaType} starts with {@code mediaTypePrefix}.
   *
   * @throws IllegalArgumentException with the reason otherwise
   */
  public static JsonNode object(byte[] json, String mediaTypePrefix) {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("not a JSON object");
    }
    String mediaType = root.path("mediaType").asText("");
    if (!mediaType.startsWith(mediaTypePrefix)) {
      throw new IllegalArgumentException(
          "mediaType is \"" + mediaType + "\", expected " + mediaTypePrefix + "…");
    }
    return root;
  }

  /**
   * An RFC 3339 time such as {@code validFor.start}; empty when absent.
   *
   * @param where names the field in messages
   * @throws IllegalArgumentException when it is present but unreadable
   */
  public static Optional<Instant> time(JsonNode text, String where) {
    if (text.isMissingNode() || text.isNull()) {
      return Optional.empty();
    }
    try {
      return Optional.of(Instant.parse(text.asText()));
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(
          where + " has an unreadable time \"" + text.asText() + "\"", e);
    }
  }
}
