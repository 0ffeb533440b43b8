package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What the keyless signer decides before it talks to any service; needs no Sigstore stack. */
class SigstoreKeylessSignerSetupTest {

  private static final byte[] MESSAGE = "kind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);

  @Test
  void construction_withoutAnyToken_touchesNothingUntilTheFirstSign() {
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(KeylessOptions.publicGood(), Env.empty(), Clock.systemUTC())) {
      assertThat(signer.signerDescription()).contains("not fetched yet");
    }
  }

  @Test
  void sign_withoutAnyToken_throwsEnvironmentProblemWithTheIdTokenHint() {
    // GITHUB_ACTIONS without the token request variables: the job lacks id-token: write.
    Env env = Env.of(Map.of("GITHUB_ACTIONS", "true", "ACTIONS_ID_TOKEN_REQUEST_URL", ""));
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(KeylessOptions.publicGood(), env, Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign(MESSAGE))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessage("No OIDC identity token is available while signing keylessly")
          .satisfies(
              e ->
                  assertThat(((CountersignException) e).exitCode()).isEqualTo(ExitCode.ENVIRONMENT))
          .satisfies(
              e ->
                  assertThat(((CountersignException) e).hint().orElseThrow())
                      .isEqualTo(
                          "perhaps you should add `permissions: id-token: write` to the job, or"
                              + " pass --identity-token / SIGSTORE_ID_TOKEN, or sign with --key"));
    }
  }

  @Test
  void sign_withTrustedRootButNoSigningConfig_throwsUsageProblem(@TempDir Path dir)
      throws Exception {
    Path root = Files.writeString(dir.resolve("trusted_root.json"), "{}");
    KeylessOptions options =
        new KeylessOptions(Optional.of(root), Optional.empty(), Optional.of("token"));
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(options, Env.empty(), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign(MESSAGE))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("--trusted-root and --signing-config");
    }
  }

  @Test
  void sign_withMissingTrustedRootFile_throwsUsageProblemNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("nope.json");
    KeylessOptions options =
        KeylessOptions.custom(missing, dir.resolve("signing_config.json"))
            .withIdentityToken("token");
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(options, Env.empty(), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign(MESSAGE))
          .isInstanceOf(UsageProblem.class)
          .hasMessageStartingWith(missing + ": cannot read the file given to --trusted-root");
    }
  }

  @Test
  void sign_withSomethingElseAsTrustedRoot_throwsUsageProblemNamingTheFile(@TempDir Path dir)
      throws Exception {
    Path notARoot =
        Files.writeString(dir.resolve("root.json"), "{\"mediaType\":\"application/json\"}");
    Path config = Files.writeString(dir.resolve("config.json"), "{}");
    KeylessOptions options = KeylessOptions.custom(notARoot, config).withIdentityToken("token");
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(options, Env.empty(), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign(MESSAGE))
          .isInstanceOf(UsageProblem.class)
          .hasMessageStartingWith(notARoot + ": not a usable Sigstore trusted root");
    }
  }

  @Test
  void options_toString_neverShowsTheToken() {
    KeylessOptions options =
        KeylessOptions.publicGood().withIdentityToken("eyJhbGciOi.secret-payload.sig");
    assertThat(options.toString()).doesNotContain("secret-payload").contains("(given)");
  }

  @Test
  void redact_removesJwtsFromServiceMessages() {
    assertThat(KeylessFailures.redact("bad token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln here"))
        .isEqualTo("bad token [token] here");
  }
}
