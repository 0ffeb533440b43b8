package dev.countersign.cli;

import static dev.countersign.cli.ActionPipelineTest.configMap;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.ActionsRunnerModel;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Workflow-command injection through the Action entry (issue 9, finding 7): file names, YAML, event
 * payloads and exception messages are attacker text. Each run's real stdout and stderr go through a
 * model of the runner; it must execute only the commands countersign means (masks, groups,
 * annotations), never one the attacker wrote, and every mask must still take effect. Attacker text
 * is marked {@code PWNED}: an executed command whose data or property starts with it is an
 * injection.
 */
@RequiresSigstoreStack
class WorkflowCommandInjectionTest {

  private static final String TOKEN = ActionTestEnv.TOKEN;
  private static final Set<String> OURS =
      Set.of("add-mask", "group", "endgroup", "error", "warning", "notice");

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;

  WorkflowCommandInjectionTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main", Map.of("unsigned/app.yaml", configMap("app", "1")), Set.of(), "add app");
  }

  @Test
  void fileNamedWithV1StopCommands_isSigned_andTheOidcTokenMaskStillWorks() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/##[stop-commands]PWNED-stop.yaml", configMap("v1", "1"),
            "unsigned/a ##[error]PWNED-error.yaml", configMap("v1b", "1"),
            "unsigned/ ::warning::PWNED-warning.yaml", configMap("v2", "1")),
        Set.of(),
        "hostile names");
    stack.resetStats();

    CliRun run =
        CliRun.run(
            actionEnv(git.clone("ws", 1, true), "pull_request", mergedPullRequestEvent()),
            "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(stack.stats().tokens())
        .as("the OIDC token was fetched after the names were printed")
        .isPositive();
    assertThat(git.originFiles("main")).containsKey("signed/##[stop-commands]PWNED-stop.yaml");
    ActionsRunnerModel runner = assertNoInjection(run);
    assertMasksHeld(run, runner, true);
    assertThat(run.out()).contains("##%5Bstop-commands]PWNED-stop.yaml"); // shown, defused
  }

  @Test
  void fileNameWithNewlineAndCommands_neverBecomesACommand() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/x\n::stop-commands::PWNED-nl\n.yaml", configMap("nl", "1"),
            "unsigned/y\r::warning file=README.md::PWNED-cr.yaml", configMap("cr", "1")),
        Set.of(),
        "newline names");

    CliRun run =
        CliRun.run(
            actionEnv(git.clone("ws", 1, true), "pull_request", mergedPullRequestEvent()),
            "action");

    // Whether such names are signed or refused is the file set's decision; the log must hold either
    // way.
    assertThat(run.exitCode()).as(run.all()).isIn(0, ExitCode.INVALID_INPUT.code());
    ActionsRunnerModel runner = assertNoInjection(run);
    assertMasksHeld(run, runner, false);
  }

  @Test
  void
      yamlKeysWithCommands_inAMultiLineErrorMessage_areDefused_andTheAnnotationStillPointsAtTheLine()
          throws Exception {
    String hostile =
        configMap("dup", "1")
            + "  \"k\\n::stop-commands::PWNED-yaml\\n##[error]PWNED-yaml2\": a\n"
            + "  \"k\\n::stop-commands::PWNED-yaml\\n##[error]PWNED-yaml2\": b\n";
    git.commitToOrigin("main", Map.of("unsigned/dup.yaml", hostile), Set.of(), "hostile yaml");
    String before = git.originHead("main");

    CliRun run =
        CliRun.run(
            actionEnv(git.clone("ws", 1, true), "pull_request", mergedPullRequestEvent()),
            "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(git.originHead("main")).isEqualTo(before);
    ActionsRunnerModel runner = assertNoInjection(run);
    assertMasksHeld(run, runner, false);
    // Control: the annotation is still there, on the file and line, with the whole message.
    assertThat(runner.executed())
        .anySatisfy(
            c -> {
              assertThat(c.name()).isEqualTo("error");
              assertThat(c.properties())
                  .containsEntry("file", "unsigned/dup.yaml")
                  .containsEntry("line", "9");
              assertThat(c.data()).contains("duplicate key").contains("PWNED-yaml");
            });
    // The multi-line message on stderr: every continuation line is prefixed, none at column 0.
    assertThat(run.err().lines().filter(l -> l.contains("PWNED-yaml")))
        .isNotEmpty()
        .allMatch(l -> l.startsWith("error: ") || l.startsWith("  | "));
  }

  @Test
  void actionInputsWithCommands_inUsageErrors_areDefused() throws Exception {
    Map<String, String> env =
        actionEnv(git.clone("ws", 1, true), "pull_request", mergedPullRequestEvent());
    env.put("INPUT_COMMAND", "run\n::stop-commands::PWNED-input\n##[add-mask]PWNED-input2");

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("PWNED-input");
    assertMasksHeld(run, assertNoInjection(run), false);

    Map<String, String> picocliEnv =
        actionEnv(git.clone("ws2", 1, true), "pull_request", mergedPullRequestEvent());
    // One line: an input that takes one value refuses a second line before picocli sees it, and
    // the runner runs "##[" anywhere in a line.
    picocliEnv.put("INPUT_PARALLEL", "x ##[warning]PWNED-picocli");
    CliRun picocli = CliRun.run(picocliEnv, "action");
    assertThat(picocli.exitCode()).as(picocli.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(picocli.err()).contains("PWNED-picocli");
    assertMasksHeld(picocli, assertNoInjection(picocli), false);
  }

  @Test
  void eventPayloadWithCommands_inTitlesAndBranchNames_isDefused() throws Exception {
    ObjectNode payload = (ObjectNode) new ObjectMapper().readTree(mergedPullRequestEvent());
    ObjectNode pr = (ObjectNode) payload.get("pull_request");
    pr.put("title", "fix\n::stop-commands::PWNED-title");
    ((ObjectNode) pr.get("head")).put("ref", "b\n##[error]PWNED-ref");
    ((ObjectNode) pr.get("head")).put("label", "::warning::PWNED-label");

    CliRun run =
        CliRun.run(
            actionEnv(git.clone("ws", 1, true), "pull_request", payload.toString()), "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertMasksHeld(run, assertNoInjection(run), true);
  }

  // --- helpers ---

  /**
   * Feeds stderr and then stdout (and, separately, the other order: the runner interleaves them)
   * through the runner model; asserts only countersign's own commands ran.
   */
  private static ActionsRunnerModel assertNoInjection(CliRun run) {
    ActionsRunnerModel errFirst = new ActionsRunnerModel().feed(run.err()).feed(run.out());
    ActionsRunnerModel outFirst = new ActionsRunnerModel().feed(run.out()).feed(run.err());
    for (ActionsRunnerModel runner : List.of(errFirst, outFirst)) {
      assertThat(runner.commandsStopped()).as(run.all()).isFalse();
      for (ActionsRunnerModel.Command c : runner.executed()) {
        assertThat(c.name()).as(c.line()).isIn(OURS);
        assertThat(c.line())
            .as("countersign writes commands at column 0")
            .startsWith("::" + c.name());
        assertThat(c.data()).as(c.line()).doesNotStartWith("PWNED");
        assertThat(c.properties().values()).as(c.line()).noneMatch(v -> v.startsWith("PWNED"));
      }
    }
    return outFirst;
  }

  /**
   * Every secret countersign masks (the token input, and the OIDC token when it signed) is masked
   * by an executed {@code add-mask} and never displayed.
   */
  private static void assertMasksHeld(CliRun run, ActionsRunnerModel runner, boolean signed) {
    List<String> masked =
        runner.executed().stream()
            .filter(c -> c.name().equals("add-mask"))
            .map(ActionsRunnerModel.Command::data)
            .toList();
    assertThat(masked).contains(TOKEN);
    if (signed) {
      assertThat(masked).as("the OIDC token is masked").anyMatch(m -> m.startsWith("eyJ"));
    }
    assertThat(run.out()).startsWith("::add-mask::" + TOKEN);
    for (String secret : masked) {
      assertThat(runner.displayed()).noneMatch(line -> line.contains(secret));
    }
  }

  private Map<String, String> actionEnv(Path ws, String eventName, String eventJson) {
    return ActionTestEnv.of(stack, tmp, ws, eventName, eventJson);
  }

  private static String mergedPullRequestEvent() {
    return ActionTestEnv.mergedPullRequestEvent();
  }
}
