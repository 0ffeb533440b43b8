package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.EnvironmentProblem;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The identity a keyless run signs as, read from its token's claims as Fulcio maps them. */
class TokenIdentityTest {

  private static String jwt(String claimsJson) {
    Base64.Encoder url = Base64.getUrlEncoder().withoutPadding();
    return url.encodeToString("{\"alg\":\"RS256\"}".getBytes(StandardCharsets.UTF_8))
        + "."
        + url.encodeToString(claimsJson.getBytes(StandardCharsets.UTF_8))
        + ".c2ln";
  }

  @Test
  void githubActionsToken_isTheJobWorkflowRefAsAGithubUri() {
    SignerIdentity identity =
        SigstoreKeylessSigner.identityFromToken(
            jwt(
                "{\"iss\":\"https://token.actions.githubusercontent.com\",\"sub\":\"repo:acme/deploy:ref:refs/heads/main\","
                    + "\"job_workflow_ref\":\"acme/deploy/.github/workflows/sign.yml@refs/heads/main\",\"email\":\"x@y.z\"}"));

    assertThat(identity)
        .isEqualTo(
            new SignerIdentity.Keyless(
                "https://github.com/acme/deploy/.github/workflows/sign.yml@refs/heads/main",
                "https://token.actions.githubusercontent.com"));
  }

  @Test
  void otherIssuers_useTheEmailClaim_elseTheSubject() {
    assertThat(
            SigstoreKeylessSigner.identityFromToken(
                jwt(
                    "{\"iss\":\"https://accounts.google.com\",\"sub\":\"123\",\"email\":\"dev@example.com\"}")))
        .isEqualTo(new SignerIdentity.Keyless("dev@example.com", "https://accounts.google.com"));
    assertThat(
            SigstoreKeylessSigner.identityFromToken(
                jwt("{\"iss\":\"https://issuer.example\",\"sub\":\"spiffe://x/y\"}")))
        .isEqualTo(new SignerIdentity.Keyless("spiffe://x/y", "https://issuer.example"));
    // A job_workflow_ref claim from another issuer is not GitHub's: it does not pick the subject.
    assertThat(
            SigstoreKeylessSigner.identityFromToken(
                jwt(
                    "{\"iss\":\"https://issuer.example\",\"sub\":\"s\",\"job_workflow_ref\":\"acme/deploy/x.yml@refs/heads/main\"}")))
        .isEqualTo(new SignerIdentity.Keyless("s", "https://issuer.example"));
  }

  @Test
  void tokensWithoutIssuerOrSubject_orNotJwts_areEnvironmentProblems() {
    assertThatThrownBy(() -> SigstoreKeylessSigner.identityFromToken(jwt("{\"sub\":\"s\"}")))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("names no issuer or subject");
    assertThatThrownBy(() -> SigstoreKeylessSigner.identityFromToken("not-a-jwt"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("is not a JSON Web Token");
  }
}
