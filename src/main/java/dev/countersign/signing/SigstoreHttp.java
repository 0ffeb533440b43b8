package dev.countersign.signing;

import dev.countersign.support.problems.UsageProblem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * The HTTP transport of keyless signing (OIDC token, Fulcio REST, Rekor): the JDK's {@link
 * HttpURLConnection}, with its keep-alive connection cache shared by every request of the process.
 *
 * <p>Why not sigstore-java's clients: they open a gRPC/Netty channel for Fulcio and a new Apache
 * HttpClient (a new TCP and TLS connection) for every Rekor upload; at start-up that is ~1,400
 * classes and ~0.7 s, per signature several ms of CPU and a few hundred KB of garbage, and Netty's
 * epoll threads delay JVM exit by ~0.3 s (docs/performance.md). Why not {@code java.net.http}: its
 * selector thread sits in native code and delays JVM exit the same way, and JDK 17 cannot stop it.
 * {@code HttpURLConnection} has no background thread in native code, keeps connections alive, and
 * takes trust settings from the standard {@code javax.net.ssl.*} properties like the rest of the
 * JVM.
 *
 * <p>Each instance takes the JVM's trust settings ({@code javax.net.ssl.trustStore*}, else the
 * JRE's {@code cacerts}) at its first https request, and keeps one TLS socket factory, so its
 * connections can be reused.
 *
 * <p>Each request, from connecting to the last byte of the answer, has one deadline (90 s; see
 * {@link #exchange}), besides the connect and per-read timeouts and the 16 MiB cap on answers.
 *
 * <p>Thread-safe: every call opens its own connection object; idle connections are reused.
 */
final class SigstoreHttp {

  // The keep-alive cache keeps at most http.maxConnections idle connections per destination
  // (JDK default 5); the signing pool has up to --parallel requests in flight (by default at most
  // RekorUploads.OWN_LOG_IN_FLIGHT), so allow that many. Read once by the JDK when the first
  // connection is cached: set before any is made, unless the user chose a value.
  static {
    if (System.getProperty("http.maxConnections") == null) {
      System.setProperty("http.maxConnections", Integer.toString(RekorUploads.OWN_LOG_IN_FLIGHT));
    }
  }

  private static final int CONNECT_TIMEOUT_MS = 30_000;
  private static final int READ_TIMEOUT_MS = 60_000;
  private static final int MAX_BODY_BYTES = 16 * 1024 * 1024;

  /**
   * The deadline of each whole request (connect, TLS, request, headers, body): the old connect and
   * read timeouts together, so a request that used to fit both still does; a service that trickles
   * its answer fails instead of holding the run (and, in Actions, the OIDC token) for hours.
   */
  private static final Duration DEADLINE = Duration.ofSeconds(90);

  // The phases of a request, as its watchdog sees them.
  private static final int AWAITING_ANSWER = 0;
  private static final int READING_BODY = 1;
  private static final int EXPIRED = 2;

  /**
   * The one timer of every request's deadline, shared by all instances (keyless signing has up to
   * {@link RekorUploads#OWN_LOG_IN_FLIGHT} requests in flight): one daemon thread, started at the
   * first request and parked in Java between deadlines, so it neither costs a thread per request
   * nor holds the JVM at exit. Each request adds one task and cancels it when done; cancelled tasks
   * leave the queue at once, so it holds only the requests in flight.
   */
  private static final ScheduledThreadPoolExecutor DEADLINES = deadlines();

  private static ScheduledThreadPoolExecutor deadlines() {
    ScheduledThreadPoolExecutor timer =
        new ScheduledThreadPoolExecutor(
            1,
            task -> {
              Thread thread = new Thread(task, "countersign-http-deadlines");
              thread.setDaemon(true);
              return thread;
            });
    timer.setRemoveOnCancelPolicy(true);
    return timer;
  }

  /** A response: status, body (UTF-8), and the {@code Location} and {@code Retry-After} headers. */
  record Response(int status, String body, Optional<String> location, Optional<String> retryAfter) {
    boolean is(int expected) {
      return status == expected;
    }

    /** The first line of the body, for error messages (services put their JSON error here). */
    String bodyExcerpt() {
      String text = body.strip();
      int newline = text.indexOf('\n');
      text = newline < 0 ? text : text.substring(0, newline);
      return text.length() > 300 ? text.substring(0, 300) + "…" : text;
    }
  }

  // Told when a request has its connection, just before the request is written and the answer
  // awaited (once per request).
  private final Runnable onConnected;
  private final Duration deadline;

  /** A transport for the run's requests. */
  SigstoreHttp() {
    this(() -> {});
  }

  /**
   * A transport that runs {@code onConnected} each time a request has its connection (for https,
   * after the TLS handshake), right before the request is written and its answer awaited: from then
   * on the request needs next to no CPU of its own.
   */
  SigstoreHttp(Runnable onConnected) {
    this(onConnected, DEADLINE);
  }

  /** Like {@link #SigstoreHttp(Runnable)}, with {@code deadline} for each whole request. */
  SigstoreHttp(Runnable onConnected, Duration deadline) {
    this.onConnected = onConnected;
    this.deadline = deadline;
  }

  // Made on the first https request (guarded by this): a run whose services are all plain http
  // (a loopback Sigstore) never reads a trust store.
  private SSLSocketFactory tls;

  /**
   * The TLS socket factory of every https connection: the JVM's trust settings, read once.
   *
   * @throws UsageProblem when the configured trust store cannot be used
   */
  private synchronized SSLSocketFactory tls() {
    if (tls == null) {
      try {
        TrustManagerFactory trust =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init((KeyStore) null);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        tls = context.getSocketFactory();
      } catch (GeneralSecurityException e) {
        throw new UsageProblem(
            "Could not set up TLS for the Sigstore services: " + e.getMessage(),
            ", perhaps you should check the JDK's TLS set-up (javax.net.ssl.trustStore*)",
            e);
      }
    }
    return tls;
  }

  Response get(URI uri, Map<String, String> headers) throws IOException {
    return exchange(uri, "GET", headers, null);
  }

  Response postJson(URI uri, Map<String, String> headers, String json) throws IOException {
    return exchange(uri, "POST", headers, json.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * One request within {@link #deadline}: connect, TLS, request, headers and body. Past the
   * deadline it fails with a {@link SocketTimeoutException} ("did not answer in time"), which
   * callers treat like any other timeout (a transient failure that may be tried again).
   *
   * <p>Where the deadline is enforced: {@code HttpURLConnection} takes its connect and read
   * timeouts when the request starts (changing them later does nothing to the open socket) and
   * gives no access to its socket. So both timeouts are bounded by the deadline; until the answer's
   * headers are in, the shared {@link #DEADLINES} timer disconnects the request at the deadline
   * (that closes the socket and wakes a blocked write or header read; a connect under way ends by
   * its timeout, and the request stops there); while the body is read, the read loop checks the
   * deadline after every read (disconnecting there would not wake a blocked read: it waits for the
   * stream's lock), so a body read under way at the deadline ends at the latest by its read
   * timeout.
   */
  private Response exchange(URI uri, String method, Map<String, String> headers, byte[] body)
      throws IOException {
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    if (connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls());
    }
    long deadlineAt = System.nanoTime() + deadline.toNanos();
    int deadlineMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, deadline.toMillis()));
    connection.setConnectTimeout(Math.min(CONNECT_TIMEOUT_MS, deadlineMs));
    connection.setReadTimeout(Math.min(READ_TIMEOUT_MS, deadlineMs));
    AtomicInteger phase = new AtomicInteger(AWAITING_ANSWER);
    ScheduledFuture<?> watchdog =
        DEADLINES.schedule(
            () -> {
              if (phase.compareAndSet(AWAITING_ANSWER, EXPIRED)) {
                connection.disconnect();
              }
            },
            deadline.toNanos(),
            TimeUnit.NANOSECONDS);
    try {
      return exchange(connection, method, headers, body, uri, phase, deadlineAt);
    } catch (IOException | RuntimeException e) {
      // A disconnect by the watchdog surfaces as whatever the JDK was doing at the time ("Socket
      // closed", even a RuntimeException from its internals): report it as the timeout it is.
      if (phase.get() == EXPIRED
          || (e instanceof IOException && System.nanoTime() - deadlineAt >= 0)) {
        if (phase.get() != EXPIRED) {
          connection.disconnect(); // not back to the keep-alive cache half read
        }
        SocketTimeoutException timeout =
            new SocketTimeoutException(
                hostAndPort(uri)
                    + " did not answer in time ("
                    + describe(deadline)
                    + " for the whole request)");
        timeout.initCause(e);
        throw timeout;
      }
      throw e;
    } finally {
      watchdog.cancel(false);
    }
  }

  private Response exchange(
      HttpURLConnection connection,
      String method,
      Map<String, String> headers,
      byte[] body,
      URI uri,
      AtomicInteger phase,
      long deadlineAt)
      throws IOException {
    connection.setInstanceFollowRedirects(false);
    connection.setUseCaches(false);
    connection.setRequestMethod(method);
    headers.forEach(connection::setRequestProperty);
    if (body != null) {
      connection.setRequestProperty("Content-Type", "application/json");
      connection.setDoOutput(true);
      connection.setFixedLengthStreamingMode(body.length);
      try (OutputStream out = connection.getOutputStream()) {
        out.write(body);
      }
    }
    connection.connect(); // a no-op when writing the body connected it
    if (phase.get() == EXPIRED) {
      // the watchdog fired while connecting, when there was no socket yet to close
      throw new SocketTimeoutException("deadline passed while connecting"); // see exchange
    }
    onConnected.run();
    int status = connection.getResponseCode();
    // Read the body to its end (also on errors) so that the connection goes back to the cache.
    InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    if (!phase.compareAndSet(AWAITING_ANSWER, READING_BODY)) {
      throw new SocketTimeoutException("deadline passed before the body"); // see exchange
    }
    String text = "";
    if (in != null) {
      try (in) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) >= 0; ) {
          if (System.nanoTime() - deadlineAt >= 0) {
            throw new SocketTimeoutException("deadline passed in the body"); // see exchange
          }
          bytes.write(buffer, 0, n);
          if (bytes.size() > MAX_BODY_BYTES) {
            connection.disconnect();
            throw new IOException(uri + " answered with more than " + MAX_BODY_BYTES + " bytes");
          }
        }
        text = bytes.toString(StandardCharsets.UTF_8);
      }
    }
    return new Response(
        status,
        text,
        Optional.ofNullable(connection.getHeaderField("Location")),
        Optional.ofNullable(connection.getHeaderField("Retry-After")));
  }

  private static String hostAndPort(URI uri) {
    return uri.getPort() < 0 ? uri.getHost() : uri.getHost() + ":" + uri.getPort();
  }

  private static String describe(Duration duration) {
    return duration.toMillis() % 1000 == 0
        ? duration.toSeconds() + " s"
        : duration.toMillis() + " ms";
  }
}
