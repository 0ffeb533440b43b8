package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Json;
import java.io.IOException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The body of a Rekor v1 {@code hashedrekord} (or cosign 1.x's legacy {@code rekord}) 0.0.1 entry:
 * what was logged. The one place that knows the body's shape, for the request countersign sends and
 * for the entries it reads back or verifies.
 *
 * @param kind {@code hashedrekord} or {@code rekord}
 * @param hashAlgorithm {@code spec.data.hash.algorithm}, empty when the entry has no hash
 * @param hashValue {@code spec.data.hash.value} (hex), empty when the entry has no hash
 * @param content {@code spec.data.content} (legacy rekord only), base64-decoded
 * @param signatureBase64 {@code spec.signature.content}, the std-base64 signature as logged
 * @param signatureFormat {@code spec.signature.format} (legacy rekord only; default x509)
 * @param publicKeyPem {@code spec.signature.publicKey.content}, base64-decoded: a PEM public key or
 *     certificate
 */
public record RekorEntryBody(
    String kind,
    String hashAlgorithm,
    String hashValue,
    Optional<byte[]> content,
    String signatureBase64,
    String signatureFormat,
    byte[] publicKeyPem) {

  private static final ObjectMapper JSON = Json.mapper();

  /**
   * The {@code hashedrekord} 0.0.1 request for a SHA-256 {@code digest}, its {@code signature} and
   * the signer's PEM ({@code publicKeyPem}: certificate or public key), in Rekor's canonical form
   * (RFC 8785: keys sorted, no whitespace), so the body Rekor logs equals it byte for byte. Every
   * value is hex or base64, so no JSON escaping is needed.
   */
  public static String hashedRekordRequest(byte[] digest, byte[] signature, byte[] publicKeyPem) {
    Base64.Encoder base64 = Base64.getEncoder();
    return "{\"apiVersion\":\"0.0.1\",\"kind\":\"hashedrekord\",\"spec\":{\"data\":{\"hash\":"
        + "{\"algorithm\":\"sha256\",\"value\":\""
        + HexFormat.of().formatHex(digest)
        + "\"}},\"signature\":{\"content\":\""
        + base64.encodeToString(signature)
        + "\",\"publicKey\":{\"content\":\""
        + base64.encodeToString(publicKeyPem)
        + "\"}}}}";
  }

  /**
   * Parses a logged body given as Rekor returns it (std-base64 of the JSON).
   *
   * @throws IllegalArgumentException with a user-facing reason when it is not a hashedrekord or
   *     rekord 0.0.1 entry with a signature and a public key
   */
  public static RekorEntryBody parseBase64(String body64) {
    JsonNode body;
    try {
      body = JSON.readTree(Base64.getDecoder().decode(body64));
    } catch (IllegalArgumentException | IOException e) {
      throw new IllegalArgumentException("the log entry body is not base64 JSON", e);
    }
    if (body == null || !body.isObject()) {
      throw new IllegalArgumentException("the log entry body is not a JSON object");
    }
    String kind = body.path("kind").asText();
    String apiVersion = body.path("apiVersion").asText();
    if (!(kind.equals("hashedrekord") || kind.equals("rekord")) || !apiVersion.equals("0.0.1")) {
      throw new IllegalArgumentException(
          "the log entry is of kind "
              + kind
              + " "
              + apiVersion
              + ", expected hashedrekord or rekord 0.0.1");
    }
    JsonNode spec = body.path("spec");
    JsonNode hash = spec.path("data").path("hash");
    Optional<byte[]> content = Optional.empty();
    if (kind.equals("rekord") && spec.path("data").path("content").isTextual()) {
      try {
        content =
            Optional.of(Base64.getDecoder().decode(spec.path("data").path("content").asText()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("the log entry's data content is not base64", e);
      }
    }
    JsonNode signature = spec.path("signature");
    byte[] publicKeyPem;
    try {
      publicKeyPem =
          Base64.getDecoder().decode(signature.path("publicKey").path("content").asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the log entry's public key is not base64", e);
    }
    return new RekorEntryBody(
        kind,
        hash.isObject() ? hash.path("algorithm").asText() : "",
        hash.isObject() ? hash.path("value").asText() : "",
        content,
        signature.path("content").asText(),
        signature.path("format").asText("x509"),
        publicKeyPem);
  }

  /** Whether the entry has a hash (hashedrekord) rather than only content (legacy rekord). */
  public boolean hasHash() {
    return !hashValue.isEmpty() || !hashAlgorithm.isEmpty();
  }
}
