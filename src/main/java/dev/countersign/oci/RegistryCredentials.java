package dev.countersign.oci;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Env;
import dev.countersign.support.Json;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Optional;

/**
 * A user name and secret for one registry, from {@code --registry-token} (or {@code
 * COUNTERSIGN_REGISTRY_TOKEN}) or the Docker client configuration ({@code
 * $DOCKER_CONFIG/config.json}, else {@code ~/.docker/config.json}, inline {@code auths} entries
 * only: credential helpers are not run). Never printed: {@link #toString()} hides the secret, and
 * error messages name only where credentials came from.
 *
 * @param source where they came from, for messages ("--registry-token", "~/.docker/config.json")
 */
public record RegistryCredentials(String username, String secret, String source) {

  /** The variable read when {@code --registry-token} is not given. */
  public static final String TOKEN_VARIABLE = "COUNTERSIGN_REGISTRY_TOKEN";

  private static final ObjectMapper JSON = Json.mapper();

  /** HTTP Basic value for these credentials. */
  String basic() {
    return "Basic "
        + Base64.getEncoder()
            .encodeToString((username + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The credentials to use for {@code registry}.
   *
   * @param token {@code --registry-token}, if given; wins over everything else
   * @param username {@code --registry-username}, used with a token (registries such as ghcr.io want
   *     a non-empty name and ignore its value for token logins)
   * @return empty when nothing is configured (anonymous access)
   * @throws UsageProblem when the Docker config exists but cannot be read as JSON
   */
  public static Optional<RegistryCredentials> resolve(
      String registry, Optional<String> token, Optional<String> username, Env env) {
    Optional<String> explicit =
        token.or(() -> env.exact(TOKEN_VARIABLE)).map(String::strip).filter(t -> !t.isEmpty());
    if (explicit.isPresent()) {
      String source = token.isPresent() ? "--registry-token" : TOKEN_VARIABLE;
      return Optional.of(
          new RegistryCredentials(username.orElse("countersign"), explicit.get(), source));
    }
    return dockerConfigFile(env).flatMap(file -> fromDockerConfig(file, registry));
  }

  /** {@code $DOCKER_CONFIG/config.json}, else {@code $HOME/.docker/config.json}, when it exists. */
  static Optional<Path> dockerConfigFile(Env env) {
    Optional<Path> file =
        env.exact("DOCKER_CONFIG")
            .filter(s -> !s.isBlank())
            .map(d -> Path.of(d, "config.json"))
            .or(
                () ->
                    env.exact("HOME")
                        .filter(s -> !s.isBlank())
                        .map(h -> Path.of(h, ".docker", "config.json")));
    return file.filter(
        f -> Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS) || Files.isRegularFile(f));
  }

  static Optional<RegistryCredentials> fromDockerConfig(Path file, String registry) {
    JsonNode root;
    try {
      root = JSON.readTree(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UsageProblem(
          "The Docker config "
              + file
              + " is not readable JSON while looking up registry credentials",
          "fix or remove it, or pass --registry-token");
    }
    JsonNode auths = root == null ? null : root.path("auths");
    if (auths == null || !auths.isObject()) {
      return Optional.empty();
    }
    for (String key :
        new String[] {
          registry,
          "https://" + registry,
          "http://" + registry,
          "https://" + registry + "/v1/",
          "https://" + registry + "/v2/"
        }) {
      JsonNode entry = auths.get(key);
      if (entry == null || !entry.isObject()) {
        continue;
      }
      String auth = entry.path("auth").asText("");
      if (!auth.isEmpty()) {
        String decoded;
        try {
          decoded = new String(Base64.getDecoder().decode(auth.strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
          throw new UsageProblem(
              "The Docker config "
                  + file
                  + " has an \"auth\" entry for "
                  + registry
                  + " that is not base64",
              "log in again (docker login / podman login) or pass --registry-token");
        }
        int colon = decoded.indexOf(':');
        if (colon > 0) {
          return Optional.of(
              new RegistryCredentials(
                  decoded.substring(0, colon), decoded.substring(colon + 1), file.toString()));
        }
      }
      String user = entry.path("username").asText("");
      String password = entry.path("password").asText("");
      if (!user.isEmpty() && !password.isEmpty()) {
        return Optional.of(new RegistryCredentials(user, password, file.toString()));
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "RegistryCredentials[username=" + username + ", secret=(hidden), source=" + source + "]";
  }
}
