package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The transport's deadline: a service that answers slowly but never stops (the per-read timeout
 * alone never fires) ends at the deadline as a timeout, which callers treat as a transient failure.
 * Against loopback fakes; the deadline is 500 ms, the fakes would go on for minutes.
 */
class SigstoreHttpTest {

  private static final Duration DEADLINE = Duration.ofMillis(500);
  // Far above the deadline, far below "hangs": the old code ran into it.
  private static final Duration GIVE_UP = Duration.ofSeconds(5);

  /** How the fake service stalls after reading the request. */
  enum Stall {
    /** {@code 201} with {@code Content-Length: 100000}, then one body byte every 100 ms. */
    TRICKLED_BODY,
    /** {@code 201} with {@code Content-Length: 100000}, then nothing. */
    STALLED_BODY,
    /** The status line, then one header line every 100 ms, never the end of the headers. */
    TRICKLED_HEADERS
  }

  @ParameterizedTest
  @EnumSource(Stall.class)
  void request_serviceTricklesOrStalls_endsAtTheDeadlineAsATimeout(Stall stall) throws IOException {
    try (SlowService service = new SlowService(stall)) {
      SigstoreHttp http = new SigstoreHttp(() -> {}, DEADLINE);

      assertTimeoutPreemptively(
          GIVE_UP,
          () ->
              assertThatThrownBy(
                      () ->
                          http.postJson(service.uri(), Map.of("Accept", "application/json"), "{}"))
                  .isInstanceOf(SocketTimeoutException.class)
                  .hasMessage(
                      "127.0.0.1:"
                          + service.port()
                          + " did not answer in time (500 ms for the whole request)"));
    }
  }

  @Test
  void rekorUpload_logTricklesItsAnswer_isTriedAgainThenFailsAsRemote() throws IOException {
    try (SlowService rekor = new SlowService(Stall.TRICKLED_BODY)) {
      List<String> warnings = new ArrayList<>();
      RekorUploads uploads =
          new RekorUploads(
              rekor.uri(),
              new SigstoreHttp(() -> {}, DEADLINE),
              Clock.systemUTC(),
              wait -> {},
              new Random(1),
              warnings::add,
              RekorFailures.KEYLESS);

      assertTimeoutPreemptively(
          GIVE_UP.multipliedBy(RekorUploads.ATTEMPTS),
          () ->
              assertThatThrownBy(() -> uploads.post("{}"))
                  .isInstanceOfSatisfying(
                      RemoteProblem.class,
                      problem -> assertThat(problem.exitCode()).isEqualTo(ExitCode.REMOTE))
                  .hasMessage(
                      "Rekor did not accept the log entry while signing keylessly:"
                          + " SocketTimeoutException: 127.0.0.1:"
                          + rekor.port()
                          + " did not answer in time (500 ms for the whole request) (4 tries)"));
      assertThat(rekor.connections()).hasValue(RekorUploads.ATTEMPTS);
      assertThat(warnings)
          .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
          .startsWith(
              "A log entry upload got no answer from Rekor (SocketTimeoutException: 127.0.0.1:"
                  + rekor.port()
                  + " did not answer in time");
    }
  }

  /**
   * Answers that arrive within the deadline are read whole, and the deadline of a finished request
   * does nothing later: the next requests, sent after it has passed, reuse the same keep-alive
   * connection.
   */
  @Test
  void request_answeredInTime_isReadWholeAndKeepsItsConnection() throws Exception {
    String body = "x".repeat(200_000);
    Set<Integer> clientPorts = ConcurrentHashMap.newKeySet();
    HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        exchange -> {
          clientPorts.add(exchange.getRemoteAddress().getPort());
          exchange.getRequestBody().readAllBytes();
          byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
          exchange.sendResponseHeaders(201, bytes.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
          }
        });
    server.start();
    try {
      URI uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/");
      SigstoreHttp http = new SigstoreHttp(() -> {}, Duration.ofMillis(200));
      for (int i = 0; i < 3; i++) {
        SigstoreHttp.Response response = http.postJson(uri, Map.of(), "{}");
        assertThat(response.status()).isEqualTo(201);
        assertThat(response.body()).isEqualTo(body);
        Thread.sleep(300); // past the finished request's deadline
      }
      assertThat(clientPorts).hasSize(1);
    } finally {
      server.stop(0);
    }
  }

  /**
   * A loopback HTTP/1.1 service that reads each request (headers and body) and then stalls as told,
   * on every connection, until closed.
   */
  private static final class SlowService implements AutoCloseable {

    private final ServerSocket socket;
    private final Stall stall;
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;
    private final Set<Socket> clients = ConcurrentHashMap.newKeySet();

    SlowService(Stall stall) throws IOException {
      this.stall = stall;
      this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      this.acceptor = new Thread(this::serve, "slow-service");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    URI uri() {
      return URI.create("http://127.0.0.1:" + port() + "/api/v1/log/entries");
    }

    int port() {
      return socket.getLocalPort();
    }

    AtomicInteger connections() {
      return connections;
    }

    private void serve() {
      while (!socket.isClosed()) {
        try {
          Socket client = socket.accept();
          clients.add(client);
          connections.incrementAndGet();
          Thread handler = new Thread(() -> handle(client), "slow-service-connection");
          handler.setDaemon(true);
          handler.start();
        } catch (IOException e) {
          // closed: stop accepting
        }
      }
    }

    private void handle(Socket client) {
      try (client) {
        readRequest(client.getInputStream());
        answer(client.getOutputStream());
      } catch (IOException | InterruptedException e) {
        // the client gave up on this connection, or the service was closed
      }
    }

    private static void readRequest(InputStream in) throws IOException {
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int c = in.read();
        if (c < 0) {
          throw new IOException("request ended early");
        }
        head.append((char) c);
      }
      int length = 0;
      for (String line : head.toString().split("\r\n")) {
        if (line.regionMatches(true, 0, "Content-Length:", 0, 15)) {
          length = Integer.parseInt(line.substring(15).strip());
        }
      }
      in.readNBytes(length);
    }

    private void answer(OutputStream out) throws IOException, InterruptedException {
      out.write(
          (stall == Stall.TRICKLED_HEADERS
                  ? "HTTP/1.1 201 Created\r\n"
                  : "HTTP/1.1 201 Created\r\nContent-Length: 100000\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      for (int i = 0; i < 100_000; i++) {
        Thread.sleep(stall == Stall.STALLED_BODY ? 60_000 : 100);
        out.write(
            (stall == Stall.TRICKLED_HEADERS ? "X-Slow: " + i + "\r\n" : "x")
                .getBytes(StandardCharsets.US_ASCII));
        out.flush();
      }
    }

    @Override
    public void close() throws IOException {
      socket.close();
      for (Socket client : clients) {
        client.close();
      }
    }
  }
}
