package dev.countersign.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The registry client against HTTP fakes shaped as the distribution spec and Docker's token
 * authentication document them: a bearer challenge answered with a token fetched with basic
 * credentials, a blob download redirected to storage on another host (which must not receive the
 * registry credentials), altered content, and an immutable tag.
 */
class DistributionRegistryTest {

  private static final byte[] BLOB = "layer bytes".getBytes(StandardCharsets.UTF_8);
  private static final String DIGEST = Sha256.digest(BLOB);
  private static final byte[] GUARDED_BLOB = "guarded bytes".getBytes(StandardCharsets.UTF_8);
  private static final String GUARDED_DIGEST = Sha256.digest(GUARDED_BLOB);

  private HttpServer registry;
  private HttpServer storage;
  private final List<String> tokenQueries = new CopyOnWriteArrayList<>();
  private final List<String> storageAuthorization = new CopyOnWriteArrayList<>();
  private final List<String> storageRealmAuthorization = new CopyOnWriteArrayList<>();
  private volatile byte[] stored = BLOB;
  private volatile String issued = "tok-123";

  @BeforeEach
  void start() throws IOException {
    storage = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    storage.createContext(
        "/blob",
        exchange -> {
          storageAuthorization.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          respond(exchange, 200, stored);
        });
    String storageSelf = "http://127.0.0.1:" + storage.getAddress().getPort();
    // Storage that answers with a challenge of its own, naming a token service on its own host.
    storage.createContext(
        "/guarded",
        exchange -> {
          exchange
              .getResponseHeaders()
              .add("WWW-Authenticate", "Bearer realm=\"" + storageSelf + "/token\",service=\"s\"");
          respond(exchange, 401, new byte[0]);
        });
    storage.createContext(
        "/token",
        exchange -> {
          storageRealmAuthorization.add(
              String.valueOf(exchange.getRequestHeaders().getFirst("Authorization")));
          respond(exchange, 200, "{\"token\":\"storage-token\"}".getBytes(StandardCharsets.UTF_8));
        });
    storage.start();
    registry = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    String self = "http://127.0.0.1:" + registry.getAddress().getPort();
    registry.createContext(
        "/token",
        exchange -> {
          String basic =
              "Basic "
                  + Base64.getEncoder().encodeToString("bot:pw".getBytes(StandardCharsets.UTF_8));
          if (!basic.equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            respond(exchange, 401, "{}".getBytes(StandardCharsets.UTF_8));
            return;
          }
          tokenQueries.add(exchange.getRequestURI().getRawQuery());
          respond(
              exchange, 200, ("{\"token\":\"" + issued + "\"}").getBytes(StandardCharsets.UTF_8));
        });
    registry.createContext(
        "/v2/",
        exchange -> {
          if (!"Bearer tok-123".equals(exchange.getRequestHeaders().getFirst("Authorization"))) {
            exchange
                .getResponseHeaders()
                .add(
                    "WWW-Authenticate",
                    "Bearer realm=\""
                        + self
                        + "/token\",service=\"fake-registry\",scope=\"repository:team/app:pull\"");
            respond(
                exchange,
                401,
                "{\"errors\":[{\"code\":\"UNAUTHORIZED\",\"message\":\"authentication required\"}]}"
                    .getBytes(StandardCharsets.UTF_8));
            return;
          }
          String path = exchange.getRequestURI().getPath();
          if (path.equals("/v2/team/app/blobs/" + DIGEST)) {
            exchange
                .getResponseHeaders()
                .add("Location", "http://127.0.0.1:" + storage.getAddress().getPort() + "/blob");
            respond(exchange, 307, new byte[0]);
          } else if (path.equals("/v2/team/app/blobs/" + GUARDED_DIGEST)) {
            exchange
                .getResponseHeaders()
                .add("Location", "http://127.0.0.1:" + storage.getAddress().getPort() + "/guarded");
            respond(exchange, 307, new byte[0]);
          } else if (path.equals("/v2/team/app/manifests/v1")
              && exchange.getRequestMethod().equals("PUT")) {
            respond(
                exchange,
                400,
                "{\"errors\":[{\"code\":\"TAG_INVALID\",\"message\":\"tag v1 is immutable\"}]}"
                    .getBytes(StandardCharsets.UTF_8));
          } else {
            respond(exchange, 404, new byte[0]);
          }
        });
    registry.start();
  }

  @AfterEach
  void stop() {
    registry.stop(0);
    storage.stop(0);
  }

  private DistributionRegistry client(Optional<RegistryCredentials> credentials) {
    return new DistributionRegistry(
        OciReference.parse("127.0.0.1:" + registry.getAddress().getPort() + "/team/app", "--to"),
        true,
        credentials);
  }

