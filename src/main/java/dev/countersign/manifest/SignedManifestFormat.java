package dev.countersign.manifest;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The k8s-manifest-sigstore / Kyverno signed-manifest format under one annotation domain:
 * building the message, encoding annotations, rendering byte-stable signed files, and decoding
 * annotations back. See {@code docs/format.md}.
 */
public final class SignedManifestFormat {

  private final AnnotationDomain domain;
  private final ManifestReader reader;

  public SignedManifestFormat(AnnotationDomain domain, ManifestReader reader) {
    this.domain = domain;
    this.reader = reader;
  }

  public AnnotationDomain domain() {
    return domain;
  }

  /**
   * The raw message for a file: every document with this domain's signature annotations removed
   * ({@code metadata.annotations} dropped when it becomes empty), written as canonical YAML,
   * joined by {@code "\n---\n"}.
   */
  public byte[] message(List<ManifestDocument> documents) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  /**
   * The annotations of signature set {@code index}: {@code message} (std-base64 gzip) and
   * {@code signature[_N]} always, {@code certificate[_N]} and {@code bundle[_N]} when given.
   */
  public Map<String, String> annotations(
      byte[] message,
      int index,
      byte[] signature,
      Optional<String> certificatePem,
      Optional<RekorBundle> bundle) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  /**
   * The number of contiguous signature sets a document already carries (the index the next set
   * gets in append mode).
   */
  public int existingSignatureSets(ManifestDocument document) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  /**
   * The signed file's bytes: {@code headerComment} lines (each prefixed "# "), then every
   * document with the given annotations set, as canonical YAML separated by "---". In replace
   * mode ({@code append == false}) every existing signature annotation of this domain is removed
   * first. Same input, same annotations: same bytes.
   */
  public byte[] render(
      List<ManifestDocument> documents,
      Map<String, String> annotations,
      boolean append,
      List<String> headerComment) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  /**
   * Decodes the signature annotations of {@code document}.
   *
   * @return empty when the document has no {@code message} annotation
   * @throws IllegalArgumentException with a user-facing reason when the message cannot be decoded
   */
  public Optional<SignedContent> decode(ManifestDocument document) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  ManifestReader reader() {
    return reader;
  }
}
