package dev.countersign.manifest;

import java.util.List;

/**
 * What a signed document's annotations carry, decoded.
 *
 * @param message the raw signed bytes (gunzipped {@code message}); what every signature covers
 * @param legacyTarball true when the message is a legacy {@code --tarball=yes} tar.gz
 * @param messageDocuments the documents inside the message (YAML documents, or the {@code
 *     .yaml}/{@code .yml} members of a legacy tarball)
 * @param signatureSets the sets {@code signature}, {@code signature_1}, ... up to the first gap
 */
public record SignedContent(
    byte[] message,
    boolean legacyTarball,
    List<ManifestDocument> messageDocuments,
    List<SignatureSetAnnotations> signatureSets) {

  public SignedContent {
    messageDocuments = List.copyOf(messageDocuments);
    signatureSets = List.copyOf(signatureSets);
  }
}
