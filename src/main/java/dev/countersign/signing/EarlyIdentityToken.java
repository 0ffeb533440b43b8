package dev.countersign.signing;

import dev.countersign.support.Env;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

/**
 * A GitHub Actions identity token requested at start-up, on a daemon thread, before the command
 * line is even parsed: on a one-manifest keyless run the token, certificate and log round trips are
 * most of the wait, and parsing the command line and opening the repository take long enough to
 * hide the first of them (docs/performance.md).
 *
 * <p>A token is not a signature: it only lets its holder ask Fulcio for a certificate, and nothing
 * is certified or signed here. The keyless signer takes it ({@link #take}) for its first GitHub
 * Actions token instead of asking the runner again, and hands it to its {@code onTokenFetched}
 * callback (the Action masks it) before any use, as for a token it fetched itself. A run that never
 * signs keylessly never takes it: the token stays in memory, unprinted, and is dropped.
 */
public final class EarlyIdentityToken {

  /** No early request: the signer asks the runner itself. */
  public static final EarlyIdentityToken NONE = new EarlyIdentityToken(null, null, null);

  private final String requestUrl;
  private final String requestToken;
  private final CompletableFuture<String> jwt;
  private boolean taken; // guarded by this

  private EarlyIdentityToken(
      String requestUrl, String requestToken, CompletableFuture<String> jwt) {
    this.requestUrl = requestUrl;
    this.requestToken = requestToken;
    this.jwt = jwt;
  }

  /**
   * Starts the runner's token request when a keyless signer in this environment would make it: the
   * GitHub Actions variables are set and {@code SIGSTORE_ID_TOKEN} is not (an explicit {@code
   * --identity-token} is known only later; the signer then simply does not take this one). {@link
   * #NONE} otherwise.
   */
  public static EarlyIdentityToken request(Env env) {
    if (!IdentityTokenSource.githubActionsEnabled(env)
        || env.get(IdentityTokenSource.SIGSTORE_ID_TOKEN).isPresent()) {
      return NONE;
    }
    CompletableFuture<String> jwt = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                jwt.complete(IdentityTokenSource.fromGitHubActions(env, new SigstoreHttp()));
              } catch (RuntimeException | Error e) {
                jwt.completeExceptionally(e);
              }
            },
            "countersign-early-token");
    thread.setDaemon(true);
    thread.start();
    return new EarlyIdentityToken(
        env.exact(IdentityTokenSource.REQUEST_URL).orElse(""),
        env.exact(IdentityTokenSource.REQUEST_TOKEN).orElse(""),
        jwt);
  }

  /**
   * The token, once, waiting for the request under way; empty when there was no request, it was
   * already taken, it failed (the caller asks again and reports what it meets), or {@code env}
   * names another token endpoint than the one asked.
   */
  synchronized Optional<String> take(Env env) {
    if (jwt == null
        || !env.exact(IdentityTokenSource.REQUEST_URL).orElse("").equals(requestUrl)
        || !env.exact(IdentityTokenSource.REQUEST_TOKEN).orElse("").equals(requestToken)) {
      return Optional.empty();
    }
    if (taken) {
      return Optional.empty();
    }
    taken = true;
    try {
      return Optional.of(jwt.get());
    } catch (ExecutionException failedAskAgain) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
