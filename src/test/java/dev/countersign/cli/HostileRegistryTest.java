package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.CiMode;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code verify --oci --plain-http} against a loopback fake registry whose answers are hostile or
 * malformed, shaped as the distribution spec and Docker's token authentication document them (a
 * {@code 401} with {@code WWW-Authenticate: Bearer realm=…}, a {@code 307} with {@code Location}):
 * each ends as a remote problem (exit 4) naming what the registry sent, never as a crash (exit 5),
 * and the registry credential never leaves for another host over plain HTTP.
 */
class HostileRegistryTest {

  private static final String SECRET = "registry-secret-5a0c";
  private static final String DIGEST = "sha256:" + "ab".repeat(32);
  private static final String DEMO_PUB = "docs/example/demo.pub";

  private final List<HttpServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(s -> s.stop(0));
  }

  @Test
  void plainHttpRealm_onAnotherHost_isRefused_andTheTokenServiceReceivesNothing()
      throws IOException {
    // The token service really listens on another host of this machine (a non-loopback address),
    // so the old client's request would arrive there: it must not.
    InetAddress other = nonLoopbackAddress();
    List<String> received = new CopyOnWriteArrayList<>();
    HttpServer tokenService =
        serve(
            other,
            exchange -> {
              received.add(
                  exchange.getRequestURI()
                      + " "
                      + exchange.getRequestHeaders().getFirst("Authorization"));
              respond(exchange, 200, "{\"token\":\"t\"}");
            });
    String realmHost = other.getHostAddress();
    String realm = "http://" + realmHost + ":" + tokenService.getAddress().getPort() + "/token";
    HttpServer registry = serve(InetAddress.getLoopbackAddress(), challenge(realm));

    CliRun run = verify(registry);

    assertThat(received).isEmpty();
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains(
            "Registry "
                + host(registry)
                + " sent a token realm over plain HTTP to another host ("
                + realmHost
                + ") while downloading manifest team/app:"
                + DIGEST);
    assertThat(run.all()).doesNotContain(SECRET);
  }

  @Test
  void malformedRealm_isARemoteProblem_namingTheRealm() throws IOException {
    HttpServer registry =
        serve(InetAddress.getLoopbackAddress(), challenge("https://bad host/token"));

    CliRun run = verify(registry);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains(
            "Registry "
                + host(registry)
                + " sent a malformed token realm (\"https://bad host/token\") while downloading"
                + " manifest team/app:"
                + DIGEST);
  }

  @Test
  void redirectToAnotherScheme_isARemoteProblem_namingTheTarget() throws IOException {
    HttpServer registry =
        serve(
            InetAddress.getLoopbackAddress(),
            exchange -> {
              exchange.getResponseHeaders().add("Location", "mailto:x@y");
              respond(exchange, 307, "");
            });

    CliRun run = verify(registry);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err())
        .contains(
            "Registry "
                + host(registry)
                + " sent a redirect whose scheme is not http or https (\"mailto:x@y\") while"
                + " downloading manifest team/app:"
                + DIGEST);
  }

  private CliRun verify(HttpServer registry) {
    return CliRun.run(
        Map.of("COUNTERSIGN_REGISTRY_TOKEN", SECRET),
        "verify",
        "--oci",
        host(registry) + "/team/app@" + DIGEST,
        "--plain-http",
        "--key",
        DEMO_PUB);
  }

  /** A registry that answers every request with a bearer challenge naming {@code realm}. */
  private static HttpHandler challenge(String realm) {
    return exchange -> {
      exchange
          .getResponseHeaders()
          .add(
              "WWW-Authenticate",
              "Bearer realm=\"" + realm + "\",service=\"x\",scope=\"repository:team/app:pull\"");
      respond(
          exchange,
          401,
          "{\"errors\":[{\"code\":\"UNAUTHORIZED\",\"message\":\"authentication required\"}]}");
    };
  }

  private HttpServer serve(InetAddress address, HttpHandler handler) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(address, 0), 0);
    server.createContext("/", handler);
    server.start();
    servers.add(server);
    return server;
  }

  private static String host(HttpServer server) {
    return "127.0.0.1:" + server.getAddress().getPort();
  }

  /** An IPv4 address of this machine that is not loopback: "another host" that we can observe. */
  private static InetAddress nonLoopbackAddress() throws SocketException {
    Optional<InetAddress> found =
        Collections.list(NetworkInterface.getNetworkInterfaces()).stream()
            .filter(HostileRegistryTest::up)
            .flatMap(i -> Collections.list(i.getInetAddresses()).stream())
            .filter(a -> a instanceof Inet4Address && !a.isLoopbackAddress())
            .findFirst();
    // Under CI=true nothing may pass by skipping (the same rule as the Sigstore stack's tests).
    if (CiMode.active()) {
      assertThat(found).as("CI=true: a non-loopback IPv4 address of this machine").isPresent();
    }
    assumeTrue(found.isPresent(), "this machine has no non-loopback IPv4 address");
    return found.get();
  }

  private static boolean up(NetworkInterface networkInterface) {
    try {
      return networkInterface.isUp() && !networkInterface.isLoopback();
    } catch (SocketException e) {
      return false;
    }
  }

  private static void respond(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().add("Content-Type", "application/json");
    if (exchange.getRequestMethod().equals("HEAD") || bytes.length == 0) {
      exchange.sendResponseHeaders(status, -1);
    } else {
      exchange.sendResponseHeaders(status, bytes.length);
      exchange.getResponseBody().write(bytes);
    }
    exchange.close();
  }
}
