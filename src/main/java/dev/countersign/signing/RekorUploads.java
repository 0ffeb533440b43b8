package dev.countersign.signing;

import dev.countersign.support.RetryTiming;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.verification.RekorEntryBody;
import dev.countersign.verification.RekorLogEntry;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;

/**
 * Posts entries to one Rekor v1 log, and tries again where the log was busy or briefly failing, as
 * cosign's client does; {@link #log} takes an answer only when it is the entry sent and the
 * caller's proofs check holds, the one path keyless and keyed signing share.
 *
 * <ul>
 *   <li>Tried again, up to {@link #ATTEMPTS} tries in all: no answer (connection refused, reset or
 *       timed out; not a TLS failure, which a new try cannot mend), 429, and 5xx other than 501.
 *   <li>The wait is the log's {@code Retry-After} when it sends one (longer than {@link
 *       #LONGEST_WAIT}: no wait, the upload fails), else jittered exponential backoff from {@link
 *       #FIRST_BACKOFF}. The wait holds back every upload of the run, not only the one that failed:
 *       a log that throttles one request is not sent a hundred more meanwhile.
 *   <li>A try whose answer was lost may have logged the entry: the next try then gets 409 with the
 *       entry's {@code Location}, and the entry is fetched from there (on the same log only).
 *   <li>Each hold that starts while none is running is told as a warning (one line, not one per
 *       upload), so a run that waits says why.
 * </ul>
 *
 * <p>Thread-safe: the sign job's pool posts through one instance.
 */
final class RekorUploads {

