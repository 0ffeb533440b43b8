package dev.countersign.manifest;

import dev.countersign.support.problems.InputProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The k8s-manifest-sigstore / Kyverno signed-manifest format under one annotation domain: building
 * the message, encoding annotations, rendering byte-stable signed files, and decoding annotations
 * back. See {@code docs/format.md}.
 *
 * <p>Thread-safe.
 */
public final class SignedManifestFormat {

  /**
   * Upper bound on the gunzipped certificate and bundle annotations of one document, all sets
   * together. A Fulcio certificate and its bundle take a few KB, so this leaves room for hundreds
   * of sets, while a document of many small gzip bombs cannot make a verifier hold gigabytes.
   */
  static final long MAX_SIGNATURE_MATERIAL = 1024 * 1024;

  private static final String MESSAGE_SEPARATOR = "\n---\n";
  private static final String FILE_SEPARATOR = "---\n";

  private final AnnotationDomain domain;
  private final ManifestReader reader;
  private final Pattern indexedSignature;

  /** See {@link #certificate}. */
  private volatile CompressedPem lastCertificate;

  public SignedManifestFormat(AnnotationDomain domain, ManifestReader reader) {
    this.domain = domain;
    this.reader = reader;
    this.indexedSignature =
        Pattern.compile(Pattern.quote(domain.domain() + "/signature_") + "([0-9]+)");
  }

  public AnnotationDomain domain() {
    return domain;
  }