  private static final Optional<RegistryCredentials> BOT =
      Optional.of(new RegistryCredentials("bot", "pw", "--registry-token"));

  @Test
  void bearerChallenge_isAnsweredWithAToken_andRedirectedStorageGetsNoCredentials() {
    assertThat(client(BOT).blob("team/app", DIGEST, 1024)).isEqualTo(BLOB);
    assertThat(tokenQueries)
        .containsExactly("service=fake-registry&scope=repository%3Ateam%2Fapp%3Apull");
    assertThat(storageAuthorization).containsExactly("null");
  }

  /**
   * The challenge of the storage a download was redirected to is not the registry's: answering it
   * would send the registry credentials to whatever token service that other host names.
   */
  @Test
  void redirectedStorage_askingForAToken_getsNoCredentials_andIsARemoteProblem() {
    int storagePort = storage.getAddress().getPort();
    DistributionRegistry client = client(BOT);
    // A first read, as verify's manifest read: the client now holds the registry's token.
    assertThat(client.blob("team/app", DIGEST, 1024)).isEqualTo(BLOB);
    assertThatThrownBy(() -> client.blob("team/app", GUARDED_DIGEST, 1024))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage(
            "Registry 127.0.0.1:"
                + registry.getAddress().getPort()
                + " redirected to 127.0.0.1:"
                + storagePort
                + ", which refused (401) while downloading blob "
                + GUARDED_DIGEST
                + " from team/app");
    assertThat(storageRealmAuthorization).isEmpty();
    // The registry's own challenge was answered: the registry credentials went only to its realm.
    assertThat(tokenQueries).hasSize(1);
  }

  @Test
  void tokenWithALineBreak_isARemoteProblem_notACrash() {
    issued = "tok-123\\r\\nX-Injected: 1";
    assertThatThrownBy(() -> client(BOT).blob("team/app", DIGEST, 1024))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage(
            "The token service of registry 127.0.0.1:"
                + registry.getAddress().getPort()
                + " returned a token that is not printable ASCII");
  }

  @Test
  void alteredContent_isAContentMismatch() {
    stored = "other bytes".getBytes(StandardCharsets.UTF_8);
    assertThatThrownBy(() -> client(BOT).blob("team/app", DIGEST, 1024))
        .isInstanceOf(DistributionRegistry.ContentMismatch.class)
        .hasMessageContaining("does not match its digest");
  }

  @Test
  void wrongCredentials_areAnEnvironmentProblem_namingTheirSource_notTheSecret() {
    Optional<RegistryCredentials> wrong =
        Optional.of(new RegistryCredentials("bot", "wrong-pw-91", "/home/x/.docker/config.json"));
    assertThatThrownBy(() -> client(wrong).blob("team/app", DIGEST, 1024))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("denied access with the credentials from /home/x/.docker/config.json")
        .hasMessageNotContaining("wrong-pw-91");
  }

