package dev.countersign.signing;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.RekorEntryBody;
import dev.sigstore.rekor.client.HashedRekordRequest;
import dev.sigstore.rekor.client.RekorClient;
import dev.sigstore.rekor.client.RekorClientHttp;
import dev.sigstore.rekor.client.RekorEntry;
import dev.sigstore.rekor.client.RekorParseException;
import dev.sigstore.trustroot.Service;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.PublicKey;
import java.util.Base64;

/**
 * Uploads keyed signatures to a Rekor v1 transparency log (a {@code hashedrekord} entry with the
 * public key), so a keyed signature also gets a {@code bundle} annotation with a SET, as {@code
 * cosign sign-blob --key --tlog-upload} does. The bundle is built from the upload response.
 *
 * <p>Thread-safe: sigstore-java's HTTP Rekor client makes a new connection per request.
 */
public final class TransparencyLog {

  /** The Sigstore public-good Rekor. */
  public static final URI PUBLIC_GOOD = URI.create("https://rekor.sigstore.dev");

  private final URI url;
  private final RekorClient client;

  public TransparencyLog(URI url) {
    if (url.getScheme() == null
        || !(url.getScheme().equals("https") || url.getScheme().equals("http"))) {
      throw new UsageProblem(
          "The Rekor URL " + url + " is not an http(s) URL",
          "pass e.g. --rekor-url " + PUBLIC_GOOD);
    }
    this.url = url;
    this.client = RekorClientHttp.builder().setService(Service.of(url, 1)).build();
  }

  /**
   * Logs {@code signature} over {@code message} by {@code publicKey}.
   *
   * @throws RemoteProblem when Rekor fails or answers with an entry that is not ours
   */
  public RekorBundle upload(byte[] message, byte[] signature, PublicKey publicKey) {
    byte[] digest = Sha256.of(message);
    byte[] keyPem = PublicKeys.toPem(publicKey).getBytes(StandardCharsets.US_ASCII);
    RekorEntry entry;
    try {
      entry =
          client
              .putEntry(HashedRekordRequest.newHashedRekordRequest(digest, keyPem, signature))
              .getEntry();
    } catch (IOException | RekorParseException | RuntimeException e) {
      throw new RemoteProblem(
          "Rekor at "
              + url
              + " did not accept the log entry while signing with a key: "
              + e.getMessage(),
          "perhaps you should retry; if it persists, check --rekor-url",
          e);
    }
    String set =
        entry.getVerification() == null ? null : entry.getVerification().getSignedEntryTimestamp();
    if (set == null || set.isEmpty()) {
      throw new RemoteProblem(
          "Rekor at "
              + url
              + " returned an entry without a SignedEntryTimestamp while signing with a key",
          "perhaps you should use a Rekor v1 log: Kyverno needs the SET");
    }
    boolean ours;
    try {
      RekorEntryBody body = RekorEntryBody.parseBase64(entry.getBody());
      ours =
          body.signatureBase64().equals(Base64.getEncoder().encodeToString(signature))
              && body.hashValue().equalsIgnoreCase(Sha256.hex(message));
    } catch (IllegalArgumentException e) {
      ours = false;
    }
    if (!ours) {
      throw new RemoteProblem(
          "Rekor at " + url + " returned an entry for another signature while signing with a key",
          "perhaps you should check --rekor-url points at a Rekor v1 log");
    }
    return new RekorBundle(
        set, entry.getBody(), entry.getIntegratedTime(), entry.getLogIndex(), entry.getLogID());
  }
}
