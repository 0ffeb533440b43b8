package dev.countersign.pipeline;

import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.signing.ReuseCheck;
import dev.countersign.signing.SignerIdentity;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Whether a signed file countersign did not produce in this run (on the branch, proposed on the bot
 * branch, on the base of a refresh) may be kept instead of signing again: only when it {@linkplain
 * ManifestVerifier#covers covers} exactly this content for this run's signer (same certificate
 * identity and issuer, or same key), verified like the gate verifies, and, when this run's keyed
 * signer logs its signatures ({@code --tlog-upload}), when the signature carries a log entry of its
 * own that verifies against the run's trust material, as one this run makes would. Bytes an author
 * or a branch pusher put there otherwise are replaced by a fresh signature.
 *
 * <p>Cheap when nothing can be kept: a file whose signed message is not this content is refused
 * before the signer's identity or the trusted root is asked for (so a run with nothing to reuse
 * requests no token and fetches no root). Thread-safe.
 *
 * <p>The one rule for both front doors: {@code run} asks it of the files on the branch and the bot
 * branch, and {@code sign} (through {@link ReuseCheck}) of the outputs already in place.
 */
public final class SignatureReuse implements ReuseCheck {

  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final Supplier<SignerIdentity> identity;
  private final Supplier<TrustedRoot> trustedRoot;
  private ManifestVerifier verifier;
  private ManifestVerifier reuseVerifier;

  /**
   * @param identity this run's signer (asked at most once, and only when a candidate signs this
   *     content)
   * @param trustedRoot Sigstore trust material to verify keyless candidates and the log entries of
   *     a logging keyed signer's candidates, the one the signer's own log entries are checked with
   *     (asked at most once, and only for those signers)
   */
  public SignatureReuse(
      ManifestReader reader,
      SignedManifestFormat format,
      Supplier<SignerIdentity> identity,
      Supplier<TrustedRoot> trustedRoot) {
    this.reader = reader;
    this.format = format;
    this.identity = Objects.requireNonNull(identity, "identity");
    this.trustedRoot = Objects.requireNonNull(trustedRoot, "trustedRoot");
  }

  /**
   * True when {@code signedBytes}, a signed file at {@code path}, carries a signature by this run's
   * signer over exactly {@code message} (logged, for a signer that logs), and its documents are
   * exactly that message.
   */
  public boolean covers(String path, byte[] signedBytes, byte[] message) {
    ManifestFile file;
    try {
      Path at = Path.of(path);
      file = new ManifestFile(at, at, reader.parse(signedBytes, at), signedBytes);
    } catch (InputProblem | IllegalArgumentException unreadable) {
      return false;
    }
    return covers(file, message);
  }

  /** {@link #covers(String, byte[], byte[])} for a file already read. */
  @Override
  public boolean covers(ManifestFile file, byte[] message) {
    if (file.documents().isEmpty() || !signsMessage(file, message)) {
      return false;
    }
    return reuseVerifier().covers(file, message);
  }

  private boolean signsMessage(ManifestFile file, byte[] message) {
    try {
      Optional<SignedContent> content = format.decoder().decode(file.documents().get(0));
      return content.isPresent() && Arrays.equals(content.get().message(), message);
    } catch (IllegalArgumentException undecodable) {
      return false;
    }
  }

  /**
   * The exact verifier for this run's signer (its certificate identity and issuer, or its key):
   * what {@code run --publish-to} checks every published file with. A keyed signature verifies by
   * the key alone here, as {@code verify --key} without a trusted root checks it, so that files
   * signed before the signer logged its signatures are published as before.
   */
  public synchronized ManifestVerifier verifier() {
    if (verifier == null) {
      verifier = verifierFor(identity.get(), false);
    }
    return verifier;
  }

  /** {@link #verifier()}, asking a logging keyed signer's signatures for their log entries. */
  private synchronized ManifestVerifier reuseVerifier() {
    if (reuseVerifier == null) {
      SignerIdentity signer = identity.get();
      reuseVerifier =
          signer instanceof SignerIdentity.Keyed keyed && keyed.logged()
              ? verifierFor(signer, true)
              : verifier();
    }
    return reuseVerifier;
  }

  private ManifestVerifier verifierFor(SignerIdentity signer, boolean keyedLogEntries) {
    if (signer instanceof SignerIdentity.Keyless keyless) {
      TrustPolicy policy =
          new TrustPolicy(
              List.of(IdentityRule.exact(keyless.subject(), keyless.issuer())),
              List.of(),
              1,
              List.of(),
              format.domain(),
              false);
      return new ManifestVerifier(trustedRoot.get(), policy, format);
    }
    SignerIdentity.Keyed keyed = (SignerIdentity.Keyed) signer;
    TrustPolicy policy =
        new TrustPolicy(
            List.of(),
            List.of(keyed.publicKey()),
            1,
            List.of(),
            format.domain(),
            false,
            keyedLogEntries);
    return new ManifestVerifier(keyedLogEntries ? trustedRoot.get() : null, policy, format);
  }
}
