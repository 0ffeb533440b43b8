package dev.countersign.verification;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.problems.UsageProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The strict verifier (docs/design.md): a document passes when the document its signed message
 * holds matches it and at least {@link TrustPolicy#minSigners()} distinct signers allowed by the
 * policy ({@link DistinctSigners}) verified a signature set over that message. It checks the Fulcio
 * chain, the certificate's validity at log time, the OIDC issuer and the signature itself, which
 * Kyverno does not.
 *
 * <p>How content must match is a {@link ContentMatch}. {@link ContentMatch#EXACT} (files in a
 * repository, the default) also requires the whole file to equal its message: every document
 * carries the same message, and the file's documents are the message's documents, same count, same
 * order, each equal in canonical form. So a dropped, added, reordered or edited document fails,
 * whatever its field names. {@link ContentMatch#CLUSTER_OBJECT} is Kyverno's tolerant per-object
 * comparison, for objects read back from a cluster.
 *
 * <p>{@link #covers} is the one answer to "does this signed file cover this content, for this
 * signer" that the pipeline, the refresh, promotion and the gate share.
 *
 * <p>Thread-safe; no network and no clock (times come from the transparency log entries).
 */
public final class ManifestVerifier {

  private final TrustPolicy policy;
  private final AnnotationDomain domain;
  private final SignedManifestFormat format;
  private final IgnoreFields ignoreFields;
  private final SignatureSetCheck sets;
  private final ContentMatch match;

  /**
   * An {@link ContentMatch#EXACT} verifier; see {@link #ManifestVerifier(TrustedRoot, TrustPolicy,
   * SignedManifestFormat, ContentMatch)}.
   */
  public ManifestVerifier(
      TrustedRoot trustedRoot, TrustPolicy policy, SignedManifestFormat format) {
    this(trustedRoot, policy, format, ContentMatch.EXACT);
  }

  /**
   * @param trustedRoot Sigstore trust material; may be null when the policy names only keys
   * @throws UsageProblem when the policy names no signer (refusing to accept anyone), or names
   *     keyless identities without a trusted root, or its ignore fields are not valid patterns
   */
  public ManifestVerifier(
      TrustedRoot trustedRoot,
      TrustPolicy policy,
      SignedManifestFormat format,
      ContentMatch match) {
    AnnotationDomain formatDomain = format.domain();
    if (policy.isUnconstrained()) {
      throw new UsageProblem(
          "Refusing to verify without an identity: any signer would be accepted",
          ", perhaps you should pass --certificate-identity and --certificate-oidc-issuer (or"
              + " --key), or --insecure-ignore-identity if you really accept any signer");
    }
    if (!policy.domain().equals(formatDomain)) {
      throw new UsageProblem(
          "The trust policy's annotation domain "
              + policy.domain().domain()
              + " differs from the format's "
              + formatDomain.domain(),
          ", perhaps you should use one annotation domain");
    }
    this.sets = new SignatureSetCheck(trustedRoot, policy);
    this.policy = policy;
    this.domain = formatDomain;
    this.format = format;
    this.ignoreFields = IgnoreFields.withDefaults(policy.extraIgnoreFields());
    this.match = Objects.requireNonNull(match, "match");
  }

  /**
   * One verdict per document of {@code file}, in order. With {@link ContentMatch#EXACT}, a file
   * that does not equal its message as a whole fails in every document, with the reason.
   */
  public List<DocumentVerdict> verify(ManifestFile file) {
    return verify(file, format.decoder());
  }

  /** {@link #verify(ManifestFile)}, decoding the file's annotations with {@code decoder}. */
  private List<DocumentVerdict> verify(
      ManifestFile file, SignedManifestFormat.FileDecoder decoder) {
    List<DocumentVerdict> verdicts = new ArrayList<>();
    List<ManifestDocument> documents = file.documents();
    for (int i = 0; i < documents.size(); i++) {
      verdicts.add(verify(file, i, documents.get(i), decoder));
    }
    if (match == ContentMatch.EXACT && verdicts.stream().allMatch(DocumentVerdict::passed)) {
      Optional<String> mismatch = wholeFileMismatch(documents, decoder);
      if (mismatch.isPresent()) {
        List<DocumentVerdict> failed = new ArrayList<>();
        for (DocumentVerdict v : verdicts) {
          failed.add(
              new DocumentVerdict(
                  v.file(),
                  v.documentIndex(),
                  v.line(),
                  v.description(),
                  false,
                  mismatch.get(),
                  v.signers()));
        }
        return failed;
      }
    }
    return verdicts;
  }

  /**
   * True when {@code file} covers {@code message} for this verifier's signers: every document
   * verifies (content exactly as signed, see {@link ContentMatch#EXACT}, and enough allowed
   * signers), and the message its signatures cover is {@code message} byte for byte. A file that
   * cannot be decoded covers nothing. This is what decides whether signed bytes countersign did not
   * produce in this run may be kept.
   */
  public boolean covers(ManifestFile file, byte[] message) {
    if (match != ContentMatch.EXACT || file.documents().isEmpty()) {
      return false;
    }
    SignedManifestFormat.FileDecoder decoder = format.decoder();
    Optional<SignedContent> content;
    try {
      content = decoder.decode(file.documents().get(0));
    } catch (IllegalArgumentException undecodable) {
      return false;
    }
    if (content.isEmpty() || !Arrays.equals(content.get().message(), message)) {
      return false;
    }
    return verify(file, decoder).stream().allMatch(DocumentVerdict::passed);
  }

  /**
   * Why the documents of a file, as a whole, are not exactly its signed message: documents carrying
   * different messages, another number of documents, another order, or a document that differs in
   * canonical form (which also sees nulls and empty collections). Empty when they are.
   */
  private Optional<String> wholeFileMismatch(
      List<ManifestDocument> documents, SignedManifestFormat.FileDecoder decoder) {
    SignedContent first;
    try {
      first = decoder.decode(documents.get(0)).orElse(null);
      if (first == null) {
        return Optional.of("no " + domain.message() + " annotation: the file is not signed");
      }
      for (int i = 1; i < documents.size(); i++) {
        Optional<SignedContent> other = decoder.decode(documents.get(i));
        if (other.isEmpty() || !Arrays.equals(other.get().message(), first.message())) {
          return Optional.of(
              "document "
                  + (i + 1)
                  + " carries another signed message than document 1;"
                  + " a signed file holds one message for all its documents");
        }
      }
    } catch (IllegalArgumentException e) {
      return Optional.of("the signature annotations cannot be decoded: " + e.getMessage());
    }
    List<ManifestDocument> signed = first.messageDocuments();
    if (signed.size() != documents.size()) {
      return Optional.of(
          "the file holds "
              + documents.size()
              + " document(s) but its signed message holds "
              + signed.size()
              + " ("
              + signed.stream().map(ManifestDocument::describe).collect(Collectors.joining(", "))
              + "); a signed file must hold exactly the documents it was signed with");
    }
    for (int i = 0; i < documents.size(); i++) {
      byte[] found = format.message(List.of(documents.get(i)));
      byte[] expected = format.message(List.of(signed.get(i)));
      if (!Arrays.equals(found, expected)) {
        return Optional.of(
            "document "
                + (i + 1)
                + " ("
                + documents.get(i).describe()
                + ") is not exactly document "
                + (i + 1)
                + " of the signed message ("
                + signed.get(i).describe()
                + "): documents were reordered, or a field was added, removed or emptied");
      }
    }
    return Optional.empty();
  }

  private DocumentVerdict verify(
      ManifestFile file,
      int index,
      ManifestDocument live,
      SignedManifestFormat.FileDecoder decoder) {
    String description = live.describe();
    Optional<SignedContent> decoded;
    try {
      decoded = decoder.decode(live);
    } catch (IllegalArgumentException e) {
      return reject(
          file,
          index,
          live.line(),
          description,
          "the signature annotations cannot be decoded: " + e.getMessage());
    }
    if (decoded.isEmpty()) {
      return reject(
          file,
          index,
          live.line(),
          description,
          "no " + domain.message() + " annotation: the file is not signed");
    }
    SignedContent content = decoded.get();

    // The message document for this object: same kind, group and name; namespace breaks ties.
    List<ManifestDocument> candidates =
        content.messageDocuments().stream()
            .filter(
                d ->
                    d.kind().equals(live.kind())
                        && d.group().equals(live.group())
                        && d.name().equals(live.name()))
            .toList();
    if (candidates.size() > 1) {
      List<ManifestDocument> sameNamespace =
          candidates.stream().filter(d -> d.namespace().equals(live.namespace())).toList();
      candidates = sameNamespace.isEmpty() ? candidates : sameNamespace;
    }
    if (candidates.isEmpty()) {
      String held =
          content.messageDocuments().stream()
              .map(ManifestDocument::describe)
              .collect(Collectors.joining(", ", "[", "]"));
      return reject(
          file,
          index,
          live.line(),
          description,
          "the signed message holds no " + description + " (it holds " + held + ")");
    }
    List<ContentComparison.FieldDiff> diffs =
        ContentComparison.diff(candidates.get(0), live, domain, ignoreFields, match);
    if (!diffs.isEmpty()) {
      String first = diffs.get(0).describe();
      String more =
          diffs.size() > 1
              ? "; also "
                  + diffs.subList(1, Math.min(diffs.size(), 4)).stream()
                      .map(ContentComparison.FieldDiff::path)
                      .collect(Collectors.joining(", "))
                  + (diffs.size() > 4 ? " and " + (diffs.size() - 4) + " more" : "")
              : "";
      return reject(
          file,
          index,
          live.lineOf(diffs.get(0).path()),
          description,
          "content differs from the signed message at " + first + more);
    }

    if (content.signatureSets().isEmpty()) {
      return reject(
          file,
          index,
          live.line(),
          description,
          "no " + domain.signature(0) + " annotation: the message is not signed");
    }
    List<SetOutcome> outcomes =
        content.signatureSets().stream().map(set -> check(content.message(), set)).toList();
    Set<String> signers = new LinkedHashSet<>();
    outcomes.forEach(o -> o.signer().ifPresent(signers::add));
    List<String> counted =
        DistinctSigners.counted(outcomes.stream().flatMap(o -> o.signature().stream()).toList());
    if (counted.size() >= policy.minSigners()) {
      return new DocumentVerdict(
          file.displayPath(),
          index,
          live.line(),
          description,
          true,
          "signed by " + String.join(", ", signers),
          List.copyOf(signers));
    }
    String failures =
        outcomes.stream()
            .filter(o -> o.signer().isEmpty())
            .map(SetOutcome::describe)
            .collect(Collectors.joining("; "));
    String reason =
        signers.isEmpty()
            ? failures
            : DistinctSigners.shortfall(counted, signers, policy.minSigners(), failures);
    return new DocumentVerdict(
        file.displayPath(), index, live.line(), description, false, reason, List.copyOf(signers));
  }

  private SetOutcome check(byte[] message, SignatureSetAnnotations set) {
    return sets.check(message, set);
  }

  private static DocumentVerdict reject(
      ManifestFile file, int index, int line, String description, String reason) {
    return new DocumentVerdict(
        file.displayPath(), index, line, description, false, reason, List.of());
  }
}
