package dev.countersign.signing;

import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.Map;
import java.util.Optional;
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
    this.onConnected = onConnected;
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

  private Response exchange(URI uri, String method, Map<String, String> headers, byte[] body)
      throws IOException {
    HttpURLConnection connection = (HttpURLConnection) uri.toURL().openConnection();
    if (connection instanceof HttpsURLConnection https) {
      https.setSSLSocketFactory(tls());
    }
    connection.setConnectTimeout(CONNECT_TIMEOUT_MS);
    connection.setReadTimeout(READ_TIMEOUT_MS);
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
    onConnected.run();
    int status = connection.getResponseCode();
    // Read the body to its end (also on errors) so that the connection goes back to the cache.
    InputStream in = status >= 400 ? connection.getErrorStream() : connection.getInputStream();
    String text = "";
    if (in != null) {
      try (in) {
        byte[] bytes = in.readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
          connection.disconnect();
          throw new IOException(uri + " answered with more than " + MAX_BODY_BYTES + " bytes");
        }
        text = new String(bytes, StandardCharsets.UTF_8);
      }
    }
    return new Response(
        status,
        text,
        Optional.ofNullable(connection.getHeaderField("Location")),
        Optional.ofNullable(connection.getHeaderField("Retry-After")));
  }
}
