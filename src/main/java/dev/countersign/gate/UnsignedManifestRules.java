package dev.countersign.gate;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * What an unsigned manifest must satisfy so that the signing workflow can sign it and the cluster
 * can apply the result: one named object per document, no signature annotations of the policy's
 * domain yet, and a signed form whose annotations fit Kubernetes' limit. (Parsing, duplicate keys
 * and {@code apiVersion}/{@code kind} are the reader's job.) Stateless and thread-safe.
 */
public final class UnsignedManifestRules {

  /** Kubernetes' limit on the total size of one object's annotations (keys plus values). */
  public static final long ANNOTATION_LIMIT_BYTES = 256 * 1024;

  /**
   * Room left for the per-set annotations besides the message: the signature (about 100 bytes), and
   * for keyless signing the gzipped certificate and Rekor bundle (together 2-3 KiB).
   */
  public static final long SIGNATURE_ALLOWANCE_BYTES = 4 * 1024;

  public static final String RULE_NAME = "countersign/object-name";
  public static final String RULE_LIST = "countersign/one-object-per-document";
  public static final String RULE_PRESET = "countersign/no-preset-signature";
  public static final String RULE_SIZE = "countersign/annotation-size";
  public static final String RULE_SIGNED_SIZE = "countersign/signed-file-size";

  private static final String ANNOTATION_SIZE_MESSAGE =
      "once signed, each object would carry about %d KiB of annotations (the compressed message of"
          + " all %s is copied into every one), over Kubernetes' %d KiB limit, so the cluster would"
          + " refuse it";

  private static final String SIGNED_SIZE_MESSAGE =
      "once signed, the file would be about %d KiB (each of its %s carries the compressed message"
          + " of the whole file), over the limit of %d KiB for one manifest file, so the signing"
          + " workflow would refuse it";

  private final SignedManifestFormat format;
  private final AnnotationDomain domain;
  private final long maxBytes;

  public UnsignedManifestRules(SignedManifestFormat format) {
    this(format, ManifestReader.DEFAULT_MAX_BYTES);
  }

  /**
   * @param maxBytes the manifest size limit that {@code run} applies to the signed file
   */
  public UnsignedManifestRules(SignedManifestFormat format, long maxBytes) {
    this.format = format;
    this.domain = format.domain();
    this.maxBytes = maxBytes;
  }

  /** Every rule over every document of {@code file}; findings name it by its display path. */
  public List<GateFinding> check(ManifestFile file) {
    List<GateFinding> findings = new ArrayList<>();
    for (ManifestDocument document : file.documents()) {
      objectShape(file, document).ifPresent(findings::add);
      presetSignature(file, document).ifPresent(findings::add);
    }
    Optional<GateFinding> tooManyAnnotations =
        overSize(
            file,
            RULE_SIZE,
            estimatedAnnotationBytes(file),
            ANNOTATION_LIMIT_BYTES,
            ANNOTATION_SIZE_MESSAGE);
    tooManyAnnotations.ifPresent(findings::add);
    if (tooManyAnnotations.isEmpty()) {
      overSize(file, RULE_SIGNED_SIZE, estimatedSignedBytes(file), maxBytes, SIGNED_SIZE_MESSAGE)
          .ifPresent(findings::add);
    }
    return findings;
  }

  /**
   * The estimated size of the annotations of the largest signed object of {@code file}: its own
   * annotations, plus the message annotation (the gzipped, base64-encoded message of the whole
   * file, which every document carries), plus {@link #SIGNATURE_ALLOWANCE_BYTES}.
   */
  public long estimatedAnnotationBytes(ManifestFile file) {
    long messageBytes = messageAnnotationBytes(file);
    long largestOwn = 0;
    for (ManifestDocument document : file.documents()) {
      largestOwn = Math.max(largestOwn, ownAnnotationBytes(document));
    }
    return largestOwn + messageBytes + SIGNATURE_ALLOWANCE_BYTES;
  }

  /**
   * The estimated size of {@code file} once signed: its bytes, plus in every document the message
   * annotation and {@link #SIGNATURE_ALLOWANCE_BYTES}. {@code run} refuses to write a signed file
   * over the manifest size limit, which the gate and {@code verify} could not read back.
   */
  public long estimatedSignedBytes(ManifestFile file) {
    return file.bytes().length
        + file.documents().size() * (messageAnnotationBytes(file) + SIGNATURE_ALLOWANCE_BYTES);
  }

