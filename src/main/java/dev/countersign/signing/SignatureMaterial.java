package dev.countersign.signing;

import dev.countersign.manifest.RekorBundle;
import java.util.Optional;

/**
 * What one signature produced, in the encodings the annotations need.
 *
 * @param signature DER ECDSA signature over the raw message; its std-base64 form is the
 *     {@code signature} annotation and (for logged signatures) identical to the Rekor body's
 *     {@code signature.content}
 * @param certificatePem the Fulcio leaf certificate as one PEM block (keyless only), exactly the
 *     PEM that went into the Rekor entry
 * @param rekorBundle the SET-bearing entry built from the Rekor upload response (never from a
 *     search), when the signature was logged
 * @param sigstoreBundleJson a standard Sigstore bundle for the raw message, when available
 *     (for the optional {@code .sigstore.json} sidecar)
 * @param signer identity (certificate SAN) or key fingerprint ({@code sha256:...})
 */
public record SignatureMaterial(
    byte[] signature,
    Optional<String> certificatePem,
    Optional<RekorBundle> rekorBundle,
    Optional<String> sigstoreBundleJson,
    String signer) {}