  /**
   * The raw message for a file: every document with this domain's signature annotations removed
   * ({@code metadata.annotations} dropped when it becomes empty), written as canonical YAML ({@link
   * CanonicalYaml}), joined by {@code "\n---\n"}.
   *
   * @throws IllegalArgumentException when {@code documents} is empty
   */
  public byte[] message(List<ManifestDocument> documents) {
    if (documents.isEmpty()) {
      throw new IllegalArgumentException("cannot build a message from no documents");
    }
    List<String> parts = new ArrayList<>(documents.size());
    for (ManifestDocument document : documents) {
      Map<String, Object> content = withAnnotations(document, Map.of(), false);
      parts.add(CanonicalYaml.write(content));
    }
    return String.join(MESSAGE_SEPARATOR, parts).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The annotations of signature set {@code index}: {@code message} (std-base64 gzip) and {@code
   * signature[_N]} always, {@code certificate[_N]} and {@code bundle[_N]} when given. Sorted by
   * key. Gzip output is deterministic (mtime 0, fixed header), so equal inputs give equal
   * annotations.
   */
  public Map<String, String> annotations(
      byte[] message,
      int index,
      byte[] signature,
      Optional<String> certificatePem,
      Optional<RekorBundle> bundle) {
    if (index < 0) {
      throw new IllegalArgumentException("signature set index must be >= 0, got " + index);
    }
    Base64.Encoder base64 = Base64.getEncoder();
    SortedMap<String, String> annotations = new TreeMap<>();
    annotations.put(domain.message(), base64.encodeToString(Gzip.compress(message)));
    annotations.put(domain.signature(index), base64.encodeToString(signature));
    certificatePem.ifPresent(pem -> annotations.put(domain.certificate(index), certificate(pem)));
    bundle.ifPresent(
        b ->
            annotations.put(
                domain.bundle(index),
                base64.encodeToString(Gzip.compress(b.toJson().getBytes(StandardCharsets.UTF_8)))));
    return annotations;
  }

  /**
   * The certificate annotation value (std-base64 gzip of the PEM). A keyless run signs every
   * manifest with one certificate, so the last one is remembered (gzip output depends on the input
   * alone).
   */
  private String certificate(String pem) {
    CompressedPem last = lastCertificate;
    if (last != null && last.pem().equals(pem)) {
      return last.annotation();
    }
    String annotation =
        Base64.getEncoder().encodeToString(Gzip.compress(pem.getBytes(StandardCharsets.UTF_8)));
    lastCertificate = new CompressedPem(pem, annotation);
    return annotation;
  }

  private record CompressedPem(String pem, String annotation) {}

  /**
   * The number of contiguous signature sets a document already carries (the index the next set gets
   * in append mode): counts {@code signature}, {@code signature_1}, ... up to the first gap.
   */
  public int existingSignatureSets(ManifestDocument document) {
    Map<String, String> annotations = document.annotations();
    int count = 0;
    while (annotations.containsKey(domain.signature(count))) {
      count++;
    }
    return count;
  }

  /**
   * The signed file's bytes: {@code headerComment} lines (each prefixed "# ", empty lines as "#"),
   * then every document with the given annotations set, as canonical YAML separated by "---\n". In
   * replace mode ({@code append == false}) every existing signature annotation of this domain is
   * removed first; in append mode they are kept and the given ones overwrite keys they share. Same
   * input, same annotations: same bytes. LF only, one trailing newline.
   *
   * @throws IllegalArgumentException when a header line contains a line break, or a document's
   *     {@code metadata} or {@code metadata.annotations} is not a mapping (the reader refuses both
   *     with the file and line, so only a document built in memory can get here)
   */
  public byte[] render(
      List<ManifestDocument> documents,
      Map<String, String> annotations,
      boolean append,
      List<String> headerComment) {
    if (documents.isEmpty()) {
      throw new IllegalArgumentException("cannot render a signed file without documents");
    }
    StringBuilder out = new StringBuilder();
    for (String line : headerComment) {
      if (line.indexOf('\n') >= 0 || line.indexOf('\r') >= 0) {
        throw new IllegalArgumentException("header comment line contains a line break: " + line);
      }
      out.append(line.isEmpty() ? "#" : "# " + line).append('\n');
    }
    boolean first = true;
    for (ManifestDocument document : documents) {
      if (!first) {
        out.append(FILE_SEPARATOR);
      }
      first = false;
      out.append(CanonicalYaml.write(withAnnotations(document, annotations, append)));
    }
    return out.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Decodes the signature annotations of {@code document}, a document on its own. The documents of
   * a file go through one {@link #decoder()} instead, so that together they cost no more than one
   * document.
   *
   * <p>The message is std-base64 (padding required, line breaks ignored, as Go's decoder does),
   * gunzipped when it is gzip (used as is otherwise, like Go; every member, and nothing but members
   * after the first, as Go's reader requires), then read as a legacy tarball when it is gzip again,
   * else as YAML. Signature sets are read from index 0 to the first missing {@code signature[_N]};
   * a higher-numbered {@code signature_N} beyond that gap is an error (Go silently ignores it,
   * which would hide a signature from review). A set whose signature, certificate or bundle cannot
   * be decoded carries the reason in {@link SignatureSetAnnotations#problem()}; it never makes this
   * method throw.
   *
   * @return empty when the document has no {@code message} annotation (signature annotations
   *     without a message are ignored, as k8s-manifest-sigstore does)
   * @throws IllegalArgumentException with a user-facing reason when the message cannot be decoded
   *     or the signature sets are not contiguous
   */
  public Optional<SignedContent> decode(ManifestDocument document) {
    return decoder().decode(document);
  }

  /**
   * A decoder for the documents of one file, which {@link #decode} each as {@link
   * SignedManifestFormat#decode} does. Documents carrying the same signature annotations (every
   * document of a signed file does) are decoded once. All that is gunzipped for the file counts
   * against one allowance, the most a single document can need (two messages' worth for a legacy
   * tarball, and {@link #MAX_SIGNATURE_MATERIAL}): a file whose documents each carry a different
   * small gzip bomb costs no more than one document. Not thread-safe: one per file.
   */
  public FileDecoder decoder() {
    return new FileDecoder();
  }

  /** See {@link #decoder()}. */
  public final class FileDecoder {

    private final Allowance file =
        new Allowance(
            2 * reader.maxBytes() + MAX_SIGNATURE_MATERIAL,
            "the signature annotations of the file's documents decompress to more than "
                + (2 * reader.maxBytes() + MAX_SIGNATURE_MATERIAL)
                + " bytes together (documents carrying different messages or signatures; a"
                + " signed file's documents all carry the same)");

    /** By the document's signature annotations. */
    private final Map<Map<String, String>, Decoding> decoded = new HashMap<>();

    private FileDecoder() {}

    /** As {@link SignedManifestFormat#decode}, and the file's allowance exhausted is an error. */
    public Optional<SignedContent> decode(ManifestDocument document) {
      Map<String, String> signatureAnnotations = new TreeMap<>();
      document
          .annotations()
          .forEach(
              (key, value) -> {
                if (domain.isSignatureAnnotation(key)) {
                  signatureAnnotations.put(key, value);
                }
              });
      Decoding decoding = decoded.get(signatureAnnotations);
      if (decoding == null) {
        try {
          decoding = new Decoding(decodeAnnotations(signatureAnnotations, file), null);
        } catch (IllegalArgumentException e) {
          decoding = new Decoding(Optional.empty(), e);
        }
        decoded.put(signatureAnnotations, decoding);
      }
      if (decoding.failure() != null) {
        throw decoding.failure();
      }
      return decoding.content();
    }
  }

  /** What decoding one set of annotations gave: the content, or why there is none. */
  private record Decoding(Optional<SignedContent> content, IllegalArgumentException failure) {}

  private Optional<SignedContent> decodeAnnotations(
      Map<String, String> annotations, Allowance file) {
    String encodedMessage = annotations.get(domain.message());
    if (encodedMessage == null) {
      return Optional.empty();
    }
    String messageKey = domain.message();
    byte[] compressed =
        base64(encodedMessage)
            .orElseThrow(
                () ->
                    new IllegalArgumentException(
                        "annotation " + messageKey + " is not valid base64"));
    byte[] message = gunzip(compressed, reader.maxBytes(), messageKey, file);
    boolean legacy = Gzip.isGzip(message);
    List<ManifestDocument> messageDocuments =
        legacy
            ? tarballDocuments(message, messageKey, file)
            : parseMessage(message, Path.of(messageKey), messageKey);
    List<SignatureSetAnnotations> sets = new ArrayList<>();
    Allowance material =
        new Allowance(
            MAX_SIGNATURE_MATERIAL,
            "the certificate and bundle annotations of the document decompress to more than "
                + MAX_SIGNATURE_MATERIAL
                + " bytes together");
    int index = 0;
    while (annotations.containsKey(domain.signature(index))) {
      sets.add(decodeSet(annotations, index, material, file));
      index++;
    }
    OptionalInt stray = strayIndex(annotations, index);
    if (stray.isPresent()) {
      String missing = index == 0 ? "signature" : "signature_" + index;
      throw new IllegalArgumentException(
          "signature sets must be contiguous: found signature_"
              + stray.getAsInt()
              + " but no "
              + missing
              + " (annotation domain "
              + domain.domain()
              + ")");
    }
    return Optional.of(new SignedContent(message, legacy, messageDocuments, sets));
  }

  ManifestReader reader() {
    return reader;
  }

  /** The smallest N >= firstMissing with a {@code signature_N} annotation. */
  private OptionalInt strayIndex(Map<String, String> annotations, int firstMissing) {
    OptionalInt smallest = OptionalInt.empty();
    for (String key : annotations.keySet()) {
      Matcher matcher = indexedSignature.matcher(key);
      if (matcher.matches() && matcher.group(1).length() < 10) {
        int n = Integer.parseInt(matcher.group(1));
        if (n >= firstMissing && (smallest.isEmpty() || n < smallest.getAsInt())) {
          smallest = OptionalInt.of(n);
        }
      }
    }
    return smallest;
  }

  private SignatureSetAnnotations decodeSet(
      Map<String, String> annotations, int index, Allowance material, Allowance file) {
    String signatureKey = domain.signature(index);
    String signatureBase64 = annotations.get(signatureKey);
    List<String> problems = new ArrayList<>();
    byte[] signature = new byte[0];
    Optional<byte[]> decodedSignature = base64(signatureBase64);
    if (decodedSignature.isEmpty()) {
      problems.add("annotation " + signatureKey + " is not valid base64");
    } else if (decodedSignature.get().length == 0) {
      problems.add("annotation " + signatureKey + " is empty");
    } else {
      signature = decodedSignature.get();
    }
    String certificateKey = domain.certificate(index);
    Optional<byte[]> certificate =
        gzippedAnnotation(
            annotations,
            certificateKey,
            problems,
            List.of(material, file),
            pem -> {
              if (!new String(pem, StandardCharsets.UTF_8)
                  .contains("-----BEGIN CERTIFICATE-----")) {
                throw new IllegalArgumentException(
                    "annotation " + certificateKey + " does not hold a PEM certificate");
              }
              return pem;
            });
    String bundleKey = domain.bundle(index);
    Optional<RekorBundle> bundle =
        gzippedAnnotation(
            annotations,
            bundleKey,
            problems,
            List.of(material, file),
            json -> {
              try {
                return RekorBundle.parse(json);
              } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                    "annotation " + bundleKey + " does not hold a Rekor bundle: " + e.getMessage(),
                    e);
              }
            });
    Optional<String> problem =
        problems.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", problems));
    return new SignatureSetAnnotations(
        index, signatureBase64, signature, certificate, bundle, problem);
  }

  /**
   * The optional annotation {@code key} (base64 of gzip), read by {@code read}; empty when it is
   * absent or broken, and then why goes to {@code problems}.
   */
  private static <T> Optional<T> gzippedAnnotation(
      Map<String, String> annotations,
      String key,
      List<String> problems,
      List<Allowance> allowances,
      Function<byte[], T> read) {
    if (!annotations.containsKey(key)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          read.apply(
              gunzip(
                  base64Required(annotations.get(key), key),
                  MAX_SIGNATURE_MATERIAL,
                  key,
                  allowances.toArray(Allowance[]::new))));
    } catch (IllegalArgumentException e) {
      problems.add(e.getMessage());
      return Optional.empty();
    }
  }

  private List<ManifestDocument> tarballDocuments(byte[] tarGz, String messageKey, Allowance file) {
    byte[] tar = gunzip(tarGz, reader.maxBytes(), messageKey + " (legacy tarball)", file);
    List<LegacyTarball.Member> members;
    try {
      members = LegacyTarball.members(tar);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "annotation " + messageKey + " holds a broken legacy tarball: " + e.getMessage(), e);
    }
    List<ManifestDocument> documents = new ArrayList<>();
    for (LegacyTarball.Member member : members) {
      if (member.isYaml()) {
        documents.addAll(parseMessage(member.content(), Path.of(member.name()), messageKey));
      }
    }
    if (documents.isEmpty()) {
      throw new IllegalArgumentException(
          "annotation " + messageKey + " holds a legacy tarball without .yaml or .yml files");
    }
    return documents;
  }

  private List<ManifestDocument> parseMessage(byte[] yaml, Path name, String messageKey) {
    try {
      return reader.parse(yaml, name);
    } catch (InputProblem e) {
      throw new IllegalArgumentException(
          "annotation " + messageKey + " does not hold a usable manifest: " + e.getMessage(), e);
    }
  }

  /** Go's StdEncoding: padding required, line breaks skipped; empty on any error. */
  private static Optional<byte[]> base64(String text) {
    String compact = text.replace("\n", "").replace("\r", "");
    if (compact.length() % 4 != 0) {
      return Optional.empty();
    }
    try {
      return Optional.of(Base64.getDecoder().decode(compact));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  private static byte[] base64Required(String text, String key) {
    return base64(text)
        .orElseThrow(
            () -> new IllegalArgumentException("annotation " + key + " is not valid base64"));
  }

  /**
   * Bytes that gunzipping may still produce for one scope (a document's signature material, a
   * file), and what to say when more would come.
   */
  private static final class Allowance {
    private long remaining;
    private final String exceeded;

    Allowance(long bytes, String exceeded) {
      this.remaining = bytes;
      this.exceeded = exceeded;
    }
  }

  /**
   * {@code data} gunzipped (as is when it is not gzip), at most {@code limit} bytes and at most
   * what each of {@code allowances} has left, which it is then charged to.
   */
  private static byte[] gunzip(byte[] data, long limit, String key, Allowance... allowances) {
    long effective = limit;
    Allowance binding = null;
    for (Allowance allowance : allowances) {
      if (allowance.remaining < effective) {
        effective = Math.max(0, allowance.remaining);
        binding = allowance;
      }
    }
    byte[] out;
    try {
      out = Gzip.gunzipIfGzip(data, effective);
    } catch (Gzip.TooLarge e) {
      String reason = binding == null ? e.getMessage() : "is refused: " + binding.exceeded;
      throw new IllegalArgumentException("annotation " + key + " " + reason, e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("annotation " + key + " " + e.getMessage(), e);
    }
    for (Allowance allowance : allowances) {
      allowance.remaining -= out.length;
    }
    return out;
  }

  /**
   * A mutable deep copy of {@code document}'s content with this domain's signature annotations
   * removed unless {@code keepExisting}, then {@code added} merged in; {@code metadata.annotations}
   * is dropped when it ends up empty. {@link ManifestReader} refuses a {@code metadata} or {@code
   * metadata.annotations} that is not a mapping, naming the file and line; the checks here guard
   * documents built in memory.
   */
  private Map<String, Object> withAnnotations(
      ManifestDocument document, Map<String, String> added, boolean keepExisting) {
    @SuppressWarnings("unchecked")
    Map<String, Object> content = (Map<String, Object>) deepCopy(document.content());
    Object metadataValue = content.get("metadata");
    if (metadataValue == null && added.isEmpty()) {
      return content;
    }
    if (metadataValue != null && !(metadataValue instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(document.describe() + ": metadata is not a mapping");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> metadata =
        metadataValue == null ? new LinkedHashMap<>() : (Map<String, Object>) metadataValue;
    content.put("metadata", metadata);
    Object annotationsValue = metadata.get("annotations");
    if (annotationsValue == null && added.isEmpty()) {
      return content;
    }
    if (annotationsValue != null && !(annotationsValue instanceof Map<?, ?>)) {
      throw new IllegalArgumentException(
          document.describe() + ": metadata.annotations is not a mapping");
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> annotations =
        annotationsValue == null ? new LinkedHashMap<>() : (Map<String, Object>) annotationsValue;
    if (!keepExisting) {
      annotations.keySet().removeIf(domain::isSignatureAnnotation);
    }
    annotations.putAll(added);
    if (annotations.isEmpty()) {
      metadata.remove("annotations");
    } else {
      metadata.put("annotations", annotations);
    }
    return content;
  }

  private static Object deepCopy(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> copy = new LinkedHashMap<>();
      map.forEach((k, v) -> copy.put(String.valueOf(k), deepCopy(v)));
      return copy;
    }
    if (value instanceof List<?> list) {
      List<Object> copy = new ArrayList<>(list.size());
      list.forEach(v -> copy.add(deepCopy(v)));
      return copy;
    }
    return value;
  }
}
