package dev.countersign.manifest;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.support.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * cosign's legacy {@code RekorBundle}, the JSON inside the {@code bundle[_N]} annotation: {@code
 * {"SignedEntryTimestamp":…,"Payload":{"body","integratedTime","logIndex","logID"}}}.
 *
 * @param signedEntryTimestamp std-base64 DER ECDSA signature by the Rekor key (the SET)
 * @param body std-base64 of Rekor's canonical entry JSON
 * @param integratedTime seconds since the epoch when the entry was logged
 * @param logIndex the entry's index in the log
 * @param logId lowercase hex SHA-256 of the Rekor key's DER SubjectPublicKeyInfo
 */
public record RekorBundle(
    String signedEntryTimestamp, String body, long integratedTime, long logIndex, String logId) {

  private static final ObjectMapper JSON = Json.mapper();

  /** The JSON exactly as cosign's {@code json.Marshal} writes it (field order fixed). */
  public String toJson() {
    if (isVerbatimInJson(signedEntryTimestamp)
        && isVerbatimInJson(body)
        && isVerbatimInJson(logId)) {
      // Base64 and hex need no escaping: the same text Jackson writes below, without building it
      // (every signed manifest's bundle annotation is made here).
      return "{\"SignedEntryTimestamp\":\""
          + signedEntryTimestamp
          + "\",\"Payload\":{\"body\":\""
          + body
          + "\",\"integratedTime\":"
          + integratedTime
          + ",\"logIndex\":"
          + logIndex
          + ",\"logID\":\""
          + logId
          + "\"}}";
    }
    return toJsonByJackson();
  }

  /**
   * Printable ASCII that Jackson writes as it is (no '"' or '\\'); '<', '>' and '&' also keep the
   * Jackson path, as Go's encoder would escape them.
   */
  private static boolean isVerbatimInJson(String s) {
    if (s == null) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&') {
        return false;
      }
    }
    return true;
  }

  /** {@link #toJson} for any field values (escapes as Jackson writes them). */
  String toJsonByJackson() {
    ObjectNode payload = JSON.createObjectNode();
    payload.put("body", body);
    payload.put("integratedTime", integratedTime);
    payload.put("logIndex", logIndex);
    payload.put("logID", logId);
    ObjectNode root = JSON.createObjectNode();
    root.put("SignedEntryTimestamp", signedEntryTimestamp);
    root.set("Payload", payload);
    try {
      return JSON.writeValueAsString(root);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Parses the JSON of a {@code bundle} annotation (already base64-decoded and gunzipped).
   *
   * @throws IllegalArgumentException when a field is missing or has the wrong type
   */
  public static RekorBundle parse(byte[] json) {
    JsonNode root;
    try (JsonParser parser = JSON.createParser(new String(json, StandardCharsets.UTF_8))) {
      root = JSON.readTree(parser);
      // Go's json.Unmarshal (cosign, Kyverno) refuses anything after the value; so do we, or a
      // bundle we accept would fail at admission.
      if (root != null && parser.nextToken() != null) {
        throw new IllegalArgumentException("bundle has more JSON after its object");
      }
    } catch (JsonProcessingException e) {
      // The original message, without Jackson's source location (which names an internal reader).
      throw new IllegalArgumentException("bundle is not JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("bundle is not JSON: " + e.getMessage(), e);
    }
    JsonNode payload = root == null ? null : root.get("Payload");
    if (payload == null || !payload.isObject()) {
      throw new IllegalArgumentException("bundle has no \"Payload\" object");
    }
    long integratedTime = number(payload, "integratedTime");
    if (!isInstant(integratedTime)) {
      throw new IllegalArgumentException(
          "bundle field \"integratedTime\" is " + integratedTime + ", beyond any date");
    }
    return new RekorBundle(
        text(root, "SignedEntryTimestamp"),
        text(payload, "body"),
        integratedTime,
        number(payload, "logIndex"),
        text(payload, "logID"));
  }

  /**
   * Whether {@code epochSeconds} is a time an {@link Instant} holds (years -10^9 to 10^9). Every
   * check of a bundle reads its integratedTime as an Instant; no log's SET covers a time outside
   * that range, so a bundle claiming one is refused where it is read.
   */
  public static boolean isInstant(long epochSeconds) {
    return epochSeconds >= Instant.MIN.getEpochSecond()
        && epochSeconds <= Instant.MAX.getEpochSecond();
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual() || value.asText().isEmpty()) {
      throw new IllegalArgumentException(
          "bundle field \"" + field + "\" is missing or not a string");
    }
    return value.asText();
  }

  private static long number(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new IllegalArgumentException(
          "bundle field \"" + field + "\" is missing or not an integer");
    }
    return value.asLong();
  }
}
