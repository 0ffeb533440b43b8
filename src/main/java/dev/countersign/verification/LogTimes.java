package dev.countersign.verification;

import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.support.Memoized;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * When signature sets were logged, as far as a trusted root proves it. A bundle's {@code
 * integratedTime} is a number anyone can edit: it counts only when the bundle's SET verifies with a
 * transparency log of the trusted root and its entry binds this message and this signature. The
 * trusted root is asked for on the first set that carries a bundle, never before. Thread-safe.
 */
public final class LogTimes {

  private final Supplier<KeylessSetVerifier> proofs;

  /**
   * @param trustedRoot asked for at most once, when a set with a bundle is first looked at
   */
  public LogTimes(Supplier<TrustedRoot> trustedRoot) {
    this.proofs = Memoized.of(() -> new KeylessSetVerifier(trustedRoot.get()));
  }

  /** The time {@code set} was logged, signing {@code message}; empty when that is not proven. */
  public OptionalLong of(byte[] message, SignatureSetAnnotations set) {
    if (set.problem().isPresent() || set.bundle().isEmpty()) {
      return OptionalLong.empty();
    }
    return proofs.get().checkLogged(message, set).isEmpty()
        ? OptionalLong.of(set.bundle().get().integratedTime())
        : OptionalLong.empty();
  }
}
