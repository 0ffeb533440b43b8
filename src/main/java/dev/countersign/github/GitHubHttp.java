package dev.countersign.github;

import dev.countersign.support.BoundedBody;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.kohsuke.github.connector.GitHubConnector;
import org.kohsuke.github.connector.GitHubConnectorRequest;
import org.kohsuke.github.connector.GitHubConnectorResponse;

/**
 * The HTTP transport under hub4j (below {@link RetryingConnector}, which retries what fails here),
 * in place of hub4j's default connector, which has neither of these:
 *
 * <ul>
 *   <li><b>Only the API's origin.</b> A request is sent only to the scheme, host and port of the
 *       API URL. hub4j sends the next page of a list to whatever URL the {@code Link: rel="next"}
 *       header names, with the token; a URL elsewhere is refused before anything is sent ({@link
 *       RemoteProblem}, never retried).
 *   <li><b>One deadline per request</b>, from sending it to the last byte of the answer (hub4j's
 *       default connector has no timeout at all, so a connection that stalls, or an answer that
 *       trickles, held the job until its 6-hour timeout). Past it the request fails with {@link
 *       HttpTimeoutException}, an {@link IOException} that {@link RetryingConnector} retries like
 *       any request that got no answer.
 *   <li>Answers are read whole, at most {@value #MAX_BODY} bytes.
 * </ul>
 */
final class GitHubHttp implements GitHubConnector {

  /**
   * Deadline of one request. GitHub ends a REST request that takes it more than 10 s to process, so
   * a minute is ample for a slow network.
   */
  static final Duration DEADLINE = Duration.ofSeconds(60);

  /** Largest answer read (a page of pull requests is well under a megabyte). */
  static final long MAX_BODY = 16L * 1024 * 1024;

  private final URI api;
  private final Duration deadline;
  private final HttpClient http;

  /**
   * @param apiUrl the REST endpoint; its origin is the only one requests go to
   * @throws EnvironmentProblem when {@code apiUrl} is not an http(s) URL with a host
   */
  GitHubHttp(String apiUrl, Duration deadline) {
    this.api = origin(apiUrl);
    this.deadline = deadline;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(deadline)
            // hub4j follows redirects itself (and each hop comes back through send).
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public GitHubConnectorResponse send(GitHubConnectorRequest request) throws IOException {
    URI target = uri(request.url());
    if (!sameOrigin(target)) {
      throw new RemoteProblem(
          "countersign did not send "
              + request.method()
              + " "
              + target
              + ": it is not on the GitHub API at "
              + api
              + ", and the token goes only there",
          "perhaps a page link or redirect in GitHub's answer pointed elsewhere; check"
              + " GITHUB_API_URL and any proxy in front of the API");
    }
    HttpRequest.Builder builder = HttpRequest.newBuilder(target);
    for (Map.Entry<String, List<String>> header : request.allHeaders().entrySet()) {
      if (header.getKey() != null && header.getValue() != null) {
        builder.header(header.getKey(), String.join(",", header.getValue()));
      }
    }
    HttpRequest.BodyPublisher body = HttpRequest.BodyPublishers.noBody();
    if (request.hasBody()) {
      try (InputStream in = request.body()) {
        body = HttpRequest.BodyPublishers.ofByteArray(in == null ? new byte[0] : in.readAllBytes());
      }
    }
    builder.method(request.method(), body);
    CompletableFuture<HttpResponse<byte[]>> pending =
        http.sendAsync(builder.build(), info -> new BoundedBody(MAX_BODY));
    try {
      HttpResponse<byte[]> answer = pending.get(deadline.toNanos(), TimeUnit.NANOSECONDS);
      return new Answer(request, answer.statusCode(), answer.headers().map(), answer.body());
    } catch (TimeoutException e) {
      pending.cancel(true);
      HttpTimeoutException late =
          new HttpTimeoutException(
              target.getHost()
                  + ":"
                  + port(target)
                  + " did not answer in time ("
                  + deadline.toMillis()
                  + " ms for the whole request)");
      late.initCause(e);
      throw late;
    } catch (InterruptedException e) {
      pending.cancel(true);
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting for " + target.getHost());
      interrupted.initCause(e);
      throw interrupted;
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      while (cause instanceof CompletionException && cause.getCause() != null) {
        cause = cause.getCause();
      }
      if (cause instanceof IOException io) {
        throw io;
      }
      if (cause instanceof RuntimeException runtime) {
        throw runtime;
      }
      throw new IOException(cause);
    }
  }

  private boolean sameOrigin(URI target) {
    return target.getScheme() != null
        && target.getHost() != null
        && target.getScheme().equalsIgnoreCase(api.getScheme())
        && target.getHost().equalsIgnoreCase(api.getHost())
        && port(target) == port(api);
  }

  private static int port(URI uri) {
    if (uri.getPort() != -1) {
      return uri.getPort();
    }
    return "http".equalsIgnoreCase(uri.getScheme()) ? 80 : 443;
  }

  private static URI origin(String apiUrl) {
    try {
      URI uri = new URI(apiUrl);
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if ((scheme.equals("https") || scheme.equals("http")) && uri.getHost() != null) {
        return new URI(scheme, null, uri.getHost(), uri.getPort(), null, null, null);
      }
    } catch (URISyntaxException malformed) {
      // reported below
    }
    throw new EnvironmentProblem(
        "The GitHub API URL \"" + apiUrl + "\" is not an http(s) URL with a host",
        "perhaps you should check GITHUB_API_URL (https://api.github.com, or"
            + " https://HOST/api/v3 for GitHub Enterprise Server)");
  }

  private static URI uri(URL url) throws IOException {
    try {
      return url.toURI();
    } catch (URISyntaxException e) {
      throw new IOException("Invalid URL " + url, e);
    }
  }

  /** An answer read whole; hub4j reads it (gunzipped if need be) through {@link #bodyStream}. */
  private static final class Answer extends GitHubConnectorResponse.ByteArrayResponse {
    private final byte[] body;

    Answer(
        GitHubConnectorRequest request,
        int status,
        Map<String, List<String>> headers,
        byte[] body) {
      super(request, status, headers);
      this.body = body;
    }

    @Override
    protected InputStream rawBodyStream() {
      return new ByteArrayInputStream(body);
    }
  }
}
