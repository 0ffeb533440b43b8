package dev.countersign.signing;

import dev.countersign.manifest.RekorBundle;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * What one signature produced, in the encodings the annotations need.
 *
 * @param signature DER ECDSA signature over the raw message; its std-base64 form is the {@code
 *     signature} annotation and (for logged signatures) identical to the Rekor body's {@code
 *     signature.content}
 * @param certificatePem the Fulcio leaf certificate as one PEM block (keyless only), exactly the
 *     PEM that went into the Rekor entry
 * @param rekorBundle the SET-bearing entry built from the Rekor upload response (never from a
 *     search), when the signature was logged
 * @param sigstoreBundleSource makes the standard Sigstore bundle for the raw message, when
 *     available (for the optional {@code .sigstore.json} sidecar); called only by {@link
 *     #sigstoreBundleJson()}, because printing a bundle costs CPU that runs writing no sidecar
 *     should not pay
 * @param signer identity (certificate SAN) or key fingerprint ({@code sha256:...})
 */
public record SignatureMaterial(
    byte[] signature,
    Optional<String> certificatePem,
    Optional<RekorBundle> rekorBundle,
    Supplier<Optional<String>> sigstoreBundleSource,
    String signer) {

  public SignatureMaterial(
      byte[] signature,
      Optional<String> certificatePem,
      Optional<RekorBundle> rekorBundle,
      Optional<String> sigstoreBundleJson,
      String signer) {
    this(signature, certificatePem, rekorBundle, () -> sigstoreBundleJson, signer);
  }

  /** The standard Sigstore bundle JSON, when the signer can make one (computed on each call). */
  public Optional<String> sigstoreBundleJson() {
    return sigstoreBundleSource.get();
  }
}
