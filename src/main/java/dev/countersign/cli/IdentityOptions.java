package dev.countersign.cli;

import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * The keyless signer a verifying command accepts, spelled as cosign spells it: {@code
 * --certificate-identity[-regexp]} with {@code --certificate-oidc-issuer[-regexp]}. One rule, used
 * by {@code verify} and {@code promote}, so that both read a half-given identity and a broken
 * regular expression the same way: as a usage error, never as "any signer".
 */
final class IdentityOptions {

  @ArgGroup(exclusive = true)
  Subject subject;

  @ArgGroup(exclusive = true)
  Issuer issuer;

  static final class Subject {
    @Option(
        names = "--certificate-identity",
        paramLabel = "SAN",
        required = true,
        description =
            "Accept keyless signatures whose certificate SAN is exactly this (e.g."
                + " https://github.com/ORG/REPO/.github/workflows/F.yml@refs/heads/main).")
    String exact;

    @Option(
        names = "--certificate-identity-regexp",
        paramLabel = "REGEX",
        required = true,
        description = "Accept certificate SANs that this regular expression matches in full.")
    String regex;
  }

  static final class Issuer {
    @Option(
        names = "--certificate-oidc-issuer",
        paramLabel = "URL",
        required = true,
        description =
            "Required OIDC issuer of the certificate (e.g."
                + " https://token.actions.githubusercontent.com).")
    String exact;

    @Option(
        names = "--certificate-oidc-issuer-regexp",
        paramLabel = "REGEX",
        required = true,
        description = "OIDC issuer regular expression, matched in full.")
    String regex;
  }

  /**
   * The rule the options give, or empty when neither side was given.
   *
   * @throws UsageProblem when only one side was given, or a regular expression does not compile
   */
  Optional<IdentityRule> rule() {
    if (subject == null && issuer == null) {
      return Optional.empty();
    }
    if (subject == null || issuer == null) {
      throw new UsageProblem(
          "A keyless identity needs both a subject and an issuer",
          "pass --certificate-identity (or -regexp) together with --certificate-oidc-issuer (or"
              + " -regexp)");
    }
    return Optional.of(
        new IdentityRule(
            subject.exact != null
                ? subject.exact
                : compiled("--certificate-identity-regexp", subject.regex),
            subject.exact == null,
            issuer.exact != null
                ? issuer.exact
                : compiled("--certificate-oidc-issuer-regexp", issuer.regex),
            issuer.exact == null));
  }

  private static String compiled(String option, String regex) {
    try {
      Pattern.compile(regex);
      return regex;
    } catch (PatternSyntaxException e) {
      throw new UsageProblem(
          "Invalid " + option + " \"" + regex + "\": " + e.getDescription(),
          "write a Java regular expression that matches the whole value");
    }
  }
}