  /** Tries per entry, the first included (cosign's client also gives up after four). */
  static final int ATTEMPTS = 4;

  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);

  /** The longest {@code Retry-After} waited for; a log asking for more fails the upload at once. */
  static final Duration LONGEST_WAIT = Duration.ofSeconds(60);

  /**
   * Uploads in flight by default against a log that Sigstore runs for everyone (public-good,
   * staging): it publishes no rate limit, limits by address, and asks heavy users to run their own.
   */
  static final int SHARED_LOG_IN_FLIGHT = 32;

  /**
   * Uploads in flight by default against any other log (one's own, named by a signing config): 500
   * manifests at 150 ms per round trip take 4 rounds instead of 16 (docs/performance.md).
   */
  static final int OWN_LOG_IN_FLIGHT = 128;

  /** The log's answer for an accepted entry: the entry JSON, and where the log serves it. */
  record Answer(String body, URI location) {}

  /** A checked entry: parsed, its raw JSON and location (for the Sigstore bundle). */
  record Logged(RekorLogEntry entry, String response, URI location) {}

  private final URI log;
  private final URI entries;
  private final SigstoreHttp http;
  private final Clock clock;
  private final Sleeper sleeper;
  private final RandomGenerator random;
  private final Consumer<String> warnings;
  private final RekorFailures failures;
  // System.nanoTime() before which no upload is sent (guarded by this).
  private long resumeAt;

  /**
   * @param warnings told when uploads start to wait (see above)
   * @param failures how problems name the step and the options to check
   */
  RekorUploads(
      URI log,
      SigstoreHttp http,
      Clock clock,
      Sleeper sleeper,
      RandomGenerator random,
      Consumer<String> warnings,
      RekorFailures failures) {
    this.log = log;
    this.entries = log.resolve("/api/v1/log/entries");
    this.http = http;
    this.clock = clock;
    this.sleeper = sleeper;
    this.random = random;
    this.warnings = warnings;
    this.failures = failures;
    this.resumeAt = System.nanoTime();
  }

  /** The log's address. */
  URI log() {
    return log;
  }

  /**
   * Uploads in flight by default against {@code log}: {@link #SHARED_LOG_IN_FLIGHT} for a log on
   * Sigstore's own domains ({@code sigstore.dev}, {@code sigstage.dev}), else {@link
   * #OWN_LOG_IN_FLIGHT}.
   */
  static int inFlightFor(URI log) {
    String host = Optional.ofNullable(log.getHost()).orElse("").toLowerCase(Locale.ROOT);
    for (String shared : new String[] {"sigstore.dev", "sigstage.dev"}) {
      if (host.equals(shared) || host.endsWith("." + shared)) {
        return SHARED_LOG_IN_FLIGHT;
      }
    }
    return OWN_LOG_IN_FLIGHT;
  }

  /**
   * Posts {@code payload}, a {@code hashedrekord} request in Rekor's canonical form ({@link
   * RekorEntryBody#hashedRekordRequest}), and returns the entry the log answers with, once its body
   * is the request byte for byte (as sigstore-java's signer compares: so the signature, digest and
   * key or certificate can be taken from our side of the exchange) and {@code proofs} accepts it.
   *
   * @param proofs checks the entry's SET, inclusion proof, checkpoint and time against the trusted
   *     root ({@code SigstoreResponseVerifier}); throws {@link IllegalArgumentException} with the
   *     reason when they do not hold
   * @throws CountersignException (remote) as {@link #post} does, or when the answer is not that
   *     entry or does not verify
   */
  Logged log(String payload, Consumer<RekorLogEntry> proofs) {
    Answer answer = post(payload);
    RekorLogEntry entry;
    byte[] body;
    try {
      entry = RekorLogEntry.parse(answer.body().getBytes(StandardCharsets.UTF_8));
      body = Base64.getDecoder().decode(entry.bundle().body());
    } catch (IllegalArgumentException e) {
      throw failures.untrusted("unreadable answer: " + KeylessFailures.describe(e), e);
    }
    if (!Arrays.equals(body, payload.getBytes(StandardCharsets.UTF_8))) {
      throw failures.notTheUpload();
    }
    try {
      proofs.accept(entry);
    } catch (IllegalArgumentException e) {
      throw failures.untrusted(e.getMessage(), e);
    }
    return new Logged(entry, answer.body(), answer.location());
  }

  /**
   * Posts one proposed entry ({@code payload}, JSON) and returns the log's answer for it, after as
   * many tries as the rules above allow.
   *
   * @throws CountersignException (remote) when the log refuses the entry, keeps failing, asks for a
   *     longer wait than countersign gives, or cannot be reached
   */
  Answer post(String payload) {
    for (int attempt = 1; ; attempt++) {
      awaitResume();
      SigstoreHttp.Response response;
      try {
        response = http.postJson(entries, Map.of("Accept", "application/json"), payload);
      } catch (IOException e) {
        if (attempt >= ATTEMPTS || KeylessFailures.isTls(e)) {
          throw failures.unreachable(e, attempt);
        }
        holdBack(
            RetryTiming.backoff(attempt, FIRST_BACKOFF, random),
            "A log entry upload got no answer from Rekor (" + KeylessFailures.describe(e) + ")",
            attempt);
        continue;
      }
      if (response.is(201)) {
        return new Answer(response.body(), location(response));
      }
      if (response.is(409)) {
        return alreadyLogged(response);
      }
      if (!isTransient(response.status()) || attempt >= ATTEMPTS) {
        throw failures.status(response, attempt);
      }
      Optional<Duration> asked =
          response.retryAfter().flatMap(value -> RetryTiming.retryAfter(value, clock.instant()));
      if (asked.isPresent() && asked.get().compareTo(LONGEST_WAIT) > 0) {
        throw failures.asksToWait(response, asked.get(), LONGEST_WAIT);
      }
      holdBack(
          asked.isPresent() ? asked.get() : RetryTiming.backoff(attempt, FIRST_BACKOFF, random),
          "Rekor answered a log entry upload with HTTP " + response.status(),
          attempt);
    }
  }

  private static boolean isTransient(int status) {
    return status == 429 || (status >= 500 && status != 501);
  }

  /**
   * Holds every upload back for {@code wait} from now (a longer hold already set stays), and tells
   * the user when this starts a hold.
   */
  private void holdBack(Duration wait, String why, int failedTry) {
    boolean starts;
    synchronized (this) {
      long now = System.nanoTime();
      long until = now + wait.toNanos();
      starts = resumeAt - now <= 0;
      if (until - resumeAt > 0) {
        resumeAt = until;
      }
    }
    if (starts) {
      warnings.accept(
          why
              + "; every upload waits "
              + Math.max(1, Math.round(wait.toMillis() / 1000.0))
              + " s, then tries again (try "
              + (failedTry + 1)
              + " of "
              + ATTEMPTS
              + ")");
    }
  }

  private void awaitResume() {
    long remaining;
    synchronized (this) {
      remaining = resumeAt - System.nanoTime();
    }
    if (remaining <= 0) {
      return;
    }
    try {
      sleeper.sleep(Duration.ofNanos(remaining));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalProblem("Interrupted while waiting to retry the Rekor upload", null, e);
    }
  }

  /**
   * The entry an earlier try logged: Rekor's 409 names it in {@code Location}, on this log. The
   * caller checks that it is the proposed entry, as for a 201.
   */
  private Answer alreadyLogged(SigstoreHttp.Response conflict) {
    URI location = location(conflict);
    if (!sameOrigin(location, log)) {
      throw failures.untrusted("its 409 answer points at another server: " + location, null);
    }
    SigstoreHttp.Response fetched;
    try {
      fetched = http.get(location, Map.of("Accept", "application/json"));
    } catch (IOException e) {
      throw failures.unreachable(e, 1);
    }
    if (!fetched.is(200)) {
      throw failures.status(fetched, 1);
    }
    return new Answer(fetched.body(), location);
  }

  private URI location(SigstoreHttp.Response response) {
    String header =
        response
            .location()
            .orElseThrow(
                () ->
                    failures.untrusted(
                        "no Location header in its " + response.status() + " answer", null));
    try {
      return entries.resolve(header);
    } catch (IllegalArgumentException e) {
      throw failures.untrusted("unreadable Location header", e);
    }
  }

  private static boolean sameOrigin(URI a, URI b) {
    return a.getScheme() != null
        && a.getScheme().equalsIgnoreCase(String.valueOf(b.getScheme()))
        && a.getHost() != null
        && a.getHost().equalsIgnoreCase(String.valueOf(b.getHost()))
        && port(a) == port(b);
  }

  private static int port(URI uri) {
    return uri.getPort() >= 0
        ? uri.getPort()
        : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
  }
}
