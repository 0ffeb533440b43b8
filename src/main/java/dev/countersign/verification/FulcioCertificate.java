package dev.countersign.verification;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.cert.CertPath;
import java.security.cert.CertPathValidator;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateParsingException;
import java.security.cert.PKIXParameters;
import java.security.cert.TrustAnchor;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.Date;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.bouncycastle.asn1.ASN1OctetString;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.ASN1String;

/** Reading the parts of a Fulcio leaf certificate that identify the signer. */
final class FulcioCertificate {

  /** Fulcio "OIDC issuer (v2)": DER UTF8String. */
  static final String ISSUER_V2_OID = "1.3.6.1.4.1.57264.1.8";

  /** Fulcio "OIDC issuer" (deprecated): the raw string bytes. */
  static final String ISSUER_V1_OID = "1.3.6.1.4.1.57264.1.1";

  private static final int SAN_RFC822 = 1;
  private static final int SAN_URI = 6;

  // Go's pem.Decode: the block, then only the line end it consumes may follow.
  private static final Pattern SINGLE_PEM =
      Pattern.compile(
          "\\A-----BEGIN CERTIFICATE-----\\r"
              + "?\\n"
              + "([A-Za-z0-9+/=\\r"
              + "\\n"
              + "]+)-----END CERTIFICATE-----\\r"
              + "?\\n"
              + "?\\z");

  private FulcioCertificate() {}

  /**
   * The certificate in {@code pem}, which must be exactly one {@code CERTIFICATE} block with
   * nothing after it (cosign's {@code comparePublicKey} requires the same).
   *
   * @throws IllegalArgumentException with a user-facing reason otherwise
   */
  static X509Certificate parseSinglePem(byte[] pem, String what) {
    String text = new String(pem, StandardCharsets.UTF_8);
    Matcher m = SINGLE_PEM.matcher(text);
    if (!m.matches()) {
      throw new IllegalArgumentException(what + " is not a single PEM CERTIFICATE block");
    }
    try {
      byte[] der = Base64.getMimeDecoder().decode(m.group(1));
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
    } catch (CertificateException | IllegalArgumentException e) {
      throw new IllegalArgumentException(
          what + " is not a valid X.509 certificate: " + e.getMessage(), e);
    }
  }

  /**
   * The certificate's only SAN (an email or a URI).
   *
   * @throws IllegalArgumentException when there is not exactly one SAN of those types
   */
  static String singleSubjectAlternativeName(X509Certificate cert) {
    Collection<List<?>> names;
    try {
      names = cert.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException(
          "its subject alternative names cannot be parsed: " + e.getMessage(), e);
    }
    if (names == null || names.isEmpty()) {
      throw new IllegalArgumentException(
          "it has no subject alternative name (a Fulcio certificate has exactly one)");
    }
    if (names.size() != 1) {
      List<String> values = new ArrayList<>();
      names.forEach(n -> values.add(String.valueOf(n.get(1))));
      throw new IllegalArgumentException(
          "it has "
              + names.size()
              + " subject alternative names "
              + values
              + " (a Fulcio certificate has exactly one)");
    }
    List<?> name = names.iterator().next();
    int type = (Integer) name.get(0);
    if (type != SAN_RFC822 && type != SAN_URI) {
      throw new IllegalArgumentException(
          "its subject alternative name " + name.get(1) + " is neither an email nor a URI");
    }
    return String.valueOf(name.get(1));
  }

  /**
   * The signer identity: the single SAN and the OIDC issuer.
   *
   * @throws IllegalArgumentException when the SAN is not single or there is no issuer extension
   */
  static CertificateIdentity identity(X509Certificate cert) {
    String san = singleSubjectAlternativeName(cert);
    String issuer =
        issuer(cert)
            .orElseThrow(
                () -> new IllegalArgumentException("the certificate has no OIDC issuer extension"));
    return new CertificateIdentity(san, issuer);
  }

  /** The OIDC issuer from extension .1.8 (UTF8String), else .1.1 (raw bytes). */
  static Optional<String> issuer(X509Certificate cert) {
    byte[] v2 = extensionValue(cert, ISSUER_V2_OID);
    if (v2 != null) {
      try {
        ASN1Primitive value = ASN1Primitive.fromByteArray(v2);
        if (value instanceof ASN1String s) {
          return Optional.of(s.getString());
        }
      } catch (IOException e) {
        // malformed: fall back to the legacy extension, which Fulcio also writes
      }
    }
    byte[] v1 = extensionValue(cert, ISSUER_V1_OID);
    return v1 == null ? Optional.empty() : Optional.of(new String(v1, StandardCharsets.UTF_8));
  }

  /**
   * The certificate authority of {@code trustedRoot}, valid at {@code at}, whose chain {@code leaf}
   * extends, checked by the JDK's PKIX validator at {@code at} (signatures, validity, CA
   * constraints; no revocation: Fulcio certificates live minutes).
   *
   * @throws IllegalArgumentException with the reason when there is none
   */
  static TrustedRoot.CertificateAuthority issuingAuthority(
      TrustedRoot trustedRoot, X509Certificate leaf, Instant at) {
    List<String> failures = new ArrayList<>();
    for (TrustedRoot.CertificateAuthority ca : trustedRoot.certificateAuthorities()) {
      if (!ca.validAt(at)) {
        continue;
      }
      try {
        List<X509Certificate> path = new ArrayList<>();
        path.add(leaf);
        path.addAll(ca.chain().subList(0, ca.chain().size() - 1));
        validatePath(path, ca.root(), at);
        return ca;
      } catch (GeneralSecurityException e) {
        failures.add(ca.uri() + ": " + e.getMessage());
      }
    }
    throw new IllegalArgumentException(
        "the certificate (issuer "
            + leaf.getIssuerX500Principal().getName()
            + ") does not chain to a certificate authority of the trusted root valid at "
            + at
            + (failures.isEmpty() ? " (none was valid then)" : " " + failures));
  }

  /**
   * PKIX validation of {@code path} (most specific certificate first) up to the trust anchor {@code
   * root}, at {@code at}, without revocation checks.
   */
  static void validatePath(List<X509Certificate> path, X509Certificate root, Instant at)
      throws GeneralSecurityException {
    CertPath certPath = CertificateFactory.getInstance("X.509").generateCertPath(path);
    PKIXParameters params = new PKIXParameters(Set.of(new TrustAnchor(root, null)));
    params.setRevocationEnabled(false);
    params.setDate(Date.from(at));
    CertPathValidator.getInstance("PKIX").validate(certPath, params);
  }

  /** Why {@code leaf} was not valid when the log integrated its entry, or empty when it was. */
  static Optional<String> validityProblem(X509Certificate leaf, Instant integratedTime) {
    Instant notBefore = leaf.getNotBefore().toInstant();
    Instant notAfter = leaf.getNotAfter().toInstant();
    if (integratedTime.isBefore(notBefore) || integratedTime.isAfter(notAfter)) {
      return Optional.of(
          "the certificate was not valid at the entry's integratedTime "
              + integratedTime
              + " (valid "
              + notBefore
              + " to "
              + notAfter
              + ")");
    }
    return Optional.empty();
  }

  /** The extnValue contents (the JDK returns them wrapped in an OCTET STRING). */
  private static byte[] extensionValue(X509Certificate cert, String oid) {
    byte[] wrapped = cert.getExtensionValue(oid);
    if (wrapped == null) {
      return null;
    }
    try {
      return ASN1OctetString.getInstance(wrapped).getOctets();
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
