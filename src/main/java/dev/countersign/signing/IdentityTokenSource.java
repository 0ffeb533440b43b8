package dev.countersign.signing;

import com.fasterxml.jackson.databind.JsonNode;
import dev.countersign.support.Env;
import dev.countersign.support.Json;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.net.URI;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * Where the OIDC identity token for Fulcio comes from, in order: an explicit token ({@code
 * --identity-token}), {@code SIGSTORE_ID_TOKEN}, then the GitHub Actions runner's token endpoint
 * ({@code ACTIONS_ID_TOKEN_REQUEST_URL} + {@code &audience=sigstore}, bearer {@code
 * ACTIONS_ID_TOKEN_REQUEST_TOKEN}; the request sigstore-java's {@code GithubActionsOidcClient}
 * makes, over {@link SigstoreHttp}).
 *
 * <p>The token is not verified here (Fulcio does that); it is only decoded for the subject whose
 * signature is the proof of possession, and the issuer. Variables are read from our {@link Env}, so
 * tests and the Action decide what the environment is.
 */
final class IdentityTokenSource {

  static final String SIGSTORE_ID_TOKEN = "SIGSTORE_ID_TOKEN";
  static final String REQUEST_URL = "ACTIONS_ID_TOKEN_REQUEST_URL";
  static final String REQUEST_TOKEN = "ACTIONS_ID_TOKEN_REQUEST_TOKEN";
  static final String NO_TOKEN_HINT =
      ", perhaps you should add `permissions: id-token: write` to the job, or pass"
          + " --identity-token / SIGSTORE_ID_TOKEN, or sign with --key";
  private static final String STEP = " while signing keylessly";

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

  /**
   * A token and the two claims signing needs.
   *
   * @param jwt the raw token, sent to Fulcio
   * @param subject the {@code sub} claim: the proof of possession is a signature over it
   * @param issuer the {@code iss} claim
   */
  record IdentityToken(String jwt, String subject, String issuer) {
    @Override
    public String toString() {
      return "IdentityToken[subject=" + subject + ", issuer=" + issuer + "]";
    }
  }

  private final Kind kind;
  // The raw token, over the given transport (used only by the runner's endpoint).
  private final Function<SigstoreHttp, String> obtain;
  private final Consumer<String> onTokenFetched;

  private IdentityTokenSource(
      Kind kind, Function<SigstoreHttp, String> obtain, Consumer<String> onTokenFetched) {
    this.kind = kind;
    this.obtain = obtain;
    this.onTokenFetched = onTokenFetched;
  }

  /**
   * Picks the first available source.
   *
   * @param early a GitHub Actions token requested at start-up, taken by the first {@link #fetch} of
   *     a GitHub Actions source instead of asking the runner again
   * @throws EnvironmentProblem when there is no explicit token and no GitHub Actions token endpoint
   */
  static IdentityTokenSource choose(
      Optional<String> explicitToken,
      Env env,
      Consumer<String> onTokenFetched,
      KeylessHeadStart early) {
    if (explicitToken.isPresent()) {
      String token = explicitToken.get();
      return new IdentityTokenSource(Kind.EXPLICIT, http -> token, onTokenFetched);
    }
    Optional<String> fromEnv = env.get(SIGSTORE_ID_TOKEN).map(String::trim);
    if (fromEnv.isPresent()) {
      String token = fromEnv.get();
      return new IdentityTokenSource(Kind.ENVIRONMENT, http -> token, onTokenFetched);
    }
    if (githubActionsEnabled(env)) {
      return new IdentityTokenSource(
          Kind.GITHUB_ACTIONS,
          http -> early.takeToken(env).orElseGet(() -> fromGitHubActions(env, http)),
          onTokenFetched);
    }
    throw new EnvironmentProblem(
        "No OIDC identity token is available while signing keylessly", NO_TOKEN_HINT);
  }

