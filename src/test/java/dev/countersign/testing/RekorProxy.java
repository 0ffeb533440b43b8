package dev.countersign.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.countersign.signing.KeylessOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A loopback HTTP proxy in front of the test stack's Rekor, for the failures a real network adds
 * and the stack cannot: an answer lost after the log took the entry, a gateway's {@code
 * Retry-After}, a conflict that points elsewhere, an entry or answer changed on the way. Each entry
 * upload ({@code POST /api/v1/log/entries}) goes to a {@link Rule}, its body first through the
 * proxy's rewrite of uploads (none unless given); everything else is forwarded unchanged.
 */
public final class RekorProxy implements AutoCloseable {

  /** What the proxy answers to the {@code n}th upload (from 1); {@code forward} sends it on. */
  @FunctionalInterface
  public interface Rule {
    Reply answer(int n, Callable<Reply> forward) throws Exception;
  }

  /** An answer: status, headers, body. */
  public record Reply(int status, Map<String, String> headers, byte[] body) {

    /** An error status as Rekor sends one (JSON body), with {@code Retry-After} when not null. */
    public static Reply status(int status, String retryAfter) {
      Map<String, String> headers = new LinkedHashMap<>();
      headers.put("Content-Type", "application/json");
      if (retryAfter != null) {
        headers.put("Retry-After", retryAfter);
      }
      return new Reply(
          status,
          headers,
          ("{\"code\":" + status + ",\"message\":\"from the proxy\"}")
              .getBytes(StandardCharsets.UTF_8));
    }

    /** Rekor's 409 for an entry already in the log, naming it at {@code location}. */
    public static Reply conflict(String location) {
      Reply reply = status(409, null);
      reply.headers().put("Location", location);
      return reply;
    }
  }

  private final SigstoreTestStack stack;
  private final UnaryOperator<byte[]> uploadRewrite;
  private final Rule rule;
  private final HttpServer server;
  private final HttpClient client = HttpClient.newHttpClient();
  private final AtomicInteger posts = new AtomicInteger();
  private final ExecutorService handlers =
      Executors.newCachedThreadPool(
          task -> {
            Thread thread = new Thread(task, "rekor-proxy");
            thread.setDaemon(true);
            return thread;
          });

  public RekorProxy(SigstoreTestStack stack, Rule rule) throws IOException {
    this(stack, UnaryOperator.identity(), rule);
  }

  /**
   * @param uploadRewrite what the stack's Rekor is sent instead of each upload's body (the proposed
   *     entry JSON): a log that logs something else than it was asked to
   */
  public RekorProxy(SigstoreTestStack stack, UnaryOperator<byte[]> uploadRewrite, Rule rule)
      throws IOException {
    this.stack = stack;
    this.uploadRewrite = uploadRewrite;
    this.rule = rule;
    this.server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext("/", this::handle);
    // A thread per request, as a real gateway answers: a rule that holds one upload back does not
    // hold the others.
    server.setExecutor(handlers);
    server.start();
  }

  /** How many entry uploads reached the proxy. */
  public int posts() {
    return posts.get();
  }

  /** The stack's trust material with a signing config whose Rekor is this proxy. */
  public KeylessOptions options() throws IOException {
    return withRekor(stack, base());
  }

  /** The stack's trust material with a signing config whose Rekor is {@code rekorUrl}. */
  public static KeylessOptions withRekor(SigstoreTestStack stack, String rekorUrl)
      throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode config = (ObjectNode) json.readTree(stack.signingConfig().toFile());
    config
        .withArray("rekorTlogUrls")
        .forEach(service -> ((ObjectNode) service).put("url", rekorUrl));
    Path file = Files.createTempFile("signing-config-via-proxy", ".json");
    file.toFile().deleteOnExit();
    json.writeValue(file.toFile(), config);
    return KeylessOptions.custom(stack.trustedRoot(), file);
  }

  /** The proxy's address, where a Rekor URL goes. */
  public String base() {
    return "http://127.0.0.1:" + server.getAddress().getPort();
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      byte[] body = exchange.getRequestBody().readAllBytes();
      boolean upload =
          exchange.getRequestMethod().equals("POST")
              && exchange.getRequestURI().getPath().equals("/api/v1/log/entries");
      Callable<Reply> forward = () -> forward(exchange, upload ? uploadRewrite.apply(body) : body);
      Reply reply;
      try {
        reply = upload ? rule.answer(posts.incrementAndGet(), forward) : forward.call();
      } catch (Exception e) {
        reply = Reply.status(500, null);
      }
      reply.headers().forEach((name, value) -> exchange.getResponseHeaders().add(name, value));
      exchange.sendResponseHeaders(
          reply.status(), reply.body().length == 0 ? -1 : reply.body().length);
      exchange.getResponseBody().write(reply.body());
    }
  }

  private Reply forward(HttpExchange exchange, byte[] body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(stack.baseUrl() + exchange.getRequestURI()))
            .method(exchange.getRequestMethod(), HttpRequest.BodyPublishers.ofByteArray(body));
    Optional.ofNullable(exchange.getRequestHeaders().getFirst("Content-Type"))
        .ifPresent(type -> request.header("Content-Type", type));
    HttpResponse<byte[]> response =
        client.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    Map<String, String> headers = new LinkedHashMap<>();
    for (String name : new String[] {"Content-Type", "Location", "Retry-After"}) {
      response.headers().firstValue(name).ifPresent(value -> headers.put(name, value));
    }
    return new Reply(response.statusCode(), headers, response.body());
  }

  @Override
  public void close() {
    server.stop(0);
    handlers.shutdownNow();
  }
}
