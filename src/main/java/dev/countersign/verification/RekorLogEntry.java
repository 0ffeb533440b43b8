package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A Rekor v1 log entry as {@code POST /api/v1/log/entries} (or a GET) returns it: {@code {UUID:
 * {body, integratedTime, logID, logIndex, verification: {inclusionProof, signedEntryTimestamp}}}}.
 *
 * @param bundle the SET-bearing part (body, integratedTime, logIndex, logID, SET) that goes into
 *     the {@code bundle} annotation
 * @param inclusionProof the Merkle audit path and checkpoint, when Rekor sent one
 */
public record RekorLogEntry(RekorBundle bundle, Optional<InclusionProof> inclusionProof) {

  private static final ObjectMapper JSON = Json.mapper();

  /**
   * RFC 6962 audit path of the entry's leaf to {@code rootHash} in a tree of {@code treeSize}.
   *
   * @param logIndex the leaf's index in the (shard's) tree
   * @param hashes the sibling hashes, leaf to root
   * @param checkpoint the signed note committing to {@code treeSize} and {@code rootHash}
   */
  public record InclusionProof(
      long logIndex, byte[] rootHash, long treeSize, List<byte[]> hashes, String checkpoint) {}

  /**
   * Parses Rekor's answer: a JSON object with exactly one entry.
   *
   * @throws IllegalArgumentException with the reason when it is not one
   */
  public static RekorLogEntry parse(byte[] response) {
    JsonNode root;
    try {
      root = JSON.readTree(response);
    } catch (IOException e) {
      throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject() || root.size() != 1) {
      throw new IllegalArgumentException("not a JSON object with exactly one log entry");
    }
    Iterator<Map.Entry<String, JsonNode>> fields = root.fields();
    JsonNode entry = fields.next().getValue();
    JsonNode verification = entry.path("verification");
    long integratedTime = number(entry, "integratedTime");
    if (!RekorBundle.isInstant(integratedTime)) {
      throw new IllegalArgumentException(
          "the entry's integratedTime " + integratedTime + " is beyond any date");
    }
    RekorBundle bundle =
        new RekorBundle(
            text(verification, "signedEntryTimestamp"),
            text(entry, "body"),
            integratedTime,
            number(entry, "logIndex"),
            text(entry, "logID"));
    JsonNode proof = verification.path("inclusionProof");
    if (!proof.isObject()) {
      return new RekorLogEntry(bundle, Optional.empty());
    }
    List<byte[]> hashes = new ArrayList<>();
    for (JsonNode hash : proof.path("hashes")) {
      hashes.add(hex(hash, "inclusionProof.hashes"));
    }
    return new RekorLogEntry(
        bundle,
        Optional.of(
            new InclusionProof(
                number(proof, "logIndex"),
                hex(proof.path("rootHash"), "inclusionProof.rootHash"),
                number(proof, "treeSize"),
                hashes,
                text(proof, "checkpoint"))));
  }

  private static String text(JsonNode node, String field) {
    JsonNode value = node.path(field);
    if (!value.isTextual()) {
      throw new IllegalArgumentException("the entry has no " + field);
    }
    return value.asText();
  }

  private static long number(JsonNode node, String field) {
    JsonNode value = node.path(field);
    if (!value.canConvertToLong() || !value.isIntegralNumber()) {
      throw new IllegalArgumentException("the entry has no integer " + field);
    }
    return value.asLong();
  }

  private static byte[] hex(JsonNode value, String field) {
    try {
      return HexFormat.of().parseHex(value.asText(""));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the entry's " + field + " is not hex", e);
    }
  }
}
