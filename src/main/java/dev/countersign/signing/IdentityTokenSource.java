package dev.countersign.signing;

import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.sigstore.oidc.client.GithubActionsOidcClient;
import dev.sigstore.oidc.client.OidcClient;
import dev.sigstore.oidc.client.OidcException;
import dev.sigstore.oidc.client.OidcToken;
import dev.sigstore.oidc.client.TokenStringOidcClient;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the OIDC identity token for Fulcio comes from, in order: an explicit token
 * ({@code --identity-token}), {@code SIGSTORE_ID_TOKEN}, then the GitHub Actions runner.
 *
 * <p>sigstore-java's {@code OidcClients} hands every client {@code System.getenv()}; this client
 * ignores that map and reads our {@link Env} instead, so tests and the Action decide what the
 * environment is.
 */
final class IdentityTokenSource implements OidcClient {

  static final String SIGSTORE_ID_TOKEN = "SIGSTORE_ID_TOKEN";
  static final String NO_TOKEN_HINT =
      ", perhaps you should add `permissions: id-token: write` to the job, or pass"
          + " --identity-token / SIGSTORE_ID_TOKEN, or sign with --key";

  /** How the token was obtained, for error messages and hints. */
  enum Kind {
    EXPLICIT("the --identity-token option"),
    ENVIRONMENT("SIGSTORE_ID_TOKEN"),
    GITHUB_ACTIONS("GitHub Actions");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  private final Kind kind;
  private final OidcClient delegate;
  private final Env env;
  private final Consumer<String> onTokenFetched;

  private IdentityTokenSource(Kind kind, OidcClient delegate, Env env, Consumer<String> onTokenFetched) {
    this.kind = kind;
    this.delegate = delegate;
    this.env = env;
    this.onTokenFetched = onTokenFetched;
  }

  /**
   * Picks the first available source.
   *
   * @throws EnvironmentProblem when there is no explicit token and no GitHub Actions token endpoint
   */
  static IdentityTokenSource choose(
      Optional<String> explicitToken, Env env, Consumer<String> onTokenFetched) {
    if (explicitToken.isPresent()) {
      return new IdentityTokenSource(
          Kind.EXPLICIT, TokenStringOidcClient.from(explicitToken.get()), env, onTokenFetched);
    }
    Optional<String> fromEnv = env.get(SIGSTORE_ID_TOKEN).map(String::trim);
    if (fromEnv.isPresent()) {
      return new IdentityTokenSource(
          Kind.ENVIRONMENT, TokenStringOidcClient.from(fromEnv.get()), env, onTokenFetched);
    }
    GithubActionsOidcClient github = GithubActionsOidcClient.builder().build();
    if (github.isEnabled(env.vars())) {
      return new IdentityTokenSource(Kind.GITHUB_ACTIONS, github, env, onTokenFetched);
    }
    throw new EnvironmentProblem(
        "No OIDC identity token is available while signing keylessly", NO_TOKEN_HINT);
  }

  Kind kind() {
    return kind;
  }

  @Override
  public boolean isEnabled(Map<String, String> ignoredProcessEnv) {
    return delegate.isEnabled(env.vars());
  }

  @Override
  public OidcToken getIDToken(Map<String, String> ignoredProcessEnv) throws OidcException {
    OidcToken token = delegate.getIDToken(env.vars());
    // Before anything else can print it: the Action masks runtime tokens (::add-mask::).
    onTokenFetched.accept(token.getIdToken());
    return token;
  }
}
