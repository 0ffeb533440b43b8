package dev.countersign.manifest;

import java.util.Optional;

/**
 * One signature set as read from a document's annotations, decoded. A set whose annotations could
 * not be decoded carries the reason in {@link #problem()} and is never trusted.
 *
 * @param index 0 for {@code signature}, N for {@code signature_N}
 * @param signatureBase64 the annotation value exactly as written (Rekor bodies compare it as a
 *     string)
 * @param signature the decoded DER signature (empty array when undecodable)
 * @param certificatePem the gunzipped certificate PEM bytes, when a {@code certificate[_N]} exists
 * @param bundle the parsed bundle, when a {@code bundle[_N]} exists
 * @param problem why this set is unusable (bad base64, bad gzip, bad JSON...), if it is
 */
public record SignatureSetAnnotations(
    int index,
    String signatureBase64,
    byte[] signature,
    Optional<byte[]> certificatePem,
    Optional<RekorBundle> bundle,
    Optional<String> problem) {}
