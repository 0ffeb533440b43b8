package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The identity token requested at start-up, taken by the keyless signer against the loopback
 * stack's GitHub Actions token endpoint: used once instead of a second request, masked before use
 * like a token the signer fetched itself, and never used where the run's own environment would ask
 * elsewhere.
 */
@RequiresSigstoreStack
class KeylessHeadStartTest {

  private final SigstoreTestStack stack;
  private final List<String> fetchedTokens = new CopyOnWriteArrayList<>();

  KeylessHeadStartTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void cleanStack() {
    stack.clearFaults();
    stack.resetStats();
  }

  @AfterEach
  void clearFaults() {
    stack.clearFaults();
  }

  @Test
  void sign_withTheStartUpToken_usesItInsteadOfAskingTheRunnerAgain() {
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = KeylessHeadStart.request(env);

    try (SigstoreKeylessSigner signer = signer(env, early)) {
      assertThat(signer.sign(bytes("one")).signer()).isEqualTo(stack.identitySan());
      assertThat(signer.sign(bytes("two")).signer()).isEqualTo(stack.identitySan());
    }

    assertThat(tokenRequests()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isEqualTo(1);
    // Handed to the callback (the Action's ::add-mask::) like a token the signer asked for.
    assertThat(fetchedTokens).hasSize(1);
    assertThat(fetchedTokens.get(0)).matches("[\\w-]+\\.[\\w-]+\\.[\\w-]+");
  }

  @Test
  void sign_whenTheStartUpRequestFailed_asksTheRunnerAgainAndSigns() {
    stack.injectFault("{\"oidc\":{\"after\":0,\"status\":500,\"count\":1}}");
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = KeylessHeadStart.request(env);

    try (SigstoreKeylessSigner signer = signer(env, early)) {
      assertThat(signer.sign(bytes("one")).signer()).isEqualTo(stack.identitySan());
    }

    assertThat(tokenRequests()).isEqualTo(2);
    assertThat(fetchedTokens).hasSize(1);
  }

  @Test
  void sign_whenTheRunAsksWithAnotherRunnerToken_doesNotUseTheStartUpToken() {
    KeylessHeadStart early = KeylessHeadStart.request(Env.of(stack.githubEnv()));
    Map<String, String> other = new HashMap<>(stack.githubEnv());
    other.put("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "not-the-runners-token");

    try (SigstoreKeylessSigner signer = signer(Env.of(other), early)) {
      // The runner refuses the run's own bearer: the start-up token must not paper over that.
      assertThatThrownBy(() -> signer.sign(bytes("one")))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessageContaining("HTTP 401");
    }

    assertThat(stack.stats().certificates()).isZero();
    assertThat(fetchedTokens).isEmpty();
  }

  @Test
  void sign_withAnExplicitToken_signsWithItAndLeavesTheStartUpTokenUnused() {
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = KeylessHeadStart.request(env);
    String explicit = stack.tokenFor(Map.of());

    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig())
                .withIdentityToken(explicit),
            env,
            Clock.systemUTC(),
            fetchedTokens::add,
            early)) {
      signer.sign(bytes("one"));
    }

    assertThat(fetchedTokens).containsExactly(explicit);
  }

  @Test
  void request_withoutTheRunnerVariablesOrWithSigstoreIdToken_asksNothing() {
    Map<String, String> withSigstoreToken = new HashMap<>(stack.githubEnv());
    withSigstoreToken.put("SIGSTORE_ID_TOKEN", stack.tokenFor(Map.of()));
    Map<String, String> notInActions = new HashMap<>(stack.githubEnv());
    notInActions.remove("GITHUB_ACTIONS");

    assertThat(KeylessHeadStart.request(Env.of(withSigstoreToken))).isSameAs(KeylessHeadStart.NONE);
    assertThat(KeylessHeadStart.request(Env.of(notInActions))).isSameAs(KeylessHeadStart.NONE);
    assertThat(KeylessHeadStart.request(Env.empty())).isSameAs(KeylessHeadStart.NONE);
    assertThat(tokenRequests()).isZero();
  }

  private SigstoreKeylessSigner signer(Env env, KeylessHeadStart early) {
    return new SigstoreKeylessSigner(
        KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig()),
        env,
        Clock.systemUTC(),
        fetchedTokens::add,
        early);
  }

  private int tokenRequests() {
    return stack.stats().raw().path("requests").path("oidc.token").asInt();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
