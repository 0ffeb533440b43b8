package dev.countersign.signing;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Memoized;
import dev.countersign.support.Sha256;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.RekorEntryBody;
import dev.countersign.verification.SigstoreResponseVerifier;
import dev.countersign.verification.TrustedRoot;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * Uploads keyed signatures to a Rekor v1 transparency log (a {@code hashedrekord} entry with the
 * public key), so a keyed signature also gets a {@code bundle} annotation with a SET, as {@code
 * cosign sign-blob --key --tlog-upload} does.
 *
 * <p>The log's answer is taken as keyless signing takes it, through the same code ({@link
 * RekorUploads#log}, {@link SigstoreResponseVerifier}): the entry's body must be the request byte
 * for byte (our digest, our signature, our public key), and its SET, inclusion proof and checkpoint
 * must verify with a transparency log of the trusted root, integrated while it was uploaded. A
 * bundle nobody can verify, or one that logs the signature under another key, is never written.
 *
 * <p>Thread-safe: the sign job's pool uploads through one instance.
 */
public final class TransparencyLog {

  /** The Sigstore public-good Rekor. */
  public static final URI PUBLIC_GOOD = URI.create("https://rekor.sigstore.dev");

  /**
   * Whether {@code url} is {@link #PUBLIC_GOOD}, the one Rekor v1 log the public-good trusted root
   * names: the same scheme, host and port (uploads go to {@code /api/v1/log/entries} of the host,
   * whatever path the URL has).
   */
  public static boolean isPublicGood(URI url) {
    return "https".equalsIgnoreCase(url.getScheme())
        && PUBLIC_GOOD.getHost().equalsIgnoreCase(url.getHost())
        && (url.getPort() == -1 || url.getPort() == 443);
  }

  /**
   * How far the log's clock may be from ours: an entry's integratedTime may be this much before the
   * upload started or after the answer came. Rekor writes the time it took the entry; an entry
   * dated outside the upload (a keyed signature is new, so is its entry) is not this upload's.
   */
  static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

  private final URI url;
  private final RekorUploads uploads;
  private final Supplier<SigstoreResponseVerifier> verifier;
  private final Clock clock;

  /**
   * Contacts nothing and reads nothing: the trusted root is asked for at the first upload, before
   * anything is sent.
   *
   * @param url the Rekor v1 log
   * @param trustedRoot the trust material that names the log's key ({@code --trusted-root}, else
   *     the public-good root); asked for once, and refused before the first upload when it names no
   *     transparency log valid now ({@link SigningTrust})
   * @param trustedRootName names it in that refusal (its file)
   * @param clock decides whether the entry's integratedTime is the upload's
   * @param sleeper waits before an upload is tried again ({@link RekorUploads})
   * @param warnings told when uploads wait for a busy log
   * @throws UsageProblem when {@code url} is not an http(s) URL
   */
  public TransparencyLog(
      URI url,
      Supplier<TrustedRoot> trustedRoot,
      String trustedRootName,
      Clock clock,
      Sleeper sleeper,
      Consumer<String> warnings) {
    if (url.getScheme() == null
        || !(url.getScheme().equals("https") || url.getScheme().equals("http"))) {
      throw new UsageProblem(
          "The Rekor URL " + url + " is not an http(s) URL",
          "pass e.g. --rekor-url " + PUBLIC_GOOD);
    }
    this.url = url;
    this.uploads =
        new RekorUploads(
            url,
            new SigstoreHttp(),
            clock,
            sleeper,
            new SecureRandom(),
            warnings,
            RekorFailures.KEYED);
    this.verifier =
        Memoized.of(
            () ->
                new SigstoreResponseVerifier(
                    SigningTrust.forKeyedLog(trustedRoot.get(), clock.instant(), trustedRootName)));
    this.clock = clock;
  }

  /**
   * Logs {@code signature} over {@code message} by {@code publicKey}, and returns the checked
   * entry.
   *
   * @throws RemoteProblem when Rekor fails, or answers with an entry that is not this one or does
   *     not verify against the trusted root
   */
  public RekorBundle upload(byte[] message, byte[] signature, PublicKey publicKey) {
    SigstoreResponseVerifier check = verifier.get();
    byte[] keyPem = PublicKeys.toPem(publicKey).getBytes(StandardCharsets.US_ASCII);
    Instant started = clock.instant();
    return uploads
        .log(
            RekorEntryBody.hashedRekordRequest(Sha256.of(message), signature, keyPem),
            entry ->
                check.verifyLogEntry(
                    entry, started.minus(CLOCK_SKEW), clock.instant().plus(CLOCK_SKEW)))
        .entry()
        .bundle();
  }

  /** {@link RekorUploads#inFlightFor} this log. */
  int suggestedInFlight() {
    return RekorUploads.inFlightFor(url);
  }
}