  @Test
  void immutableTag_isReportedAsSuch() {
    assertThatThrownBy(
            () ->
                client(BOT)
                    .putManifest(
                        "team/app",
                        "v1",
                        ArtifactLayout.MANIFEST_MEDIA_TYPE,
                        "{}".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("refused to point tag v1")
        .hasMessageContaining("TAG_INVALID: tag v1 is immutable")
        .satisfies(
            e ->
                assertThat(((EnvironmentProblem) e).hint())
                    .hasValueSatisfying(h -> assertThat(h).contains("new tag")));
  }

  @Test
  void plainHttp_toARemoteRegistry_isRefused() {
    assertThatThrownBy(
            () ->
                new DistributionRegistry(
                    OciReference.parse("ghcr.io/team/app", "--to"), true, Optional.empty()))
        .hasMessageContaining("--plain-http is only allowed");
  }

  static Stream<Arguments> refusedUrls() {
    String plain = "http://127.0.0.1:5000/v2/team/app/blobs/" + DIGEST;
    String tls = "https://ghcr.io/v2/team/app/blobs/" + DIGEST;
    return Stream.of(
        Arguments.of(
            plain,
            "http://192.0.2.2:5056/token",
            "sent a token realm over plain HTTP to another host (192.0.2.2) while pulling"),
        Arguments.of(
            plain,
            "http://localhost.example/token",
            "sent a token realm over plain HTTP to another host (localhost.example) while pulling"),
        Arguments.of(
            tls,
            "http://localhost:5056/token",
            "sent a token realm that leaves HTTPS for plain HTTP (localhost) while pulling"),
        Arguments.of(
            tls,
            "http://cdn.example/blob",
            "sent a token realm that leaves HTTPS for plain HTTP (cdn.example) while pulling"),
        Arguments.of(
            plain,
            "https://bad host/token",
            "sent a malformed token realm (\"https://bad host/token\") while pulling"),
        Arguments.of(
            plain,
            "https://bad_host/token",
            "sent a malformed token realm (\"https://bad_host/token\") while pulling"),
        Arguments.of(
            plain,
            "https://127.0.0.1:99999/token",
            "sent a malformed token realm (\"https://127.0.0.1:99999/token\") while pulling"),
        Arguments.of(
            plain,
            "https://x/\u001b[31m",
            "sent a malformed token realm (\"https://x/?[31m\") while pulling"),
        Arguments.of(
            plain,
            "mailto:x@y",
            "sent a token realm whose scheme is not http or https (\"mailto:x@y\") while pulling"),
        Arguments.of(
            tls,
            "file:///etc/passwd",
            "sent a token realm whose scheme is not http or https (\"file:///etc/passwd\") while"
                + " pulling"));
  }

  /** The one check for every URL a registry hands the client: what it refuses, and why. */
  @ParameterizedTest
  @MethodSource("refusedUrls")
  void registryGivenUrl_isRefused(String from, String given, String message) {
    URI request = URI.create(from);
    URI base = request.resolve("/");
    assertThatThrownBy(
            () ->
                DistributionRegistry.registryGiven(
                    "reg", base, request, given, "token realm", "pulling"))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage("Registry reg " + message);
  }

  @ParameterizedTest
  @CsvSource({
    "http://127.0.0.1:5000/v2/a, http://[::1]:5056/token, http://[::1]:5056/token",
    "http://127.0.0.1:5000/v2/a, http://localhost:1/t?x=1, http://localhost:1/t?x=1",
    "http://127.0.0.1:5000/v2/a, https://cdn.example/blob, https://cdn.example/blob",
    "http://127.0.0.1:5000/v2/a, /v2/a/blobs/uploads/u?_state=s,"
        + " http://127.0.0.1:5000/v2/a/blobs/uploads/u?_state=s",
    "https://ghcr.io/v2/a, https://ghcr.io/token, https://ghcr.io/token",
  })
  void registryGivenUrl_isAccepted(String from, String given, String resolved) {
    URI request = URI.create(from);
    assertThat(
            DistributionRegistry.registryGiven(
                "reg", request.resolve("/"), request, given, "redirect", "pulling"))
        .isEqualTo(URI.create(resolved));
  }

  /**
   * A registry that sends its headers at once and then its body one byte per {@code everyMillis}
   * (or never, for 0): the deadline covers the whole exchange, not only the headers.
   */
  @ParameterizedTest
  @ValueSource(longs = {100, 0})
  void tricklingBody_endsAtTheDeadline_asDidNotAnswerInTime(long everyMillis) throws IOException {
    ExecutorService handlers = Executors.newCachedThreadPool();
    HttpServer trickle =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    trickle.setExecutor(handlers);
    trickle.createContext(
        "/",
        exchange -> {
          exchange.sendResponseHeaders(200, 100_000);
          OutputStream body = exchange.getResponseBody();
          try {
            for (int i = 0; i < 100_000; i++) {
              Thread.sleep(everyMillis == 0 ? 60_000 : everyMillis);
              body.write('x');
              body.flush();
            }
          } catch (InterruptedException | IOException e) {
            // the client gave up (or the test ended): stop trickling
          } finally {
            exchange.close();
          }
        });
    trickle.start();
    try {
      DistributionRegistry client =
          new DistributionRegistry(
              OciReference.parse("127.0.0.1:" + trickle.getAddress().getPort() + "/team/app", "-"),
              true,
              Optional.empty(),
              Duration.ofMillis(500));
      assertTimeoutPreemptively(
          Duration.ofSeconds(10),
          () ->
              assertThatThrownBy(() -> client.blob("team/app", DIGEST, 1024))
                  .isInstanceOf(RemoteProblem.class)
                  .hasMessage(
                      "Registry 127.0.0.1:"
                          + trickle.getAddress().getPort()
                          + " did not answer in time while downloading blob "
                          + DIGEST
                          + " from team/app"));
    } finally {
      trickle.stop(0);
      handlers.shutdownNow();
    }
  }

  private static void respond(HttpExchange exchange, int status, byte[] body) throws IOException {
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    if (exchange.getRequestMethod().equals("HEAD") || body.length == 0) {
      exchange.sendResponseHeaders(status, -1);
    } else {
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
    }
    exchange.close();
  }
}
