package dev.countersign.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A real OCI registry on loopback for tests: Debian's {@code docker-registry} (the CNCF
 * distribution server) with a temporary config (a free 127.0.0.1 port, filesystem storage in a
 * temporary directory, no auth unless an htpasswd file is given), started as a child process and
 * stopped when the JVM exits.
 */
public final class OciTestRegistry {

  private final Process process;
  private final Path dir;
  private final int port;

  private OciTestRegistry(Process process, Path dir, int port) {
    this.process = process;
    this.dir = dir;
    this.port = port;
  }

  /**
   * @param binary the {@code docker-registry} executable
   * @param htpasswd an htpasswd (bcrypt) file to require basic auth with, or null for none
   */
  public static OciTestRegistry start(Path binary, Path htpasswd)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("countersign-registry-");
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    String auth =
        htpasswd == null
            ? ""
            : """
            auth:
              htpasswd:
                realm: countersign-test
                path: %s
            """
                .formatted(htpasswd.toAbsolutePath());
    Path config = dir.resolve("config.yml");
    Files.writeString(
        config,
        """
        version: 0.1
        log:
          level: error
          accesslog:
            disabled: true
        storage:
          filesystem:
            rootdirectory: %s
          delete:
            enabled: true
        http:
          addr: 127.0.0.1:%d
        %s\
        """
            .formatted(dir.resolve("storage"), port, auth));
    Process process =
        new ProcessBuilder(binary.toString(), "serve", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("registry.log").toFile())
            .start();
    OciTestRegistry registry = new OciTestRegistry(process, dir, port);
    Runtime.getRuntime().addShutdownHook(new Thread(registry::stop));
    registry.awaitReady();
    return registry;
  }

  private void awaitReady() throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    Instant deadline = Instant.now().plusSeconds(30);
    while (Instant.now().isBefore(deadline)) {
      if (!process.isAlive()) {
        throw new IOException("docker-registry exited with " + process.exitValue() + ": " + log());
      }
      try {
        int status =
            http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v2/"))
                        .timeout(Duration.ofSeconds(2))
                        .build(),
                    HttpResponse.BodyHandlers.discarding())
                .statusCode();
        if (status == 200 || status == 401) {
          return;
        }
      } catch (IOException notYet) {
        // not listening yet
      }
      Thread.sleep(50);
    }
    stop();
    throw new IOException(
        "docker-registry did not answer on 127.0.0.1:" + port + " within 30 s: " + log());
  }

  /** {@code 127.0.0.1:PORT}. */
  public String host() {
    return "127.0.0.1:" + port;
  }

  /** The registry's storage root (the distribution filesystem layout). */
  public Path storage() {
    return dir.resolve("storage");
  }

  /** Where blob {@code digest}'s bytes are stored, for tests that tamper with them. */
  public Path blobData(String digest) {
    String hex = digest.substring("sha256:".length());
    return storage()
        .resolve("docker/registry/v2/blobs/sha256")
        .resolve(hex.substring(0, 2))
        .resolve(hex)
        .resolve("data");
  }

  /**
   * Every file in the storage with its size and modification time: equal snapshots = nothing
   * written.
   */
  public List<String> snapshot() {
    if (!Files.isDirectory(storage())) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(storage())) {
      return files
          .filter(Files::isRegularFile)
          .sorted(Comparator.naturalOrder())
          .map(
              p -> {
                try {
                  return storage().relativize(p)
                      + " "
                      + Files.size(p)
                      + " "
                      + Files.getLastModifiedTime(p).toMillis();
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              })
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public String log() {
    try {
      return Files.readString(dir.resolve("registry.log"), StandardCharsets.UTF_8);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  public void stop() {
    if (process.isAlive()) {
      process.destroy();
      try {
        if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
          process.destroyForcibly();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    deleteRecursively(dir);
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(root)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException ignored) {
      // best effort: a temporary directory
    }
  }
}
