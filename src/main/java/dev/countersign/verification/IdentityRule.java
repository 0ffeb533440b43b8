package dev.countersign.verification;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An allowed keyless signer: the certificate's SAN (URI or email) and the OIDC issuer it was issued
 * for (Fulcio extension 1.3.6.1.4.1.57264.1.8, falling back to .1.1). Each side is an exact string
 * or a regular expression that must match the whole value.
 */
public record IdentityRule(
    String subject, boolean subjectIsRegex, String issuer, boolean issuerIsRegex) {

  public IdentityRule {
    Objects.requireNonNull(subject, "subject");
    Objects.requireNonNull(issuer, "issuer");
  }

  public static IdentityRule exact(String subject, String issuer) {
    return new IdentityRule(subject, false, issuer, false);
  }

  public boolean matches(String san, String certificateIssuer) {
    return matches(subject, subjectIsRegex, san)
        && matches(issuer, issuerIsRegex, certificateIssuer);
  }

  private static boolean matches(String expected, boolean regex, String actual) {
    if (actual == null) {
      return false;
    }
    return regex ? Pattern.compile(expected).matcher(actual).matches() : expected.equals(actual);
  }

  @Override
  public String toString() {
    return (subjectIsRegex ? "subject~/" + subject + "/" : "subject=" + subject)
        + " "
        + (issuerIsRegex ? "issuer~/" + issuer + "/" : "issuer=" + issuer);
  }
}
