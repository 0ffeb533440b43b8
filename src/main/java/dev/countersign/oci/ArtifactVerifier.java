package dev.countersign.oci;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Json;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.verification.DistinctSigners;
import dev.countersign.verification.PayloadSignatureVerifier;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code countersign verify --oci}: an artifact passes when its manifest and every blob it names
 * match their digests, and at least the policy's {@code minSigners} distinct allowed signers
 * ({@link DistinctSigners}) signed a simple-signing payload naming exactly its manifest digest
 * (cosign's tag-based signatures, the same rules as {@code cosign verify} and Flux, plus the checks
 * {@link PayloadSignatureVerifier} adds).
 *
 * @param registry where the artifact and its signatures are read
 * @param signatures whose policy also says how many distinct signers must verify
 */
public record ArtifactVerifier(Registry registry, PayloadSignatureVerifier signatures) {

  /** What verification found; {@code signers} are those that verified. */
  public record Verdict(
      OciReference reference, boolean passed, String reason, List<String> signers) {}

  static final long MAX_LAYER_BYTES = 256L * 1024 * 1024;
  static final long MAX_PAYLOAD_BYTES = 64L * 1024;
  private static final ObjectMapper JSON = Json.mapper();

  /**
   * @param reference must carry a digest
   */
  public Verdict verify(OciReference reference) {
    String digest =
        reference
            .digest()
            .orElseThrow(() -> new IllegalArgumentException("reference without digest"));
    String repository = reference.repository();
    Optional<Registry.Manifest> manifest;
    try {
      manifest = registry.manifest(repository, digest);
    } catch (DistributionRegistry.ContentMismatch e) {
      return reject(reference, e.getMessage());
    }
    if (manifest.isEmpty()) {
      return reject(reference, "no manifest " + digest + " in " + reference.name());
    }
    Optional<String> contentProblem = checkContent(repository, manifest.get().bytes());
    if (contentProblem.isPresent()) {
      return reject(reference, contentProblem.get());
    }
    String tag = CosignSignatureFormat.signatureTag(digest);
    Optional<Registry.Manifest> signatureManifest = registry.manifest(repository, tag);
    if (signatureManifest.isEmpty()) {
      return reject(reference, "no signature: tag " + tag + " does not exist");
    }
    List<CosignSignatureFormat.SignatureLayer> layers;
    try {
      layers = CosignSignatureFormat.layers(signatureManifest.get().bytes());
    } catch (IllegalArgumentException e) {
      return reject(reference, "the signature manifest " + tag + " is unusable: " + e.getMessage());
    }
    if (layers.isEmpty()) {
      return reject(
          reference, "the signature manifest " + tag + " holds no cosign signature layer");
    }
    List<DistinctSigners.Signature> verified = new ArrayList<>();
    List<String> failures = new ArrayList<>();
    for (int i = 0; i < layers.size(); i++) {
      checkLayer(repository, digest, layers.get(i), failures, i).ifPresent(verified::add);
    }
    Set<String> signers = new LinkedHashSet<>();
    verified.forEach(v -> signers.add(v.signer()));
    List<String> counted = DistinctSigners.counted(verified);
    int minSigners = signatures.minSigners();
    if (counted.size() >= minSigners) {
      return new Verdict(
          reference, true, "signed by " + String.join(", ", signers), List.copyOf(signers));
    }
    String reason =
        signers.isEmpty()
            ? String.join("; ", failures)
            : DistinctSigners.shortfall(counted, signers, minSigners, String.join("; ", failures));
    return new Verdict(reference, false, reason, List.copyOf(signers));
  }

  private Optional<DistinctSigners.Signature> checkLayer(
      String repository,
      String digest,
      CosignSignatureFormat.SignatureLayer layer,
      List<String> failures,
      int index) {
    String name = "signature " + index;
    Optional<String> signature = layer.annotation(CosignSignatureFormat.SIGNATURE_ANNOTATION);
    if (signature.isEmpty()) {
      failures.add(name + ": no " + CosignSignatureFormat.SIGNATURE_ANNOTATION + " annotation");
      return Optional.empty();
    }
    byte[] payload;
    try {
      payload = registry.blob(repository, layer.digest(), MAX_PAYLOAD_BYTES);
    } catch (DistributionRegistry.ContentMismatch e) {
      failures.add(name + ": " + e.getMessage());
      return Optional.empty();
    }
    Optional<CosignSignatureFormat.Claims> claims = CosignSignatureFormat.claims(payload);
    if (claims.isEmpty() || !claims.get().type().equals(CosignSignatureFormat.SIGNATURE_TYPE)) {
      failures.add(name + ": the payload is not a cosign simple-signing payload");
      return Optional.empty();
    }
    if (!claims.get().manifestDigest().equals(digest)) {
      failures.add(
          name
              + ": signs another artifact ("
              + DistributionRegistry.printable(claims.get().manifestDigest())
              + ")");
      return Optional.empty();
    }
    PayloadSignatureVerifier.Outcome outcome =
        signatures.verify(
            payload,
            signature.get(),
            layer.annotation(CosignSignatureFormat.CERTIFICATE_ANNOTATION),
            layer.annotation(CosignSignatureFormat.BUNDLE_ANNOTATION));
    if (!outcome.verified()) {
      failures.add(name + ": " + outcome.reason());
    }
    return outcome.signature();
  }

  /** Every blob the manifest names is there and matches its digest and size. */
  private Optional<String> checkContent(String repository, byte[] manifest) {
    JsonNode root;
    try {
      root = JSON.readTree(manifest);
    } catch (IOException e) {
      return Optional.of("the manifest is not JSON");
    }
    if (root == null || !root.path("layers").isArray()) {
      return Optional.of("the manifest is not an OCI image manifest (no layers)");
    }
    List<JsonNode> descriptors = new ArrayList<>();
    if (root.path("config").isObject()) {
      descriptors.add(root.path("config"));
    }
    root.path("layers").forEach(descriptors::add);
    for (JsonNode descriptor : descriptors) {
      String blobDigest = descriptor.path("digest").asText("");
      if (!OciReference.DIGEST.matcher(blobDigest).matches()) {
        return Optional.of("the manifest names a blob with an unsupported digest");
      }
      byte[] blob;
      try {
        blob = registry.blob(repository, blobDigest, MAX_LAYER_BYTES);
      } catch (DistributionRegistry.ContentMismatch e) {
        return Optional.of("content was altered: " + e.getMessage());
      } catch (RemoteProblem e) {
        if (!registry.blobExists(repository, blobDigest)) {
          return Optional.of("blob " + blobDigest + " named by the manifest is missing");
        }
        throw e;
      }
      if (descriptor.path("size").asLong(-1) != blob.length) {
        return Optional.of(
            "blob "
                + blobDigest
                + " has "
                + blob.length
                + " bytes, the manifest says "
                + descriptor.path("size").asText());
      }
    }
    return Optional.empty();
  }

  private static Verdict reject(OciReference reference, String reason) {
    return new Verdict(reference, false, reason, List.of());
  }
}
