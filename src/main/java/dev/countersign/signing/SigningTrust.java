package dev.countersign.signing;

import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.TrustedRoot;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * What signing needs of a trusted root, checked when the root is read for signing and before any
 * service is asked: every answer a signature made now gets is checked against this root ({@link
 * dev.countersign.verification.SigstoreResponseVerifier}), so a root lacking one of these would
 * have Fulcio issue a certificate, or Rekor log an entry, for each signature only for the check to
 * refuse it afterwards.
 *
 * <p>Signing only: a verifier of signatures made earlier may rightly hold a root whose logs have
 * ended since ({@code validFor.end} after those entries), and keyed verification needs no CT log.
 */
final class SigningTrust {

  private SigningTrust() {}

  /**
   * For keyless signing: a certificate authority, a certificate transparency log (the embedded
   * SCT's) and a transparency log (the Rekor entry's), each valid at {@code now}.
   *
   * @param source names the root in the message (its file)
   * @throws UsageProblem naming what is missing
   */
  static TrustedRoot forKeyless(TrustedRoot root, Instant now, String source) {
    List<String> missing = new ArrayList<>();
    if (root.certificateAuthorities().stream().noneMatch(ca -> ca.validAt(now))) {
      missing.add(
          "no certificate authority (certificateAuthorities) valid now, so no Fulcio certificate"
              + " chains to it");
    }
    if (root.certificateTransparencyLogs().stream().noneMatch(log -> log.validAt(now))) {
      missing.add(
          "no certificate transparency log (ctlogs) valid now, so no Fulcio certificate's"
              + " embedded SCT verifies");
    }
    return refuseUnless(root, now, source, "keylessly", missing);
  }

  /** For a keyed signer's log uploads: a transparency log valid at {@code now}; see above. */
  static TrustedRoot forKeyedLog(TrustedRoot root, Instant now, String source) {
    return refuseUnless(root, now, source, "with a key and --tlog-upload", new ArrayList<>());
  }

  private static TrustedRoot refuseUnless(
      TrustedRoot root, Instant now, String source, String signing, List<String> missing) {
    if (root.logs().stream().noneMatch(log -> log.validAt(now))) {
      missing.add(
          "no transparency log (tlogs) valid now, so no Rekor entry made now verifies"
              + " (every validFor has ended, or not begun)");
    }
    if (missing.isEmpty()) {
      return root;
    }
    throw new UsageProblem(
        source
            + ": cannot sign "
            + signing
            + " with this trusted root: it names "
            + String.join("; and ", missing),
        ", perhaps you should pass the current trusted_root.json of your Sigstore deployment;"
            + " nothing was asked of Fulcio or Rekor");
  }
}
