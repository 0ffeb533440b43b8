package dev.countersign.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/** The environment the Action runs in, against the loopback Sigstore stack, for attack tests. */
final class ActionTestEnv {

  static final String TOKEN = "ghs_actionTestEnvToken0123456789abcdef";

  private ActionTestEnv() {}

  /**
   * GITHUB_* and INPUT_* for {@code action} in workspace {@code ws}; outputs and summary under
   * {@code tmp}.
   */
  static Map<String, String> of(
      SigstoreTestStack stack, Path tmp, Path ws, String eventName, String eventJson) {
    return of(stack, tmp, ws, eventName, eventJson, TOKEN, "output");
  }

  /**
   * As {@link #of(SigstoreTestStack, Path, Path, String, String)}, pushing with {@code token},
   * outputs in {@code tmp/outputName}.
   */
  static Map<String, String> of(
      SigstoreTestStack stack,
      Path tmp,
      Path ws,
      String eventName,
      String eventJson,
      String token,
      String outputName) {
    Map<String, String> env = runner(stack, tmp, ws, eventName, eventJson, outputName);
    env.put("INPUT_TOKEN", token);
    env.put("INPUT_SIGNING_CONFIG", stack.signingConfig().toString());
    env.put("INPUT_COMMAND", "");
    env.put("INPUT_DRY_RUN", "false");
    return env;
  }

  /**
   * The runner's part alone: GITHUB_* for event {@code eventName} in workspace {@code ws} (outputs
   * in {@code tmp/outputName}, summary in {@code tmp/summary}) and the loopback trusted root; no
   * token and no command (for {@code check}, which needs neither).
   */
  static Map<String, String> runner(
      SigstoreTestStack stack,
      Path tmp,
      Path ws,
      String eventName,
      String eventJson,
      String outputName) {
    try {
      Path eventFile = Files.createTempFile(tmp, "event", ".json");
      Files.writeString(eventFile, eventJson);
      Map<String, String> env = new HashMap<>(stack.githubEnv());
      env.put("GITHUB_ACTIONS", "true");
      env.put("GITHUB_EVENT_NAME", eventName);
      env.put("GITHUB_EVENT_PATH", eventFile.toString());
      env.put("GITHUB_WORKSPACE", ws.toString());
      env.put("GITHUB_REPOSITORY", "octo-org/octo-repo");
      env.put("GITHUB_REF", "refs/heads/main");
      env.put("GITHUB_RUN_ID", "4343");
      env.put("GITHUB_OUTPUT", tmp.resolve(outputName).toString());
      env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
      env.put("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString());
      return env;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The real merged-PR delivery, adapted: its base branch is main. */
  static String mergedPullRequestEvent() {
    try (var in =
        ActionTestEnv.class.getResourceAsStream(
            "/action/events/pull_request.closed.merged.from-fork.reallyfastci.json")) {
      ObjectMapper mapper = new ObjectMapper();
      ObjectNode payload =
          (ObjectNode) mapper.readTree(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      ((ObjectNode) payload.get("pull_request").get("base")).put("ref", "main");
      return mapper.writeValueAsString(payload);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The last value of each step output written to {@code file} (GITHUB_OUTPUT), heredoc form
   * included; empty when the file does not exist.
   */
  static Map<String, String> outputs(Path file) throws IOException {
    Map<String, String> values = new HashMap<>();
    if (!Files.exists(file)) {
      return values;
    }
    var lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      int heredoc = line.indexOf("<<");
      int eq = line.indexOf('=');
      if (heredoc > 0 && (eq < 0 || heredoc < eq)) {
        String name = line.substring(0, heredoc);
        String delimiter = line.substring(heredoc + 2);
        StringBuilder value = new StringBuilder();
        while (!lines.get(++i).equals(delimiter)) {
          value.append(value.length() == 0 ? "" : "\n").append(lines.get(i));
        }
        values.put(name, value.toString());
      } else if (eq > 0) {
        values.put(line.substring(0, eq), line.substring(eq + 1));
      }
    }
    return values;
  }
}
