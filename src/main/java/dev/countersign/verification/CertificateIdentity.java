package dev.countersign.verification;

import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;

/**
 * Who a Fulcio certificate names: its single SAN (URI or e-mail) and the OIDC issuer (extension
 * .1.8, else .1.1). The one reading of a certificate's identity that signing, verifying, promotion
 * and publishing share.
 *
 * @param subject the SAN
 * @param issuer the OIDC issuer
 */
public record CertificateIdentity(String subject, String issuer) {

  /**
   * @throws IllegalArgumentException when the SAN is not single or there is no issuer extension
   */
  public static CertificateIdentity of(X509Certificate certificate) {
    return FulcioCertificate.identity(certificate);
  }

  /**
   * @throws IllegalArgumentException when {@code pem} is not one certificate with one SAN and an
   *     issuer extension
   */
  public static CertificateIdentity ofPem(String pem) {
    return of(
        FulcioCertificate.parseSinglePem(pem.getBytes(StandardCharsets.UTF_8), "the certificate"));
  }
}
