package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.Env;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The head start's order: the token request first, the key once that request is under way. Against
 * a stand-in for the runner's token endpoint ({@code GET $ACTIONS_ID_TOKEN_REQUEST_URL&audience=…}
 * with the bearer, answering {@code {"count":1,"value":JWT}} as the runner does) that holds its
 * answer back until the test releases it.
 */
class KeylessHeadStartTest {

  private static final String JWT = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJyZXBvOm8vcjpyZWY6bWFpbiJ9.c2ln";

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch arrived = new CountDownLatch(1);
  private final List<String> requests = new CopyOnWriteArrayList<>();
  private HttpServer runner;

  @AfterEach
  void stop() {
    release.countDown();
    if (runner != null) {
      runner.stop(0);
    }
  }

  @Test
  void takeKey_whileTheTokenRequestIsUnanswered_isMadeWithoutWaitingForTheAnswer()
      throws Exception {
    KeylessHeadStart early = KeylessHeadStart.request(envFor(startRunner()));

    // The runner holds its answer until the test ends: the key waits for the request to be on its
    // way, never for the answer. (The key may be made before the runner has read the request:
    // "on its way" is the connection, signalled just before the request is written.)
    assertThat(early.takeKey()).isPresent();
    assertThat(arrived.await(10, TimeUnit.SECONDS))
        .as("the token request reached the runner")
        .isTrue();
    assertThat(requests).hasSize(1);
  }

  @Test
  @Timeout(30)
  void takeKey_whileAnotherThreadWaitsForTheToken_doesNotWaitForTheToken() throws Exception {
    KeylessHeadStart early = KeylessHeadStart.request(envFor(startRunner()));
    Thread waiter = new Thread(() -> early.takeToken(envFor(runnerUrl())));
    waiter.setDaemon(true);
    waiter.start();
    while (waiter.getState() != Thread.State.WAITING) {
      Thread.onSpinWait();
    }

    // The signer's build takes the key while its token preparation waits for the runner: the key
    // must not wait for that answer (it used to, behind the same lock).
    assertThat(early.takeKey()).isPresent();
    release.countDown();
    waiter.join();
  }

  @Test
  void takeToken_onceTheRunnerAnswers_isTheRunnersTokenAskedForOnce() throws Exception {
    KeylessHeadStart early = KeylessHeadStart.request(envFor(startRunner()));
    assertThat(early.takeKey()).isPresent();
    release.countDown();

    assertThat(early.takeToken(envFor(runnerUrl()))).contains(JWT);
    assertThat(requests).containsExactly("GET /token?api-version=2.0&audience=sigstore Bearer b");
  }

  @Test
  void takeKey_whenTheTokenEndpointRefusesTheConnection_isStillMade() throws IOException {
    int closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    String url = "http://127.0.0.1:" + closedPort + "/token?api-version=2.0";
    KeylessHeadStart early = KeylessHeadStart.request(envFor(url));

    early.awaitTokenRequestUnderWay();
    assertThat(early.takeKey()).isPresent();
    // The failure is left for the signer to meet again and report.
    assertThat(early.takeToken(envFor(url))).isEmpty();
  }

  @Test
  void awaitTokenRequestUnderWay_withoutAHeadStart_returnsAtOnce() {
    KeylessHeadStart.NONE.awaitTokenRequestUnderWay();
    assertThat(KeylessHeadStart.NONE.takeKey()).isEmpty();
  }

  private String startRunner() throws IOException {
    runner = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    runner.createContext(
        "/token",
        exchange -> {
          requests.add(
              exchange.getRequestMethod()
                  + " "
                  + exchange.getRequestURI()
                  + " "
                  + exchange.getRequestHeaders().getFirst("Authorization"));
          arrived.countDown();
          try {
            release.await(30, TimeUnit.SECONDS);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
          byte[] body =
              ("{\"count\":1,\"value\":\"" + JWT + "\"}").getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    runner.start();
    return runnerUrl();
  }

  private String runnerUrl() {
    return "http://127.0.0.1:" + runner.getAddress().getPort() + "/token?api-version=2.0";
  }

  private static Env envFor(String url) {
    return Env.of(
        Map.of(
            "GITHUB_ACTIONS", "true",
            "ACTIONS_ID_TOKEN_REQUEST_URL", url,
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN", "b"));
  }
}
