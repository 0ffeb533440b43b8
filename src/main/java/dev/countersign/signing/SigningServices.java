package dev.countersign.signing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.countersign.verification.TrustMaterialJson;
import dev.sigstore.trustroot.Service;
import dev.sigstore.trustroot.SigstoreSigningConfig;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The Fulcio (v1 API) and Rekor v1 a signing config selects, the way sigstore-java's {@code
 * Service.select} does: among the services of that API version valid now, the one that started most
 * recently. Rekor v2 is never selected (its entries carry no SET; Kyverno needs one).
 *
 * @param fulcio empty when the config names no Fulcio valid now
 * @param rekor empty when the config names no Rekor v1 valid now
 */
record SigningServices(Optional<URI> fulcio, Optional<URI> rekor) {

  /**
   * Reads a {@code signing_config.json} ({@code
   * application/vnd.dev.sigstore.signingconfig.v0.2+json}) with Jackson (sigstore-java's reader
   * goes through protobuf, ~0.3 s of start-up).
   *
   * @throws IllegalArgumentException with the reason when it is not one
   */
  static SigningServices fromJson(byte[] json, Instant now) {
    JsonNode root =
        TrustMaterialJson.object(json, "application/vnd.dev.sigstore.signingconfig.v0.2+json");
    return new SigningServices(
        select(root.path("caUrls"), now, "caUrls"),
        select(root.path("rekorTlogUrls"), now, "rekorTlogUrls"));
  }

  /** sigstore-java's signing config (from its TUF client) as ours. */
  static SigningServices from(SigstoreSigningConfig config) {
    return new SigningServices(
        Service.select(config.getCas(), List.of(1)).map(Service::getUrl),
        Service.select(config.getTLogs(), List.of(1)).map(Service::getUrl));
  }

  private static Optional<URI> select(JsonNode services, Instant now, String field) {
    URI best = null;
    Instant bestStart = null;
    for (JsonNode service : services) {
      if (service.path("majorApiVersion").asInt(0) != 1) {
        continue;
      }
      Instant start =
          TrustMaterialJson.time(service.path("validFor").path("start"), field)
              .orElse(Instant.EPOCH);
      Optional<Instant> end = TrustMaterialJson.time(service.path("validFor").path("end"), field);
      if (now.isBefore(start) || end.map(now::isAfter).orElse(false)) {
        continue;
      }
      if (bestStart == null || start.isAfter(bestStart)) {
        try {
          best = URI.create(service.path("url").asText(""));
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException(field + " has an unreadable url", e);
        }
        bestStart = start;
      }
    }
    return Optional.ofNullable(best);
  }
}
