package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.support.ExitCode;
import dev.countersign.testing.OciTestRegistry;
import dev.countersign.testing.OciTestRegistryExtension;
import dev.countersign.testing.RequiresOciRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Registry credentials against a distribution registry that requires basic auth (htpasswd):
 * anonymous and wrong credentials are an environment problem (exit 3) naming where the credentials
 * came from, the Docker config and {@code --registry-token} work, and the secret is never printed.
 */
@RequiresOciRegistry
class RegistryAuthTest {

  private static final String USER = "ci-bot";
  private static final String PASSWORD = "s3cret-registry-password-7d1f";
  private static OciTestRegistry registry;
  @TempDir static Path shared;
  @TempDir Path tmp;

  @BeforeAll
  static void startRegistryWithAuth(OciTestRegistry any) throws Exception {
    // `any` only proves the executable is there (and fails under CI when it is not).
    Path htpasswd = shared.resolve("htpasswd");
    byte[] salt = new byte[16];
    new SecureRandom().nextBytes(salt);
    Files.writeString(
        htpasswd,
        USER + ":" + OpenBSDBCrypt.generate("2a", PASSWORD.toCharArray(), salt, 4) + "\n");
    registry = OciTestRegistry.start(OciTestRegistryExtension.binary(), htpasswd);
  }

  @AfterAll
  static void stop() {
    if (registry != null) {
      registry.stop();
    }
  }

  @Test
  void anonymous_isDenied_withExitCode3() throws Exception {
    CliRun run = publish(Map.of("HOME", tmp.toString()));
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.err()).contains("Registry " + registry.host() + " denied access anonymously");
  }

  @Test
  void wrongToken_isDenied_andNotPrinted() throws Exception {
    CliRun run =
        publish(
            Map.of("HOME", tmp.toString()),
            "--registry-username",
            USER,
            "--registry-token",
            "wrong-token-value-0d9a");
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.err()).contains("with the credentials from --registry-token");
    assertThat(run.all()).doesNotContain("wrong-token-value-0d9a");
  }

  @Test
  void registryToken_andDockerConfig_bothWork_andTheSecretIsNeverPrinted() throws Exception {
    CliRun token =
        publish(
            Map.of("HOME", tmp.toString()),
            "--registry-username",
            USER,
            "--registry-token",
            PASSWORD);
    assertThat(token.exitCode()).as(token.all()).isZero();
    assertThat(token.all()).doesNotContain(PASSWORD);

    Path dockerConfig = Files.createDirectories(tmp.resolve("docker"));
    String auth =
        Base64.getEncoder()
            .encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    Files.writeString(
        dockerConfig.resolve("config.json"),
        "{\"auths\":{\"" + registry.host() + "\":{\"auth\":\"" + auth + "\"}}}");
    CliRun config = publish(Map.of("DOCKER_CONFIG", dockerConfig.toString()));
    assertThat(config.exitCode()).as(config.all()).isZero();
    assertThat(config.all()).doesNotContain(PASSWORD).doesNotContain(auth);
  }

  private CliRun publish(Map<String, String> env, String... extra) throws Exception {
    Path repo = PublishCommandTest.signedRepository(tmp, "auth", "x");
    java.util.List<String> args =
        new java.util.ArrayList<>(
            java.util.List.of(
                "publish",
                "--repo",
                repo.toString(),
                "signed",
                "--to",
                registry.host() + "/team/private",
                "--plain-http",
                "--no-sign"));
    args.addAll(java.util.List.of(extra));
    return CliRun.run(new HashMap<>(env), args.toArray(String[]::new));
  }
}
