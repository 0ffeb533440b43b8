package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.regex.PatternSyntaxException;
import org.junit.jupiter.api.Test;

class IdentityRuleTest {

  private static final String ISSUER = "https://token.actions.githubusercontent.com";
  private static final String SAN =
      "https://github.com/acme/deploy/.github/workflows/sign.yml@refs/heads/main";

  @Test
  void exact_matchesOnlyTheSameSubjectAndIssuer() {
    IdentityRule rule = IdentityRule.exact(SAN, ISSUER);

    assertThat(rule.matches(SAN, ISSUER)).isTrue();
    assertThat(rule.matches(SAN + "x", ISSUER)).isFalse();
    assertThat(rule.matches(SAN, "https://accounts.google.com")).isFalse();
    assertThat(rule.matches(null, ISSUER)).isFalse();
    assertThat(rule.matches(SAN, null)).isFalse();
  }

  @Test
  void regex_mustMatchTheWholeValue() {
    IdentityRule rule =
        new IdentityRule(
            "https://github\\.com/acme/deploy/\\.github/workflows/[a-z-]+\\.yml@refs/heads/main",
            true,
            ISSUER,
            false);

    assertThat(rule.matches(SAN, ISSUER)).isTrue();
    // A fork's workflow contains the allowed subject but is not it.
    assertThat(rule.matches("https://evil.example/?" + SAN, ISSUER)).isFalse();
    assertThat(rule.matches(SAN + "/../x", ISSUER)).isFalse();
    assertThat(new IdentityRule("acme", true, ISSUER, false).matches(SAN, ISSUER)).isFalse();
  }

  @Test
  void matchesSubject_ignoresTheIssuer() {
    IdentityRule rule = new IdentityRule(".*@refs/heads/main", true, "unused", false);

    assertThat(rule.matchesSubject(SAN)).isTrue();
    assertThat(rule.matchesSubject(SAN.replace("main", "dev"))).isFalse();
    assertThat(rule.matchesSubject(null)).isFalse();
  }

  @Test
  void aRegexThatDoesNotCompile_isRefusedWhenTheRuleIsMade() {
    assertThatThrownBy(() -> new IdentityRule("(", true, ISSUER, false))
        .isInstanceOf(PatternSyntaxException.class);
  }

  @Test
  void rulesWithTheSameSides_areEqual() {
    assertThat(new IdentityRule("a.*", true, ISSUER, false))
        .isEqualTo(new IdentityRule("a.*", true, ISSUER, false))
        .hasSameHashCodeAs(new IdentityRule("a.*", true, ISSUER, false))
        .isNotEqualTo(new IdentityRule("a.*", false, ISSUER, false));
    assertThat(IdentityRule.exact("a", ISSUER)).hasToString("subject=a issuer=" + ISSUER);
  }
}
