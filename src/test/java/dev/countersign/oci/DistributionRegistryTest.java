package dev.countersign.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The registry client against HTTP fakes shaped as the distribution spec and Docker's token
 * authentication document them: a bearer challenge answered with a token fetched with basic
 * credentials, a blob download redirected to storage on another host (which must not receive the
 * registry credentials), altered content, and an immutable tag.
 */
class DistributionRegistryTest {

  private static final byte[] BLOB = "layer bytes".getBytes(StandardCharsets.UTF_8);
  private static final String DIGEST = Sha256.digest(BLOB);

  private HttpServer registry;
  private HttpServer storage;
  private final List<String> tokenQueries = new CopyOnWriteArrayList<>();
  private final List<String> storageAuthorization = new CopyOnWriteArrayList<>();
  private volatile byte[] stored = BLOB;

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
          respond(exchange, 200, "{\"token\":\"tok-123\"}".getBytes(StandardCharsets.UTF_8));
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