  private long messageAnnotationBytes(ManifestFile file) {
    byte[] message = format.message(file.documents());
    String encodedMessage =
        format
            .annotations(message, 0, new byte[0], Optional.empty(), Optional.empty())
            .get(domain.message());
    return utf8Length(domain.message()) + utf8Length(encodedMessage);
  }

  private Optional<GateFinding> objectShape(ManifestFile file, ManifestDocument document) {
    if (document.listProblem().isPresent()) {
      return Optional.of(
          error(
              file,
              document.line(),
              RULE_LIST,
              document.describe(),
              document.listProblem().get(),
              ManifestDocument.LIST_HINT));
    }
    if (document.name().isEmpty()) {
      int line = document.lineOf("metadata");
      String what =
          document.metadata().containsKey("generateName")
              ? "has metadata.generateName but no metadata.name; a signed object needs a fixed name"
              : "has no metadata.name";
      return Optional.of(
          error(
              file,
              line,
              RULE_NAME,
              document.kind(),
              what,
              "perhaps you should add metadata.name; verification pairs each object with its signed"
                  + " copy by kind and name"));
    }
    return Optional.empty();
  }

  private Optional<GateFinding> presetSignature(ManifestFile file, ManifestDocument document) {
    Object annotations = document.metadata().get("annotations");
    if (!(annotations instanceof Map<?, ?> map)) {
      return Optional.empty();
    }
    List<String> preset = new ArrayList<>();
    for (Object key : map.keySet()) {
      if (domain.isSignatureAnnotation(String.valueOf(key))) {
        preset.add(String.valueOf(key));
      }
    }
    if (preset.isEmpty()) {
      return Optional.empty();
    }
    int line = document.lineOf("metadata.annotations." + preset.get(0));
    return Optional.of(
        error(
            file,
            line,
            RULE_PRESET,
            document.describe(),
            "already carries the signature annotation"
                + (preset.size() > 1 ? "s " : " ")
                + String.join(", ", preset)
                + " in an unsigned directory",
            "perhaps you should remove "
                + (preset.size() > 1 ? "them" : "it")
                + "; the signing workflow adds signatures after merge, and a pre-set one would be"
                + " signed over or kept unreviewed"));
  }

  /**
   * A size rule's finding, at the file's first document, when {@code estimate} is over {@code
   * limit}; the message covers the whole file, so the fix is always a smaller file.
   *
   * @param what the finding's text, formatted with the estimate in KiB, the file's document count
   *     and the limit in KiB
   */
  private static Optional<GateFinding> overSize(
      ManifestFile file, String rule, long estimate, long limit, String what) {
    if (estimate <= limit) {
      return Optional.empty();
    }
    return Optional.of(
        error(
            file,
            file.documents().get(0).line(),
            rule,
            "",
            String.format(Locale.ROOT, what, kib(estimate), documentCount(file), kib(limit)),
            splitHint(file)));
  }

  /** "1 document" or "N documents". */
  private static String documentCount(ManifestFile file) {
    int documents = file.documents().size();
    return documents + " document" + (documents == 1 ? "" : "s");
  }

  /** The size rules' fix: the message covers the whole file, so only a smaller file helps. */
  private static String splitHint(ManifestFile file) {
    return "perhaps you should split "
        + RepositoryPaths.slashed(file.displayPath())
        + " into smaller files (each file is signed as one message)";
  }

  private long ownAnnotationBytes(ManifestDocument document) {
    Object annotations = document.metadata().get("annotations");
    long total = 0;
    if (annotations instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        String key = String.valueOf(entry.getKey());
        if (!domain.isSignatureAnnotation(key)) {
          total += utf8Length(key) + utf8Length(String.valueOf(entry.getValue()));
        }
      }
    }
    return total;
  }

  private static long kib(long bytes) {
    return (bytes + 1023) / 1024;
  }

  private static long utf8Length(String text) {
    return text.getBytes(StandardCharsets.UTF_8).length;
  }

  private static GateFinding error(
      ManifestFile file, int line, String rule, String object, String what, String hint) {
    return new GateFinding(
        file.displayPath(),
        Math.max(0, line),
        GateFinding.Check.MANIFEST,
        rule,
        object,
        Hints.append(what, hint),
        GateFinding.Severity.ERROR);
  }
}
