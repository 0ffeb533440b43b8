package dev.countersign.signing;

import dev.countersign.support.Env;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import dev.countersign.verification.SigstoreResponseVerifier;
import java.security.SecureRandom;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The first steps of keyless signing, started at process start on daemon threads, before the
 * command line is even parsed: the GitHub Actions identity token request and the ephemeral key,
 * then a warm-up of the signing and checking code with a throwaway key (nothing it signs leaves the
 * process). On a one-manifest keyless run the token, certificate and log round trips are most of
 * the wait, and parsing the command line, opening the repository and reading the trust material
 * take long enough to hide the first of them (docs/performance.md).
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
  public static final KeylessHeadStart NONE = new KeylessHeadStart(null, null);

  /**
   * How long the rest of the start-up waits at most for the token request to be under way (a slow
   * connection to the runner's endpoint must not hold the key back for long).
   */
  static final Duration TOKEN_REQUEST_HEAD_START = Duration.ofMillis(250);

  /** The runner's token endpoint and bearer a request went to. */
  private record Runner(String url, String bearer) {
    static Runner of(Env env) {
      return new Runner(
          env.exact(IdentityTokenSource.REQUEST_URL).orElse(""),
          env.exact(IdentityTokenSource.REQUEST_TOKEN).orElse(""));
    }

    /**
     * Field by field, not {@code equals}: a record's generated {@code equals} is bootstrapped
     * through method handles, several ms in a cold JVM, between the token's answer and Fulcio's
     * request.
     */
    boolean sameAs(Runner other) {
      return url.equals(other.url) && bearer.equals(other.bearer);
    }
  }

  /** What was started: the token request (and when it is under way), and the key. */
  private record Started(
      Future<String> jwt, CountDownLatch tokenRequestUnderWay, Future<EphemeralEcdsaKey> key) {}

  private final Runner runner; // null for NONE
  private final Started started; // null for NONE
  // Taken at most once each; the wait for them is outside any lock, so that taking the key never
  // waits for the token's round trip.
  private final AtomicBoolean tokenTaken = new AtomicBoolean();
  private final AtomicBoolean keyTaken = new AtomicBoolean();

  private KeylessHeadStart(Runner runner, Started started) {
    this.runner = runner;
    this.started = started;
  }

  /**
   * Starts the runner's token request and the key when a keyless signer in this environment would
   * ask the runner: the GitHub Actions variables are set and {@code SIGSTORE_ID_TOKEN} is not (an
   * explicit {@code --identity-token} is known only later; the signer then simply does not take the
   * token). {@link #NONE} otherwise.
   *
   * <p>The token request goes first: it is the first of the three round trips a one-manifest run
   * waits for, and before it leaves it needs CPU (the first {@code http} URL of a process scans
   * every jar of the class path, ~20 ms; an https connection adds the trust store and the TLS
   * handshake). The key, which is needed only once the token is back, is made after the request is
   * under way ({@link #awaitTokenRequestUnderWay}), and so should other start-up work that can
   * wait.
   */
  public static KeylessHeadStart request(Env env) {
    if (!IdentityTokenSource.githubActionsEnabled(env)
        || env.get(IdentityTokenSource.SIGSTORE_ID_TOKEN).isPresent()) {
      return NONE;
    }
    CountDownLatch underWay = new CountDownLatch(1);
    CompletableFuture<String> jwt = new CompletableFuture<>();
    onDaemonThread(
        "countersign-early-token",
        () -> {
          try {
            return IdentityTokenSource.fromGitHubActions(
                env, new SigstoreHttp(underWay::countDown));
          } finally {
            underWay.countDown(); // also when the request failed before it had a connection
          }
        },
        jwt,
        () -> {});
    CompletableFuture<EphemeralEcdsaKey> key = new CompletableFuture<>();
    onDaemonThread(
        "countersign-early-key",
        () -> {
          awaitQuietly(underWay);
          return keyAndTrustMaterialCode();
        },
        key,
        KeylessHeadStart::warmUpSigningCode);
    return new KeylessHeadStart(Runner.of(env), new Started(jwt, underWay, key));
  }

  /** Whether a token request was started (its answer may still be on its way). */
  boolean tokenRequested() {
    return started != null;
  }

  /**
   * Waits until the token request has its connection and is being written, has failed, or {@link
   * #TOKEN_REQUEST_HEAD_START} has passed; returns at once when no request was started.
   */
  public void awaitTokenRequestUnderWay() {
    if (started != null) {
      awaitQuietly(started.tokenRequestUnderWay());
    }
  }

  /**
   * The token, once, waiting for the request under way; empty when there was no request, it was
   * already taken, it failed (the caller asks again and reports what it meets), or {@code env}
   * names another token endpoint or bearer than the one asked with.
   */
  Optional<String> takeToken(Env env) {
    if (started == null
        || !Runner.of(env).sameAs(runner)
        || !tokenTaken.compareAndSet(false, true)) {
      return Optional.empty();
    }
    return result(started.jwt());
  }

  /** The ephemeral key, once, waiting for it; empty when none was made (the caller makes one). */
  Optional<EphemeralEcdsaKey> takeKey() {
    if (started == null || !keyTaken.compareAndSet(false, true)) {
      return Optional.empty();
    }
    return result(started.key());
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

  /**
   * Runs, with a throwaway key, the code the first signatures and checks of a run meet next: a
   * BouncyCastle ECDSA signature (the proof of possession, the message signatures), its
   * verification (the SCT, SET and checkpoint checks) and Jackson writing JSON (the Fulcio and
   * Rekor requests). In a cold JVM each costs several ms of class initialisation and interpreted
   * arithmetic, otherwise spent between a service's answer and the next request; here it overlaps
   * the token's round trip. The throwaway key signs one constant byte and is dropped: nothing it
   * signs leaves the process, and the run's own key signs nothing here.
   */
  private static void warmUpSigningCode() {
    EphemeralEcdsaKey throwaway = EphemeralEcdsaKey.generate(new SecureRandom());
    byte[] data = {0};
    SigstoreResponseVerifier.warmUpSignatureCheck(
        throwaway.publicKey(), data, throwaway.signDigest(Sha256.of(data)));
    Json.mapper().createObjectNode().put("warm", "up").toString();
  }

  /**
   * Completes {@code result} with {@code work}'s outcome on a daemon thread, then runs {@code
   * afterwards} there (its failures are dropped: it only prepares).
   */
  private static <T> void onDaemonThread(
      String name, Supplier<T> work, CompletableFuture<T> result, Runnable afterwards) {
    Thread thread =
        new Thread(
            () -> {
              try {
                result.complete(work.get());
              } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
                return;
              }
              try {
                afterwards.run();
              } catch (RuntimeException | LinkageError onlyAPreparation) {
                // the code it warms reports its own failures where it runs for real
              }
            },
            name);
    thread.setDaemon(true);
    thread.start();
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(TOKEN_REQUEST_HEAD_START.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
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
