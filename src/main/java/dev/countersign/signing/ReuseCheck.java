package dev.countersign.signing;

import dev.countersign.manifest.ManifestFile;

/**
 * Whether a signed file already where a signature goes may be kept instead of signing again: the
 * port through which {@link SignJob} asks the one rule that {@code run} keeps files by ({@code
 * pipeline.SignatureReuse}: a signature by this job's signer, verified, over exactly this content).
 */
@FunctionalInterface
public interface ReuseCheck {

  /**
   * True when {@code signed} carries a signature by this job's signer that verifies over exactly
   * {@code message}, and its documents are exactly that message. Asked only for a file whose
   * signature annotations already carry {@code message}, so a job with nothing to keep asks
   * nothing.
   */
  boolean covers(ManifestFile signed, byte[] message);
}
