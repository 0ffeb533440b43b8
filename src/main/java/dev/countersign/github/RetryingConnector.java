package dev.countersign.github;

import dev.countersign.support.Sleeper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.kohsuke.github.connector.GitHubConnector;
import org.kohsuke.github.connector.GitHubConnectorRequest;
import org.kohsuke.github.connector.GitHubConnectorResponse;

/**
 * Applies {@link GitHubRetryPolicy} under hub4j, at the HTTP level where status and headers are
 * visible: every request any hub4j call makes goes through {@link #send}.
 *
 * <p>It never lets hub4j see what it would handle its own way: hub4j 1.330 retries socket
 * exceptions itself with real sleeps, and turns a 403 with {@code Retry-After} into an exception
 * whose only text is "Abuse limit reached". So a connection failure, a 5xx or a rate limit that
 * outlasts the policy becomes {@link GitHubGaveUp} (passed through by hub4j unchanged), carrying
 * GitHub's own message. Other error answers are returned as they came, for hub4j to raise as usual:
 * {@link GitHubHttp} reads each answer whole, so the body read here is there to read again.
 */
final class RetryingConnector implements GitHubConnector {

  private final GitHubHttp delegate;
  private final GitHubRetryPolicy policy;
  private final Sleeper sleeper;
  private final Consumer<String> notices;

  RetryingConnector(
      GitHubHttp delegate, GitHubRetryPolicy policy, Sleeper sleeper, Consumer<String> notices) {
    this.delegate = delegate;
    this.policy = policy;
    this.sleeper = sleeper;
    this.notices = notices;
  }

  @Override
  public GitHubConnectorResponse send(GitHubConnectorRequest original) throws IOException {
    GitHubConnectorRequest request = Replayable.of(original);
    String what = request.method() + " " + request.url().getPath();
    for (int attempt = 1; ; attempt++) {
      GitHubConnectorResponse response;
      try {
        response = delegate.send(request);
      } catch (IOException noAnswer) {
        GitHubRetryPolicy.Decision decision = policy.afterConnectionFailure(attempt);
        String cause =
            noAnswer.getClass().getSimpleName()
                + (noAnswer.getMessage() == null ? "" : ": " + noAnswer.getMessage());
        if (decision instanceof GitHubRetryPolicy.GiveUp giveUp) {
          throw new GitHubGaveUp(
              giveUp.failure(),
              -1,
              noAnswer.getClass().getSimpleName(),
              giveUp.why(),
              request.url().toString(),
              noAnswer);
        }
        wait((GitHubRetryPolicy.Retry) decision, what + " got no answer (" + cause + ")", attempt);
        continue;
      }
      int status = response.statusCode();
      if (status < 400) {
        return response;
      }
      String text = new String(readBody(response), StandardCharsets.UTF_8);
      GitHubRetryPolicy.Decision decision =
          policy.afterResponse(attempt, status, response::header, GitHubErrorBody.message(text));
      if (decision instanceof GitHubRetryPolicy.Final) {
        return response;
      }
      response.close();
      if (decision instanceof GitHubRetryPolicy.GiveUp giveUp) {
        throw new GitHubGaveUp(
            giveUp.failure(),
            status,
            GitHubErrorBody.summary(text),
            giveUp.why(),
            request.url().toString(),
            null);
      }
      wait(
          (GitHubRetryPolicy.Retry) decision,
          what + " answered HTTP " + status + " (" + GitHubErrorBody.summary(text) + ")",
          attempt);
    }
  }

  private void wait(GitHubRetryPolicy.Retry retry, String what, int attempt) throws IOException {
    notices.accept(
        "GitHub: "
            + what
            + "; trying again in "
            + retry.delay().toMillis()
            + " ms (try "
            + (attempt + 1)
            + " of "
            + policy.attempts()
            + ")");
    try {
      sleeper.sleep(retry.delay());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      InterruptedIOException interrupted =
          new InterruptedIOException("interrupted while waiting to retry " + what);
      interrupted.initCause(e);
      throw interrupted;
    }
  }

  private static byte[] readBody(GitHubConnectorResponse response) {
    try (InputStream in = response.bodyStream()) {
      return in == null ? new byte[0] : in.readAllBytes();
    } catch (IOException | RuntimeException unreadable) {
      return new byte[0];
    }
  }

  /** A request whose body can be sent more than once. */
  private record Replayable(GitHubConnectorRequest request, byte[] bytes)
      implements GitHubConnectorRequest {

    static GitHubConnectorRequest of(GitHubConnectorRequest request) throws IOException {
      // hub4j's own requests hand out a fresh stream over their bytes on every body() call, and
      // must stay themselves: hub4j reads its object mapping context back from response.request().
      if (!request.hasBody() || request instanceof org.kohsuke.github.GitHubRequest) {
        return request;
      }
      try (InputStream in = request.body()) {
        return new Replayable(request, in == null ? new byte[0] : in.readAllBytes());
      }
    }

    @Override
    public String method() {
      return request.method();
    }

    @Override
    public Map<String, List<String>> allHeaders() {
      return request.allHeaders();
    }

    @Override
    public String header(String name) {
      return request.header(name);
    }

    @Override
    public String contentType() {
      return request.contentType();
    }

    @Override
    public InputStream body() {
      return new ByteArrayInputStream(bytes);
    }

    @Override
    public URL url() {
      return request.url();
    }

    @Override
    public boolean hasBody() {
      return true;
    }
  }
}
