package dev.countersign.signing;

import dev.countersign.support.Env;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * The first steps of keyless signing, started at process start on daemon threads, before the
 * command line is even parsed: the GitHub Actions identity token request and the ephemeral key. On
 * a one-manifest keyless run the token, certificate and log round trips are most of the wait, and
 * parsing the command line, opening the repository and reading the trust material take long enough
 * to hide the first of them (docs/performance.md).
 *
 * <p>A token and a key are not a signature: nothing is certified or signed here, and Fulcio is
 * asked only where it was before. The keyless signer takes the token ({@link #takeToken}) for its
 * first GitHub Actions token instead of asking the runner again, and hands it to its {@code
 * onTokenFetched} callback (the Action masks it) before any use, as for a token it fetched itself;
 * it takes the key ({@link #takeKey}) instead of generating one. A run that never signs keylessly
 * takes neither: they stay in memory, unprinted, and are dropped.
 */
public final class KeylessHeadStart {

  /** Nothing started: the signer asks the runner and makes its key itself. */
  public static final KeylessHeadStart NONE = new KeylessHeadStart(null, null, null, null);

  private final String requestUrl;
  private final String requestToken;
  private final Future<String> jwt;
  private final Future<EphemeralEcdsaKey> key;
  private boolean tokenTaken; // guarded by this
  private boolean keyTaken; // guarded by this

  private KeylessHeadStart(
      String requestUrl, String requestToken, Future<String> jwt, Future<EphemeralEcdsaKey> key) {
    this.requestUrl = requestUrl;
    this.requestToken = requestToken;
    this.jwt = jwt;
    this.key = key;
  }

  /**
   * Starts the runner's token request and the key when a keyless signer in this environment would
   * ask the runner: the GitHub Actions variables are set and {@code SIGSTORE_ID_TOKEN} is not (an
   * explicit {@code --identity-token} is known only later; the signer then simply does not take the
   * token). {@link #NONE} otherwise.
   */
  public static KeylessHeadStart request(Env env) {
    if (!IdentityTokenSource.githubActionsEnabled(env)
        || env.get(IdentityTokenSource.SIGSTORE_ID_TOKEN).isPresent()) {
      return NONE;
    }
    return new KeylessHeadStart(
        env.exact(IdentityTokenSource.REQUEST_URL).orElse(""),
        env.exact(IdentityTokenSource.REQUEST_TOKEN).orElse(""),
        onDaemonThread(
            "countersign-early-token",
            () -> IdentityTokenSource.fromGitHubActions(env, new SigstoreHttp())),
        onDaemonThread("countersign-early-key", KeylessHeadStart::keyAndTrustMaterialCode));
  }

  /**
   * The token, once, waiting for the request under way; empty when there was no request, it was
   * already taken, it failed (the caller asks again and reports what it meets), or {@code env}
   * names another token endpoint or bearer than the one asked with.
   */
  synchronized Optional<String> takeToken(Env env) {
    if (jwt == null
        || tokenTaken
        || !env.exact(IdentityTokenSource.REQUEST_URL).orElse("").equals(requestUrl)
        || !env.exact(IdentityTokenSource.REQUEST_TOKEN).orElse("").equals(requestToken)) {
      return Optional.empty();
    }
    tokenTaken = true;
    return result(jwt);
  }

  /** The ephemeral key, once, waiting for it; empty when none was made (the caller makes one). */
  synchronized Optional<EphemeralEcdsaKey> takeKey() {
    if (key == null || keyTaken) {
      return Optional.empty();
    }
    keyTaken = true;
    return result(key);
  }

  /**
   * The key, then the first use of what reading the trust material meets next (X.509 parsing, RFC
   * 3339 times): loading and initialising those classes is most of a cold start's cost of setting
   * up the signer.
   */
  private static EphemeralEcdsaKey keyAndTrustMaterialCode() {
    EphemeralEcdsaKey made = EphemeralEcdsaKey.generate(new SecureRandom());
    try {
      CertificateFactory.getInstance("X.509");
    } catch (CertificateException metAgainWhereUsed) {
      // the trust material's reader reports it
    }
    Instant.parse("2026-01-01T00:00:00Z");
    return made;
  }

  private static <T> Future<T> onDaemonThread(String name, Supplier<T> work) {
    CompletableFuture<T> result = new CompletableFuture<>();
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(work.get());
              } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
    return result;
  }

  private static <T> Optional<T> result(Future<T> future) {
    try {
      return Optional.of(future.get());
    } catch (ExecutionException failedDoItAgain) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
