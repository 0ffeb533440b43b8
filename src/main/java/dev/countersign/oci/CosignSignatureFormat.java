package dev.countersign.oci;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * cosign's tag-based signature format (what {@code cosign sign} writes without {@code
 * --new-bundle-format}, and what {@code cosign verify} and Flux's OCIRepository {@code
 * verify.provider: cosign} read), reproduced from cosign's {@code pkg/oci/static}, {@code
 * pkg/oci/empty}, {@code pkg/cosign/bundle} and sigstore's simple-signing payload:
 *
 * <ul>
 *   <li>tag {@code sha256-<hex>.sig} in the artifact's repository;
 *   <li>an OCI image manifest, config {@value #CONFIG_MEDIA_TYPE}, one layer per signature;
 *   <li>each layer is the simple-signing payload {@code
 *       {"critical":{"identity":{"docker-reference":R},
 *       "image":{"docker-manifest-digest":D},"type":"cosign container image
 *       signature"},"optional":null}} ({@value #PAYLOAD_MEDIA_TYPE}), its descriptor annotated with
 *       the base64 signature over the payload, and for keyless signatures the certificate and chain
 *       PEMs, and the Rekor bundle JSON when the signature was logged.
 * </ul>
 */
public final class CosignSignatureFormat {

  public static final String PAYLOAD_MEDIA_TYPE =
      "application/vnd.dev.cosign.simplesigning.v1+json";
  public static final String CONFIG_MEDIA_TYPE = "application/vnd.oci.image.config.v1+json";
  public static final String SIGNATURE_TYPE = "cosign container image signature";
  public static final String SIGNATURE_ANNOTATION = "dev.cosignproject.cosign/signature";
  public static final String CERTIFICATE_ANNOTATION = "dev.sigstore.cosign/certificate";
  public static final String CHAIN_ANNOTATION = "dev.sigstore.cosign/chain";
  public static final String BUNDLE_ANNOTATION = "dev.sigstore.cosign/bundle";

  /**
   * The most layers a signature manifest may have: cosign reads no more ({@code pkg/oci/remote})
   * and appends none past it ({@code pkg/oci/mutate}), so Flux refuses a fuller tag; and each layer
   * costs a payload download and a signature check.
   */
  public static final int MAX_LAYERS = 1000;

  private static final ObjectMapper JSON = Json.mapper();
  private static final String ZERO_TIME = "0001-01-01T00:00:00Z";

  /** One signature layer: the payload's descriptor annotations and the payload itself. */
  public record SignatureLayer(String digest, long size, Map<String, String> annotations) {
    public SignatureLayer {
      annotations = new TreeMap<>(annotations);
    }

    public Optional<String> annotation(String key) {
      return Optional.ofNullable(annotations.get(key)).filter(v -> !v.isEmpty());
    }
  }

  private CosignSignatureFormat() {}

  /** The tag holding the signatures of {@code digest}: {@code sha256-<hex>.sig}. */
  public static String signatureTag(String digest) {
    return digest.replace(':', '-') + ".sig";
  }

  /** The simple-signing payload for the artifact {@code digest} in {@code repository}. */
  public static byte[] payload(OciReference repository, String digest) {
    ObjectNode root = JSON.createObjectNode();
    ObjectNode critical = root.putObject("critical");
    critical.putObject("identity").put("docker-reference", repository.name());
    critical.putObject("image").put("docker-manifest-digest", digest);
    critical.put("type", SIGNATURE_TYPE);
    root.putNull("optional");
    return bytes(root);
  }

  /** The payload's claims, or empty when it is not a simple-signing payload. */
  public record Claims(String dockerReference, String manifestDigest, String type) {}

  public static Optional<Claims> claims(byte[] payload) {
    try {
      JsonNode critical = JSON.readTree(payload).path("critical");
      if (!critical.isObject()) {
        return Optional.empty();
      }
      return Optional.of(
          new Claims(
              critical.path("identity").path("docker-reference").asText(""),
              critical.path("image").path("docker-manifest-digest").asText(""),
              critical.path("type").asText("")));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
  }

  /** The annotations of a new signature layer (sorted, as Go marshals a map). */
  public static Map<String, String> annotations(
      String signatureBase64,
      Optional<String> certificatePem,
      Optional<String> chainPem,
      Optional<String> bundleJson) {
    Map<String, String> annotations = new TreeMap<>();
    annotations.put(SIGNATURE_ANNOTATION, signatureBase64);
    certificatePem.ifPresent(
        cert -> {
          annotations.put(CERTIFICATE_ANNOTATION, cert);
          annotations.put(CHAIN_ANNOTATION, chainPem.orElse(""));
        });
    bundleJson.ifPresent(bundle -> annotations.put(BUNDLE_ANNOTATION, bundle));
    return annotations;
  }

  /**
   * The layers of a signature manifest that carry simple-signing payloads, in order.
   *
   * @throws IllegalArgumentException when it is not a signature manifest cosign reads (not JSON, no
   *     layers, more than {@link #MAX_LAYERS} layers, an invalid payload digest)
   */
  public static List<SignatureLayer> layers(byte[] signatureManifest) {
    JsonNode root;
    try {
      root = JSON.readTree(signatureManifest);
    } catch (IOException e) {
      throw new IllegalArgumentException("the signature manifest is not JSON");
    }
    JsonNode layers = root == null ? null : root.path("layers");
    if (layers == null || !layers.isArray()) {
      throw new IllegalArgumentException("the signature manifest has no layers");
    }
    if (layers.size() > MAX_LAYERS) {
      throw new IllegalArgumentException(
          "it has " + layers.size() + " layers, more than the " + MAX_LAYERS + " cosign reads");
    }
    List<SignatureLayer> found = new ArrayList<>();
    for (JsonNode layer : layers) {
      if (!PAYLOAD_MEDIA_TYPE.equals(layer.path("mediaType").asText())) {
        continue;
      }
      String digest = layer.path("digest").asText("");
      if (!OciReference.DIGEST.matcher(digest).matches()) {
        throw new IllegalArgumentException("a signature layer has an invalid digest");
      }
      Map<String, String> annotations = new TreeMap<>();
      layer
          .path("annotations")
          .properties()
          .forEach(
              e -> {
                if (e.getValue().isTextual()) {
                  annotations.put(e.getKey(), e.getValue().asText());
                }
              });
      found.add(new SignatureLayer(digest, layer.path("size").asLong(-1), annotations));
    }
    return found;
  }

  /**
   * The signature manifest holding {@code layers} (existing ones first, as cosign appends) and its
   * config blob.
   */
  public record SignatureManifest(byte[] manifest, byte[] config) {}

  public static SignatureManifest manifest(List<SignatureLayer> layers) {
    ObjectNode config = JSON.createObjectNode();
    config.put("architecture", "");
    config.put("created", ZERO_TIME);
    ArrayNode history = config.putArray("history");
    ObjectNode rootfs = JSON.createObjectNode();
    rootfs.put("type", "layers");
    ArrayNode diffIds = rootfs.putArray("diff_ids");
    for (SignatureLayer layer : layers) {
      history.addObject().put("created", ZERO_TIME);
      diffIds.add(layer.digest());
    }
    config.put("os", "");
    config.set("rootfs", rootfs);
    config.putObject("config");
    byte[] configBytes = bytes(config);

    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("schemaVersion", 2);
    manifest.put("mediaType", ArtifactLayout.MANIFEST_MEDIA_TYPE);
    ObjectNode configDescriptor = manifest.putObject("config");
    configDescriptor.put("mediaType", CONFIG_MEDIA_TYPE);
    configDescriptor.put("size", configBytes.length);
    configDescriptor.put("digest", Sha256.digest(configBytes));
    ArrayNode layerArray = manifest.putArray("layers");
    for (SignatureLayer layer : layers) {
      ObjectNode descriptor = layerArray.addObject();
      descriptor.put("mediaType", PAYLOAD_MEDIA_TYPE);
      descriptor.put("size", layer.size());
      descriptor.put("digest", layer.digest());
      ObjectNode annotations = descriptor.putObject("annotations");
      layer.annotations().forEach(annotations::put);
    }
    return new SignatureManifest(bytes(manifest), configBytes);
  }

  private static byte[] bytes(JsonNode node) {
    try {
      return JSON.writeValueAsBytes(node);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
