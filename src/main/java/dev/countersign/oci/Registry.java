package dev.countersign.oci;

import java.util.Optional;

/**
 * The OCI distribution operations publishing and verification need, on one repository host. Every
 * byte read is checked against its digest by the implementation before it is returned.
 *
 * @see DistributionRegistry the HTTP implementation
 */
public interface Registry {

  /** A manifest as stored: its exact bytes, media type and digest. */
  record Manifest(byte[] bytes, String mediaType, String digest) {}

  /** {@code HEAD /v2/<repository>/blobs/<digest>}: whether the blob is there. */
  boolean blobExists(String repository, String digest);

  /** Uploads {@code bytes} as blob {@code digest} (monolithic POST + PUT). */
  void pushBlob(String repository, String digest, byte[] bytes);

  /** The blob, checked against {@code digest}; at most {@code maxBytes}. */
  byte[] blob(String repository, String digest, long maxBytes);

  /** {@code HEAD /v2/<repository>/manifests/<reference>}: the digest it resolves to, if any. */
  Optional<String> manifestDigest(String repository, String reference);

  /** The manifest at a tag or digest, if any (a digest reference is checked against the bytes). */
  Optional<Manifest> manifest(String repository, String reference);

  /**
   * Stores {@code bytes} under {@code reference} (a tag, or its own digest).
   *
   * @return the digest of {@code bytes}
   */
  String putManifest(String repository, String reference, String mediaType, byte[] bytes);

  /** What this client sent so far: blobs uploaded and manifests written (for reports and tests). */
  record Writes(int blobs, int manifests) {}

  Writes writes();
}
