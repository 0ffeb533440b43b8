package dev.countersign.signing;

import java.security.PublicKey;
import java.util.Objects;

/**
 * Who a {@link MessageSigner} signs as: what a signature made earlier must have been made by for
 * countersign to keep it instead of signing again.
 */
public sealed interface SignerIdentity {

  /**
   * A keyless signer: the certificate's subject alternative name and the OIDC issuer Fulcio records
   * in it.
   */
  record Keyless(String subject, String issuer) implements SignerIdentity {
    public Keyless {
      Objects.requireNonNull(subject, "subject");
      Objects.requireNonNull(issuer, "issuer");
    }
  }

  /**
   * A key pair signer, named by its public key.
   *
   * @param logged whether it records every signature in a transparency log ({@code --tlog-upload}),
   *     so that a signature it keeps must carry a log entry that verifies too
   */
  record Keyed(PublicKey publicKey, boolean logged) implements SignerIdentity {
    public Keyed {
      Objects.requireNonNull(publicKey, "publicKey");
    }
  }
}
