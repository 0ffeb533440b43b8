package dev.countersign.verification;

import java.util.HexFormat;
import org.bouncycastle.asn1.ASN1Integer;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1Sequence;

/**
 * What identifies the act of signing behind a signature, the same for every form of it that
 * verifies. An ECDSA signature (r, s) has a second valid form, (r, n − s), that anyone can compute
 * without the key; its text differs, so comparing signature annotations as text would take a
 * flipped copy of an old signature for a new signing. Both forms share r (the x coordinate of the
 * signing nonce's point), which a fresh signing draws anew, so r identifies the signing. Other
 * signatures (RSA) are identified by their value. Used to recognise a replayed signature.
 */
public final class SigningEvent {

  private SigningEvent() {}

  /**
   * @param signature the decoded signature (DER for ECDSA)
   * @return {@code "ecdsa-r:<hex>"} for a DER SEQUENCE of two INTEGERs, else {@code "value:<hex>"};
   *     never null
   */
  public static String of(byte[] signature) {
    try {
      ASN1Primitive decoded = ASN1Primitive.fromByteArray(signature);
      if (decoded instanceof ASN1Sequence sequence
          && sequence.size() == 2
          && sequence.getObjectAt(0) instanceof ASN1Integer r
          && sequence.getObjectAt(1) instanceof ASN1Integer) {
        return "ecdsa-r:" + r.getPositiveValue().toString(16);
      }
    } catch (Exception notDer) {
      // Not an ECDSA signature: identified by its value below.
    }
    return "value:" + HexFormat.of().formatHex(signature);
  }
}
