package dev.countersign.verification;

import dev.countersign.support.Sha256;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.asn1.ASN1Encodable;
import org.bouncycastle.asn1.ASN1EncodableVector;
import org.bouncycastle.asn1.ASN1Encoding;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Sequence;
import org.bouncycastle.asn1.ASN1TaggedObject;
import org.bouncycastle.asn1.BERTags;
import org.bouncycastle.asn1.DERSequence;
import org.bouncycastle.asn1.DERTaggedObject;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.Extensions;

/**
 * The signed certificate timestamps (SCTs) Fulcio embeds in its certificates (RFC 6962 §3.3): at
 * least one must be a valid v1 precertificate SCT by a certificate transparency log of the trusted
 * root, valid when it signed. Parsing uses BouncyCastle's ASN.1 classes; the signature goes through
 * {@link EcdsaVerification}.
 */
final class EmbeddedSct {

  /** The SignedCertificateTimestampList extension. */
  static final String SCT_LIST_OID = "1.3.6.1.4.1.11129.2.4.2";

  private EmbeddedSct() {}

  /**
   * @param issuer the certificate that signed {@code leaf} (its key hash is part of what the SCT
   *     signs)
   * @throws IllegalArgumentException with the reason when no embedded SCT verifies
   */
  static void verify(X509Certificate leaf, X509Certificate issuer, TrustedRoot trustedRoot) {
    byte[] extension = leaf.getExtensionValue(SCT_LIST_OID);
    if (extension == null) {
      throw new IllegalArgumentException("the certificate has no embedded SCT");
    }
    List<String> failures = new ArrayList<>();
    byte[] signedTbs = null;
    for (byte[] sct : scts(extension)) {
      ByteBuffer in = ByteBuffer.wrap(sct);
      try {
        int version = in.get();
        byte[] logId = new byte[32];
        in.get(logId);
        long timestamp = in.getLong();
        byte[] extensions = new byte[Short.toUnsignedInt(in.getShort())];
        in.get(extensions);
        int hashAlgorithm = in.get();
        in.get(); // signature algorithm: implied by the log's key
        byte[] signature = new byte[Short.toUnsignedInt(in.getShort())];
        in.get(signature);
        if (version != 0 || hashAlgorithm != 4 || in.hasRemaining()) {
          failures.add("an SCT that is not a v1 SHA-256 SCT");
          continue;
        }
        String hexLogId = HexFormat.of().formatHex(logId);
        var log = trustedRoot.certificateTransparencyLog(hexLogId);
        Instant signedAt = Instant.ofEpochMilli(timestamp);
        if (log.isEmpty()) {
          failures.add("an SCT by CT log " + hexLogId + ", which the trusted root does not name");
          continue;
        }
        if (!log.get().validAt(signedAt)) {
          failures.add(
              "an SCT by CT log " + hexLogId + " at " + signedAt + ", when it was not valid");
          continue;
        }
        if (signedTbs == null) {
          signedTbs = tbsWithoutScts(leaf);
        }
        byte[] signed = signedData(timestamp, issuer, signedTbs, extensions);
        if (EcdsaVerification.verifySha256(log.get().key(), signed, signature)) {
          return;
        }
        failures.add("an SCT by CT log " + hexLogId + " whose signature does not verify");
      } catch (BufferUnderflowException e) {
        failures.add("a truncated SCT");
      }
    }
    throw new IllegalArgumentException(
        "no embedded SCT verifies with a CT log of the trusted root"
            + (failures.isEmpty() ? " (the list is empty)" : " " + failures));
  }

  /**
   * Runs the precertificate reconstruction of {@link #verify} on {@code certificate} and drops the
   * result: in a cold JVM BouncyCastle's ASN.1 parsing and encoding cost a few ms the first time.
   */
  static void warmUp(X509Certificate certificate) {
    tbsWithoutScts(certificate);
  }

  /**
   * The SCTs of the extension: OCTET STRING { OCTET STRING { u16 length, (u16 length, SCT)* } }.
   */
  private static List<byte[]> scts(byte[] extension) {
    ByteBuffer list;
    try {
      byte[] inner = ASN1OctetString.getInstance(extension).getOctets();
      list = ByteBuffer.wrap(ASN1OctetString.getInstance(inner).getOctets());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the certificate's SCT list is not an OCTET STRING", e);
    }
    List<byte[]> scts = new ArrayList<>();
    try {
      int total = Short.toUnsignedInt(list.getShort());
      if (total != list.remaining()) {
        throw new IllegalArgumentException("the certificate's SCT list has a wrong length");
      }
      while (list.hasRemaining()) {
        byte[] sct = new byte[Short.toUnsignedInt(list.getShort())];
        list.get(sct);
        scts.add(sct);
      }
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("the certificate's SCT list is truncated", e);
    }
    return scts;
  }

  /** The precertificate's TBSCertificate: the leaf's, without the SCT list extension. */
  private static byte[] tbsWithoutScts(X509Certificate leaf) {
    try {
      ASN1Sequence certificate = ASN1Sequence.getInstance(leaf.getEncoded());
      ASN1Sequence tbs = ASN1Sequence.getInstance(certificate.getObjectAt(0));
      ASN1EncodableVector fields = new ASN1EncodableVector();
      for (ASN1Encodable field : tbs) {
        if (field instanceof ASN1TaggedObject tagged
            && tagged.getTagClass() == BERTags.CONTEXT_SPECIFIC
            && tagged.getTagNo() == 3) {
          Extensions extensions = Extensions.getInstance(tagged.getExplicitBaseObject());
          ASN1EncodableVector kept = new ASN1EncodableVector();
          for (var oid : extensions.getExtensionOIDs()) {
            if (!oid.getId().equals(SCT_LIST_OID)) {
              Extension extension = extensions.getExtension(oid);
              kept.add(extension);
            }
          }
          fields.add(new DERTaggedObject(true, 3, new DERSequence(kept)));
        } else {
          fields.add(field);
        }
      }
      return new DERSequence(fields).getEncoded(ASN1Encoding.DER);
    } catch (CertificateEncodingException | IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("the certificate cannot be re-encoded for its SCT", e);
    }
  }

  /** RFC 6962 §3.2 digitally-signed struct of a precert_entry v1 SCT. */
  private static byte[] signedData(
      long timestamp, X509Certificate issuer, byte[] tbs, byte[] extensions) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(tbs.length + 128);
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(0); // sct_version v1
      out.writeByte(0); // signature_type certificate_timestamp
      out.writeLong(timestamp);
      out.writeShort(1); // entry_type precert_entry
      out.write(Sha256.of(issuer.getPublicKey().getEncoded())); // issuer_key_hash
      out.writeByte(tbs.length >>> 16);
      out.writeShort(tbs.length & 0xffff);
      out.write(tbs);
      out.writeShort(extensions.length);
      out.write(extensions);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return bytes.toByteArray();
  }
}
