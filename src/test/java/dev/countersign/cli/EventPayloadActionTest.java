package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Hostile or broken event payloads through the Action entry (issue 9, finding 8): each is an
 * environment problem (exit 3) whose message names GITHUB_EVENT_PATH, never an internal error, a
 * stack overflow or a silent skip; nothing is pushed.
 */
class EventPayloadActionTest {

  @TempDir Path tmp;
  private GitFixture git;

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main",
        Map.of("unsigned/app.yaml", ActionPipelineTest.configMap("app", "1")),
        Set.of(),
        "add app");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "nested 100,000 deep | DEEP | nests deeper than 100 levels",
        "truncated JSON      | {\"pull_request\": {\"merged\": tr | is not valid JSON",
        "top-level array     | [] | is an array, not a JSON object",
        "merged as a string  |"
            + " {\"action\":\"closed\",\"pull_request\":{\"merged\":\"true\",\"base\":{\"ref\":\"main\"}}}"
            + " | has a string at pull_request.merged",
        "pull_request number | {\"action\":\"closed\",\"pull_request\":42} | has a number at"
            + " pull_request where an object belongs",
        "invalid UTF-8       | BINARY | is not valid JSON",
        "missing file        | MISSING | does not exist",
      })
  void brokenPayload_isAnEnvironmentProblemNamingGithubEventPath(
      String attack, String payload, String expected) throws Exception {
    String before = git.originHead("main");
    Path event = tmp.resolve("event.json");
    switch (payload) {
      case "DEEP" ->
          Files.writeString(
              event, "{\"pull_request\":" + "{\"a\":".repeat(100_000) + "1" + "}".repeat(100_001));
      case "BINARY" ->
          Files.write(event, new byte[] {'{', '"', (byte) 0xC3, (byte) 0x28, '"', ':', '1', '}'});
      case "MISSING" -> {}
      default -> Files.writeString(event, payload);
    }
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", "pull_request");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_WORKSPACE", git.clone("ws", 1, true).toString());
    env.put("GITHUB_REPOSITORY", "octo-org/octo-repo");
    env.put("GITHUB_REF", "refs/heads/main");
    env.put("GITHUB_RUN_ID", "1");
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("INPUT_TOKEN", "ghs_eventPayloadTest");

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.err())
        .contains("GITHUB_EVENT_PATH")
        .contains(expected)
        .doesNotContain("unexpected");
    assertThat(git.originHead("main")).isEqualTo(before);
  }
}
