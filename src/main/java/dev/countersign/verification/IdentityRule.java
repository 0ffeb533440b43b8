package dev.countersign.verification;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * An allowed keyless signer: the certificate's SAN (URI or email) and the OIDC issuer it was issued
 * for (Fulcio extension 1.3.6.1.4.1.57264.1.8, falling back to .1.1). Each side is an exact string
 * or a regular expression that must match the whole value. The one place a signer is matched
 * against a rule.
 *
 * <p>A value class rather than a record so that a regular expression is compiled once, when the
 * rule is made, not at every document it is matched against.
 */
public final class IdentityRule {

  private final String subject;
  private final boolean subjectIsRegex;
  private final String issuer;
  private final boolean issuerIsRegex;
  private final Pattern subjectPattern;
  private final Pattern issuerPattern;

  /**
   * @throws java.util.regex.PatternSyntaxException when a side marked as a regular expression does
   *     not compile (callers that read user input check it first, to say where it came from)
   */
  public IdentityRule(
      String subject, boolean subjectIsRegex, String issuer, boolean issuerIsRegex) {
    this.subject = Objects.requireNonNull(subject, "subject");
    this.subjectIsRegex = subjectIsRegex;
    this.issuer = Objects.requireNonNull(issuer, "issuer");
    this.issuerIsRegex = issuerIsRegex;
    this.subjectPattern = subjectIsRegex ? Pattern.compile(subject) : null;
    this.issuerPattern = issuerIsRegex ? Pattern.compile(issuer) : null;
  }

  public static IdentityRule exact(String subject, String issuer) {
    return new IdentityRule(subject, false, issuer, false);
  }

  public String subject() {
    return subject;
  }

  public boolean subjectIsRegex() {
    return subjectIsRegex;
  }

  public String issuer() {
    return issuer;
  }

  public boolean issuerIsRegex() {
    return issuerIsRegex;
  }

  /** Both sides match; a missing value (null) matches nothing. */
  public boolean matches(String san, String certificateIssuer) {
    return matchesSubject(san) && matchesIssuer(certificateIssuer);
  }

  /** The subject side alone, for a signer whose issuer is not known (a certificate's SAN only). */
  public boolean matchesSubject(String san) {
    return matches(subject, subjectPattern, san);
  }

  /** The issuer side alone. */
  public boolean matchesIssuer(String certificateIssuer) {
    return matches(issuer, issuerPattern, certificateIssuer);
  }

  private static boolean matches(String expected, Pattern pattern, String actual) {
    if (actual == null) {
      return false;
    }
    return pattern != null ? pattern.matcher(actual).matches() : expected.equals(actual);
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof IdentityRule rule
        && subject.equals(rule.subject)
        && subjectIsRegex == rule.subjectIsRegex
        && issuer.equals(rule.issuer)
        && issuerIsRegex == rule.issuerIsRegex;
  }

  @Override
  public int hashCode() {
    return Objects.hash(subject, subjectIsRegex, issuer, issuerIsRegex);
  }

  @Override
  public String toString() {
    return (subjectIsRegex ? "subject~/" + subject + "/" : "subject=" + subject)
        + " "
        + (issuerIsRegex ? "issuer~/" + issuer + "/" : "issuer=" + issuer);
  }
}
