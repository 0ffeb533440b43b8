package dev.countersign.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The loopback Sigstore stack ({@code shared/sigstore-test-stack}: Fulcio over gRPC/TLS, Rekor v1,
 * GitHub Actions OIDC), started once per JVM by {@link SigstoreTestStackExtension} and shared by
 * every test that asks for it. Counters and faults are global: a test that asserts them calls
 * {@link #resetStats()} / {@link #clearFaults()} first.
 */
public final class SigstoreTestStack {

  /** The issuer of every token the stack mints (GitHub Actions'). */
  public static final String GITHUB_ISSUER = "https://token.actions.githubusercontent.com";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final OutputStream lifeline;
  private final Path stackDir;
  private final Path out;
  private final JsonNode stackJson;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

  private SigstoreTestStack(Process process, Path stackDir, Path out, JsonNode stackJson) {
    this.process = process;
    this.lifeline = process.getOutputStream();
    this.stackDir = stackDir;
    this.out = out;
    this.stackJson = stackJson;
  }

  /**
   * Starts {@code node server.mjs} from {@code stackDir} (a copy with {@code node_modules}) and
   * waits for {@code stack.json}.
   *
   * @throws IllegalStateException with the stack's stderr when it does not come up
   */
  static SigstoreTestStack start(Path stackDir) throws IOException, InterruptedException {
    Path out = Files.createTempDirectory("sigstore-test-stack-");
    Path log = out.resolve("server.log");
    Path outDir = out.resolve("out");
    ProcessBuilder builder =
        new ProcessBuilder(
                "node",
                "server.mjs",
                "--out",
                outDir.toString(),
                "--port",
                "0",
                // The stack dies with the JVM: our end of its stdin closes when we exit, however we
                // exit.
                "--exit-on-stdin-close")
            .directory(stackDir.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD)
            .redirectError(log.toFile());
    Process process = builder.start();
    Path stackJsonFile = outDir.resolve("stack.json");
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (!Files.exists(stackJsonFile)) {
      if (!process.isAlive()) {
        throw new IllegalStateException(
            "the Sigstore test stack exited with " + process.exitValue() + ":\n" + tail(log));
      }
      if (System.nanoTime() > deadline) {
        process.destroyForcibly();
        throw new IllegalStateException(
            "the Sigstore test stack did not write stack.json within "
                + START_TIMEOUT
                + ":\n"
                + tail(log));
      }
      Thread.sleep(50);
    }
    JsonNode stackJson = JSON.readTree(stackJsonFile.toFile());
    SigstoreTestStack stack = new SigstoreTestStack(process, stackDir, outDir, stackJson);
    Runtime.getRuntime().addShutdownHook(new Thread(stack::stop, "sigstore-test-stack-stop"));
    try {
      stack.trustItsTls();
    } catch (IOException e) {
      stack.stop();
      throw new IllegalStateException(
          "could not write the test JVM's trust store: " + e.getMessage(), e);
    }
    return stack;
  }

  /**
   * sigstore-java 2.0.0 always talks to Fulcio over gRPC with TLS, and its gRPC client trusts only
   * the JVM's default trust store (there is no option to pass one through KeylessSigner). The
   * stack's TLS certificate is generated at start, so the test JVM must trust it before the first
   * Fulcio call; each Fulcio call builds a fresh channel and reads these properties then. This is
   * the one JVM-wide property the tests set. The store holds the JDK's CAs plus the stack's (the
   * stack's own truststore.p12 holds only its CA), so nothing else in the JVM loses trust.
   */
  private void trustItsTls() throws IOException {
    Path truststore = out.getParent().resolve("jvm-truststore.p12");
    char[] password = "changeit".toCharArray();
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      Path jdkCacerts = Path.of(System.getProperty("java.home"), "lib", "security", "cacerts");
      if (Files.exists(jdkCacerts)) {
        try (InputStream in = Files.newInputStream(jdkCacerts)) {
          store.load(in, password);
        }
      } else {
        store.load(null, password);
      }
      try (InputStream pem = Files.newInputStream(out.resolve("tls-ca.pem"))) {
        store.setCertificateEntry(
            "sigstore-test-stack-tls",
            CertificateFactory.getInstance("X.509").generateCertificate(pem));
      }
      try (OutputStream file = Files.newOutputStream(truststore)) {
        store.store(file, password);
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("could not build a trust store with the stack's TLS CA", e);
    }
    System.setProperty("javax.net.ssl.trustStore", truststore.toString());
    System.setProperty("javax.net.ssl.trustStorePassword", "changeit");
    System.setProperty("javax.net.ssl.trustStoreType", "PKCS12");
  }

  void stop() {
    try {
      lifeline.close();
    } catch (IOException ignored) {
      // the process is going away anyway
    }
    process.destroy();
    try {
      process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    deleteRecursively(out.getParent());
  }

  /** The directory the stack was installed in (holds {@code tools/verify.mjs}). */
  public Path stackDir() {
    return stackDir;
  }

  /** The {@code --out} directory: trust material and {@code stack.json}. */
  public Path outDir() {
    return out;
  }

  public Path trustedRoot() {
    return out.resolve("trusted_root.json");
  }

  /** The signing config whose Fulcio URL is the TLS (gRPC) port, as sigstore-java needs. */
  public Path signingConfig() {
    return out.resolve("signing_config.json");
  }

  /** {@code http://127.0.0.1:PORT}. */
  public String baseUrl() {
    return stackJson.path("urls").path("base").asText();
  }

  /** {@code https://127.0.0.1:TLSPORT}: the same routes over TLS (the test JVM trusts its CA). */
  public String tlsBaseUrl() {
    return stackJson.path("urls").path("tlsBase").asText();
  }

  /** The SAN of certificates issued for the default token claims. */
  public String identitySan() {
    return stackJson.path("identity").path("san").asText();
  }

  public String identityIssuer() {
    return stackJson.path("identity").path("issuer").asText();
  }

  /**
   * {@code GITHUB_ACTIONS}, {@code ACTIONS_ID_TOKEN_REQUEST_URL} and {@code _TOKEN} for the stack.
   */
  public Map<String, String> githubEnv() {
    Map<String, String> env = new LinkedHashMap<>();
    stackJson.path("env").properties().forEach(e -> env.put(e.getKey(), e.getValue().asText()));
    return env;
  }

  /** Counters from {@code GET /__stats}. */
  public Stats stats() {
    JsonNode stats = readJson(get("/__stats"));
    JsonNode issued = stats.path("issued");
    return new Stats(
        issued.path("certificates").asInt(),
        issued.path("logEntries").asInt(),
        issued.path("tokens").asInt(),
        issued.path("timestamps").asInt(),
        stats);
  }

  public void resetStats() {
    send(HttpRequest.newBuilder(uri("/__stats/reset")).POST(HttpRequest.BodyPublishers.noBody()));
  }

  /** {@code POST /__faults}, e.g. {@code {"rekor":{"after":2,"status":503}}}. */
  public void injectFault(String json) {
    send(
        HttpRequest.newBuilder(uri("/__faults"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public void clearFaults() {
    send(HttpRequest.newBuilder(uri("/__faults")).DELETE());
  }

  /** A token for audience {@code sigstore}, with {@code claims} overriding the defaults. */
  public String tokenFor(Map<String, String> claims) {
    StringBuilder query = new StringBuilder("/__token?audience=sigstore");
    claims.forEach(
        (k, v) ->
            query
                .append('&')
                .append(URLEncoder.encode(k, StandardCharsets.UTF_8))
                .append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8)));
    return get(query.toString()).trim();
  }

  /**
   * Runs the independent sigstore-js verifier ({@code tools/verify.mjs}) on a bundle.
   *
   * @return its exit code (0 = verified) and combined output
   */
  public ToolResult verifyWithSigstoreJs(Path bundle, Path artifact, String san, String issuer) {
    List<String> command =
        new ArrayList<>(
            List.of(
                "node",
                stackDir.resolve("tools/verify.mjs").toString(),
                "--trusted-root",
                trustedRoot().toString(),
                "--bundle",
                bundle.toString(),
                "--artifact",
                artifact.toString(),
                "--san",
                san,
                "--issuer",
                issuer));
    try {
      Process verifier =
          new ProcessBuilder(command)
              .directory(stackDir.toFile())
              .redirectErrorStream(true)
              .start();
      verifier.getOutputStream().close();
      String output = new String(verifier.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      return new ToolResult(verifier.waitFor(), output);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The stack's counters; {@code raw} is the whole {@code /__stats} document. */
  public record Stats(int certificates, int logEntries, int tokens, int timestamps, JsonNode raw) {}

  public record ToolResult(int exitCode, String output) {}

  private String get(String path) {
    return send(HttpRequest.newBuilder(uri(path)).GET());
  }

  private URI uri(String path) {
    return URI.create(baseUrl() + path);
  }

  private String send(HttpRequest.Builder request) {
    try {
      HttpResponse<String> response =
          http.send(
              request.timeout(Duration.ofSeconds(30)).build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() / 100 != 2) {
        throw new IllegalStateException(
            "the Sigstore test stack answered "
                + response.statusCode()
                + " to "
                + response.uri()
                + ": "
                + response.body());
      }
      return response.body();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode readJson(String text) {
    try {
      return JSON.readTree(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String tail(Path log) {
    try {
      if (!Files.exists(log)) {
        return "(no output)";
      }
      List<String> lines = Files.readAllLines(log);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    } catch (IOException e) {
      return "(could not read " + log + ": " + e.getMessage() + ")";
    }
  }

  static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // temp files; best effort
    }
  }
}
