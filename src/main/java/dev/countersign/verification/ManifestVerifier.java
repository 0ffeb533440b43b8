package dev.countersign.verification;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.problems.UsageProblem;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The strict verifier (spec §8.5): a document passes when the document its signed message holds
 * matches it field by field (after ignore fields) and at least {@link TrustPolicy#minSigners()}
 * distinct signers allowed by the policy verified a signature set over that message. Accepts
 * everything a correctly configured Kyverno accepts, and additionally checks the Fulcio chain,
 * the certificate's validity at log time, the OIDC issuer and the signature itself.
 *
 * <p>Thread-safe; no network and no clock (times come from the transparency log entries).
 */
public final class ManifestVerifier {

  private final TrustPolicy policy;
  private final AnnotationDomain domain;
  private final SignedManifestFormat format;
  private final IgnoreFields ignoreFields;
  private final Optional<KeylessSetVerifier> keyless;
  /** Checks the log entries of keyed sets that carry a bundle; present with a trusted root. */
  private final Optional<KeylessSetVerifier> logEntries;
  private final List<PublicKey> keys;
  private final List<String> keyFingerprints;

  /**
   * @param trustedRoot Sigstore trust material; may be null when the policy names only keys
   * @throws UsageProblem when the policy names no signer (refusing to accept anyone), or names
   *     keyless identities without a trusted root, or its ignore fields are not valid patterns
   */
  public ManifestVerifier(TrustedRoot trustedRoot, TrustPolicy policy, SignedManifestFormat format) {
    AnnotationDomain formatDomain = format.domain();
    if (policy.isUnconstrained()) {
      throw new UsageProblem("Refusing to verify without an identity: any signer would be accepted",
          ", perhaps you should pass --certificate-identity and --certificate-oidc-issuer (or --key), or --insecure-ignore-identity"
              + " if you really accept any signer");
    }
    if (!policy.domain().equals(formatDomain)) {
      throw new UsageProblem("The trust policy's annotation domain " + policy.domain().domain()
          + " differs from the format's " + formatDomain.domain(), ", perhaps you should use one annotation domain");
    }
    boolean wantsKeyless = !policy.identities().isEmpty() || policy.insecureIgnoreIdentity();
    if (wantsKeyless && trustedRoot == null) {
      throw new UsageProblem("Keyless verification needs a Sigstore trusted root",
          ", perhaps you should pass --trusted-root FILE (a trusted_root.json), or let countersign fetch the public-good root");
    }
    this.policy = policy;
    this.domain = formatDomain;
    this.format = format;
    this.ignoreFields = IgnoreFields.withDefaults(policy.extraIgnoreFields());
    this.keyless = wantsKeyless ? Optional.of(new KeylessSetVerifier(trustedRoot)) : Optional.empty();
    this.logEntries = trustedRoot != null ? Optional.of(new KeylessSetVerifier(trustedRoot)) : Optional.empty();
    this.keys = policy.keys();
    this.keyFingerprints = keys.stream().map(PublicKeys::fingerprint).toList();
  }

  /** One verdict per document of {@code file}, in order. */
  public List<DocumentVerdict> verify(ManifestFile file) {
    List<DocumentVerdict> verdicts = new ArrayList<>();
    List<ManifestDocument> documents = file.documents();
    for (int i = 0; i < documents.size(); i++) {
      verdicts.add(verify(file, i, documents.get(i)));
    }
    return verdicts;
  }

  private DocumentVerdict verify(ManifestFile file, int index, ManifestDocument live) {
    String description = live.describe();
    Optional<SignedContent> decoded;
    try {
      decoded = format.decode(live);
    } catch (IllegalArgumentException e) {
      return reject(file, index, live.line(), description, "the signature annotations cannot be decoded: " + e.getMessage());
    }
    if (decoded.isEmpty()) {
      return reject(file, index, live.line(), description, "no " + domain.message() + " annotation: the file is not signed");
    }
    SignedContent content = decoded.get();

    // The message document for this object: same kind, group and name; namespace breaks ties.
    List<ManifestDocument> candidates = content.messageDocuments().stream()
        .filter(d -> d.kind().equals(live.kind()) && d.group().equals(live.group()) && d.name().equals(live.name()))
        .toList();
    if (candidates.size() > 1) {
      List<ManifestDocument> sameNamespace =
          candidates.stream().filter(d -> d.namespace().equals(live.namespace())).toList();
      candidates = sameNamespace.isEmpty() ? candidates : sameNamespace;
    }
    if (candidates.isEmpty()) {
      String held = content.messageDocuments().stream().map(d -> d.kind() + "/" + d.name())
          .collect(Collectors.joining(", ", "[", "]"));
      return reject(file, index, live.line(), description,
          "the signed message holds no " + description + " (it holds " + held + ")");
    }
    List<ContentComparison.FieldDiff> diffs =
        ContentComparison.diff(candidates.get(0), live, domain, ignoreFields);
    if (!diffs.isEmpty()) {
      String first = diffs.get(0).describe();
      String more = diffs.size() > 1
          ? "; also " + diffs.subList(1, Math.min(diffs.size(), 4)).stream().map(ContentComparison.FieldDiff::path)
              .collect(Collectors.joining(", ")) + (diffs.size() > 4 ? " and " + (diffs.size() - 4) + " more" : "")
          : "";
      return reject(file, index, live.lineOf(diffs.get(0).path()), description,
          "content differs from the signed message at " + first + more);
    }

    if (content.signatureSets().isEmpty()) {
      return reject(file, index, live.line(), description,
          "no " + domain.signature(0) + " annotation: the message is not signed");
    }
    List<SetOutcome> outcomes = content.signatureSets().stream().map(set -> check(content.message(), set)).toList();
    Set<String> signers = new LinkedHashSet<>();
    outcomes.forEach(o -> o.signer().ifPresent(signers::add));
    if (signers.size() >= policy.minSigners()) {
      return new DocumentVerdict(file.displayPath(), index, live.line(), description, true,
          "signed by " + String.join(", ", signers), List.copyOf(signers));
    }
    String failures = outcomes.stream().filter(o -> o.signer().isEmpty()).map(SetOutcome::describe)
        .collect(Collectors.joining("; "));
    String reason = signers.isEmpty()
        ? failures
        : signers.size() + " distinct signer(s) verified (" + String.join(", ", signers) + "), "
            + policy.minSigners() + " required; " + failures;
    return new DocumentVerdict(file.displayPath(), index, live.line(), description, false, reason, List.copyOf(signers));
  }

  private SetOutcome check(byte[] message, SignatureSetAnnotations set) {
    int index = set.index();
    if (set.problem().isPresent()) {
      return SetOutcome.rejected(index, set.problem().get());
    }
    for (int k = 0; k < keys.size(); k++) {
      if (KeylessSetVerifier.signatureVerifies(keys.get(k), message, set.signature())) {
        // A keyed set with a bundle was also logged; with a trusted root, the entry must hold up.
        if (set.bundle().isPresent() && set.certificatePem().isEmpty() && logEntries.isPresent()) {
          Optional<String> logProblem = logEntries.get().checkKeyedLogEntry(message, set, keys.get(k));
          if (logProblem.isPresent()) {
            return SetOutcome.rejected(index, logProblem.get());
          }
        }
        return SetOutcome.verified(index, keyFingerprints.get(k));
      }
    }
    if (set.certificatePem().isPresent() && keyless.isPresent()) {
      return keyless.get().verify(message, set, policy.identities(), policy.insecureIgnoreIdentity());
    }
    if (set.certificatePem().isPresent()) {
      return SetOutcome.rejected(index, "is a keyless signature, but no identity was given to verify it against"
          + " (pass --certificate-identity and --certificate-oidc-issuer)");
    }
    if (keys.isEmpty()) {
      return SetOutcome.rejected(index, "is a keyed signature (no certificate), but no public key was given (pass --key)");
    }
    return SetOutcome.rejected(index, "the signature does not verify with "
        + (keys.size() == 1 ? "the key " + keyFingerprints.get(0) : "any of the keys " + keyFingerprints));
  }

  private static DocumentVerdict reject(ManifestFile file, int index, int line, String description, String reason) {
    return new DocumentVerdict(file.displayPath(), index, line, description, false, reason, List.of());
  }
}
