package dev.countersign.verification;

import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;

/**
 * Checks what Fulcio and Rekor answer while signing, with the same code and trusted root that
 * verify signatures later (nothing of sigstore-java's verifiers, protobuf or JCA providers):
 *
 * <ul>
 *   <li>the certificate chains to a Fulcio certificate authority of the trusted root valid when it
 *       was issued, and carries an embedded SCT by a CT log of the trusted root (RFC 6962);
 *   <li>the log entry's SET verifies with a transparency log of the trusted root, its inclusion
 *       proof leads to the proof's root hash, its checkpoint is signed by the same log and commits
 *       to that root, and it was integrated while the certificate was valid (keyless) or while it
 *       was uploaded (keyed, {@code --tlog-upload}).
 * </ul>
 *
 * Each check throws {@link IllegalArgumentException} with the reason. Thread-safe.
 */
public final class SigstoreResponseVerifier {

  private final TrustedRoot trustedRoot;
  private final TransparencyLogProofs proofs;

  public SigstoreResponseVerifier(TrustedRoot trustedRoot) {
    this.trustedRoot = trustedRoot;
    this.proofs = new TransparencyLogProofs(trustedRoot);
  }

  /**
   * Checks a certificate Fulcio just issued: the chain (at its notBefore) and an embedded SCT.
   * Intermediates Fulcio sends along are ignored; only the trusted root's chains count.
   *
   * @throws IllegalArgumentException with the reason when it does not hold
   */
  public void verifyCertificate(X509Certificate leaf) {
    Instant issued = leaf.getNotBefore().toInstant();
    TrustedRoot.CertificateAuthority authority =
        FulcioCertificate.issuingAuthority(trustedRoot, leaf, issued);
    EmbeddedSct.verify(leaf, authority.chain().get(0), trustedRoot);
  }

  /**
   * Runs the certificate-path validation of {@link #verifyCertificate} once on the trusted root's
   * own chain (the first authority's intermediates, or its root alone, against its root), and the
   * SCT check's precertificate reconstruction on that certificate, and drops the outcomes. The
   * first validation in a cold JVM costs ~50 ms of class loading, linking and interpreted ECDSA; a
   * keyless signer calls this while the identity token or Fulcio's answer is on its way, so that
   * its real check of Fulcio's certificate, between that answer and the Rekor upload, runs warm.
   * Checks nothing: {@link #verifyCertificate} still validates every certificate fully.
   */
  public void warmUp() {
    if (trustedRoot.certificateAuthorities().isEmpty()) {
      return;
    }
    TrustedRoot.CertificateAuthority ca = trustedRoot.certificateAuthorities().get(0);
    List<X509Certificate> chain = ca.chain();
    // Its intermediates, or the root alone (validated against itself) where it has none.
    List<X509Certificate> path = chain.subList(0, Math.max(1, chain.size() - 1));
    try {
      FulcioCertificate.validatePath(path, ca.root(), path.get(0).getNotBefore().toInstant());
      EmbeddedSct.warmUp(path.get(0));
    } catch (GeneralSecurityException | RuntimeException outcomeNotUsed) {
      // verifyCertificate reaches its own verdict on Fulcio's certificate
    }
  }

  /**
   * Runs the ECDSA check of the SCT, SET and checkpoint checks once, on {@code signature} of {@code
   * data} by {@code key}, and drops the outcome: in a cold JVM the first check costs several ms of
   * class initialisation and interpreted arithmetic, which a keyless signer spends while the
   * identity token is on its way instead of between Fulcio's and Rekor's answers and the next
   * request. Checks nothing that is used.
   */
  public static void warmUpSignatureCheck(PublicKey key, byte[] data, byte[] signature) {
    EcdsaVerification.verifySha256(key, data, signature);
  }

  /**
   * Checks a Rekor v1 entry for a signature by {@code leaf}'s key: SET, inclusion proof (required),
   * checkpoint, and integratedTime within the certificate's validity. Whether the body is what was
   * sent is the caller's comparison.
   *
   * @throws IllegalArgumentException with the reason when it does not hold
   */
  public void verifyLogEntry(RekorLogEntry entry, X509Certificate leaf) {
    verifyProofs(entry);
    fail(
        FulcioCertificate.validityProblem(
            leaf, Instant.ofEpochSecond(entry.bundle().integratedTime())));
  }

  /**
   * Checks a Rekor v1 entry for a keyed signature (no certificate bounds its time): SET, inclusion
   * proof (required), checkpoint, and integratedTime from {@code earliest} to {@code latest}, the
   * upload's own time give or take the clocks' difference. Whether the body is what was sent is the
   * caller's comparison.
   *
   * @throws IllegalArgumentException with the reason when it does not hold
   */
  public void verifyLogEntry(RekorLogEntry entry, Instant earliest, Instant latest) {
    verifyProofs(entry);
    Instant integrated = Instant.ofEpochSecond(entry.bundle().integratedTime());
    // Whole seconds in the entry: the window's ends are taken to the second around it.
    if (integrated.isBefore(earliest.truncatedTo(ChronoUnit.SECONDS))
        || integrated.isAfter(latest)) {
      throw new IllegalArgumentException(
          "the entry's integratedTime "
              + integrated
              + " is not the time of the upload, from "
              + earliest
              + " to "
              + latest);
    }
  }

  /** SET, inclusion proof (required) and checkpoint, each by a log of the trusted root. */
  private void verifyProofs(RekorLogEntry entry) {
    fail(proofs.checkSet(entry.bundle()));
    RekorLogEntry.InclusionProof proof =
        entry
            .inclusionProof()
            .orElseThrow(() -> new IllegalArgumentException("the entry has no inclusion proof"));
    fail(TransparencyLogProofs.checkInclusion(entry.bundle(), proof));
    fail(proofs.checkCheckpoint(entry.bundle().logId(), proof));
  }

  private static void fail(Optional<String> problem) {
    if (problem.isPresent()) {
      throw new IllegalArgumentException(problem.get());
    }
  }
}