  /** As sigstore-java's GitHub Actions client: all three variables set and non-empty. */
  static boolean githubActionsEnabled(Env env) {
    return nonEmpty(env, "GITHUB_ACTIONS")
        && nonEmpty(env, REQUEST_TOKEN)
        && nonEmpty(env, REQUEST_URL);
  }

  private static boolean nonEmpty(Env env, String name) {
    return env.exact(name).filter(v -> !v.isEmpty()).isPresent();
  }

  Kind kind() {
    return kind;
  }

  /**
   * Obtains the token (for GitHub Actions, the early one if it was requested and has not been taken
   * yet); hands it to the callback (the Action masks it) before anything else can print it.
   *
   * @throws EnvironmentProblem when the token is not a JWT, or the runner refuses to issue one
   * @throws RemoteProblem when the runner's token endpoint fails
   */
  IdentityToken fetch(SigstoreHttp http) {
    String jwt = obtain.apply(http);
    onTokenFetched.accept(jwt);
    return decode(jwt);
  }

  /** The runner's token for audience {@code sigstore}, asked for over {@code http}. */
  static String fromGitHubActions(Env env, SigstoreHttp http) {
    String url = env.exact(REQUEST_URL).orElse("") + "&audience=sigstore";
    String what = "The GitHub Actions OIDC token endpoint did not return a token" + STEP + ": ";
    SigstoreHttp.Response response;
    try {
      response =
          http.get(
              URI.create(url),
              Map.of(
                  "Authorization",
                  "Bearer " + env.exact(REQUEST_TOKEN).orElse(""),
                  "Accept",
                  "application/json; api-version=2.0"));
    } catch (IOException | IllegalArgumentException e) {
      throw new RemoteProblem(
          what + KeylessFailures.describe(e),
          KeylessFailures.RETRY_HINT
              + "; if it persists, check that the job has `permissions: id-token: write`",
          e);
    }
    if (response.status() == 401 || response.status() == 403) {
      // The runner refused ACTIONS_ID_TOKEN_REQUEST_TOKEN: a job configuration matter.
      throw new EnvironmentProblem(
          what + "HTTP " + response.status(),
          ", perhaps you should add `permissions: id-token: write` to the job");
    }
    if (!response.is(200)) {
      throw new RemoteProblem(
          what + "HTTP " + response.status() + " " + KeylessFailures.redact(response.bodyExcerpt()),
          KeylessFailures.RETRY_HINT
              + "; if it persists, check that the job has `permissions: id-token: write`");
    }
    try {
      String value = Json.mapper().readTree(response.body()).path("value").asText("");
      if (!value.isEmpty()) {
        return value;
      }
    } catch (IOException e) {
      // reported below
    }
    throw new RemoteProblem(what + "the answer has no \"value\"", KeylessFailures.RETRY_HINT);
  }

  private IdentityToken decode(String jwt) {
    String[] parts = jwt.split("\\.", -1);
    try {
      if (parts.length == 3) {
        JsonNode claims = Json.mapper().readTree(Base64.getUrlDecoder().decode(parts[1]));
        String subject = claims.path("sub").asText("");
        if (!subject.isEmpty()) {
          return new IdentityToken(jwt, subject, claims.path("iss").asText(""));
        }
      }
    } catch (IOException | IllegalArgumentException e) {
      // reported below, without the token
    }
    CountersignException problem =
        kind == Kind.GITHUB_ACTIONS
            ? new RemoteProblem(
                "The GitHub Actions OIDC token endpoint returned a token that is not a readable JWT"
                    + " with a subject"
                    + STEP,
                KeylessFailures.RETRY_HINT)
            : new EnvironmentProblem(
                "The OIDC identity token from "
                    + kind.description
                    + " is not a readable JWT"
                    + STEP,
                ", perhaps you should pass the raw token (three base64url parts separated by"
                    + " dots)");
    throw problem;
  }
}
