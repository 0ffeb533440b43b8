package dev.countersign.signing;

/**
 * Signs the raw message of a manifest file (the bytes inside the {@code message} annotation).
 *
 * <p>Implementations are thread-safe: the sign job calls {@link #sign} from a bounded pool so that
 * transparency-log uploads overlap. Expensive clients (Fulcio, TUF) are built lazily on the first
 * call, so a run with nothing to sign never builds them.
 */
public interface MessageSigner extends AutoCloseable {

  /**
   * Signs {@code message} (SHA-256 with ECDSA P-256, DER signature).
   *
   * @throws dev.countersign.support.problems.CountersignException with a remote or environment exit
   *     code when a service or the identity token cannot be had
   */
  SignatureMaterial sign(byte[] message);

  /**
   * Says that signatures will be asked for soon: a signer may start fetching what the first
   * signature needs (token, certificate) in the background. Failures surface in {@link #sign}.
   */
  default void prepare() {}

  /**
   * Says that signatures may be asked for soon: a signer may start fetching what the first
   * signature needs short of a certificate (trust material, key, identity token) in the background.
   * Nothing is certified or signed until {@link #prepare} or {@link #sign}. Failures surface in
   * {@link #sign}.
   */
  default void prepareIdentity() {}

  /**
   * Says that no signature will be asked for after all: what {@link #prepare} or {@link
   * #prepareIdentity} started stops before contacting another service, or has finished, when this
   * returns.
   */
  default void cancelPreparation() {}

  /**
   * How many signatures to keep in flight when the user chose no number: what the services this
   * signer waits on can take. By default the processors' count, for a signer that waits on nothing.
   */
  default int suggestedInFlight() {
    return Runtime.getRuntime().availableProcessors();
  }

  /** Who signs, for logs and the reviewer comment: an identity (SAN) or a key fingerprint. */
  String signerDescription();

  /**
   * Who this signer signs as, known without signing anything (keyless: from the identity token's
   * claims, as Fulcio will put them in the certificate; no Fulcio call). A signature made earlier
   * is kept only when it verifies for this identity.
   *
   * @throws dev.countersign.support.problems.CountersignException when the identity cannot be had
   *     (no identity token)
   */
  SignerIdentity identity();

  @Override
  default void close() {}
}
