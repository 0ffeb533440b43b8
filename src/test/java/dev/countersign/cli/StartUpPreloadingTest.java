package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.support.Env;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Which starts request the identity token before the command line is parsed: a signing command over
 * a work tree whose unsigned directory holds something, and nothing else.
 */
class StartUpPreloadingTest {

  @TempDir Path workspace;

  @Test
  void maySignKeylessly_runOrTheActionsDefaultCommandWithAnUnsignedManifest_isTrue()
      throws IOException {
    unsigned("policy.yaml");

    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("run"))).isTrue();
    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("--stacktrace", "run")))
        .isTrue();
    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("action"))).isTrue();
    assertThat(
            StartUpPreloading.maySignKeylessly(
                env(Map.of("INPUT_COMMAND", "run")), List.of("action")))
        .isTrue();
  }

  @Test
  void maySignKeylessly_commandsThatDoNotSign_isFalse() throws IOException {
    unsigned("policy.yaml");

    for (List<String> args :
        List.of(
            List.<String>of(),
            List.of("check"),
            List.of("verify", "signed"),
            List.of("--help"),
            List.of("help", "run"),
            List.of("runx"))) {
      assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), args)).as("%s", args).isFalse();
    }
    for (String command : List.of("check", "promote", "publish", "doctor")) {
      assertThat(
              StartUpPreloading.maySignKeylessly(
                  env(Map.of("INPUT_COMMAND", command)), List.of("action")))
          .as(command)
          .isFalse();
    }
  }

  @Test
  void maySignKeylessly_withNothingToSign_isFalse() throws IOException {
    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("run"))).isFalse();
    Files.createDirectories(workspace.resolve("unsigned"));
    Files.writeString(workspace.resolve("unsigned/.gitkeep"), "");
    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("action"))).isFalse();
  }

  @Test
  void maySignKeylessly_whenUnsignedIsALink_isFalse(@TempDir Path elsewhere) throws IOException {
    Files.writeString(elsewhere.resolve("policy.yaml"), "kind: ConfigMap\n");
    Files.createSymbolicLink(workspace.resolve("unsigned"), elsewhere);

    assertThat(StartUpPreloading.maySignKeylessly(env(Map.of()), List.of("run"))).isFalse();
  }

  private void unsigned(String name) throws IOException {
    Files.createDirectories(workspace.resolve("unsigned"));
    Files.writeString(workspace.resolve("unsigned").resolve(name), "kind: ConfigMap\n");
  }

  private Env env(Map<String, String> extra) {
    Map<String, String> env = new HashMap<>(extra);
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_WORKSPACE", workspace.toString());
    return Env.of(env);
  }
}
