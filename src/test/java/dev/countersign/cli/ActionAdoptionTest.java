package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.countersign.action.ActionInputs;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a first Action user meets: no spurious warnings, declared outputs, keyed Rekor upload as an
 * input.
 */
class ActionAdoptionTest {

  @TempDir Path repo;
  @TempDir Path tmp;

  @Test
  void check_withTheTokenTheRunnerAlwaysSets_doesNotWarnAboutIt_andWritesDeclaredOutputs()
      throws Exception {
    assertThat(
            CliRun.run(
                    Map.of(),
                    "init",
                    "--owner",
                    "acme",
                    "--name",
                    "deploy",
                    "--repo",
                    repo.toString())
                .exitCode())
        .isZero();
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_WORKSPACE", repo.toString());
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_COMMAND", "check");
    env.put("INPUT_TOKEN", "ghs_theJobTokenTheRunnerSetsFromTheDefault");

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.all()).doesNotContain("has no effect");
    JsonNode outputs =
        new ObjectMapper(new YAMLFactory()).readTree(Path.of("action.yml").toFile()).get("outputs");
    for (String line : Files.readAllLines(tmp.resolve("output"))) {
      if (line.contains("=")) {
        assertThat(outputs.has(line.substring(0, line.indexOf('=')))).as(line).isTrue();
      }
    }
    assertThat(Files.readString(tmp.resolve("output"))).contains("errors=0\n", "warnings=0\n");
  }

  @Test
  void check_withAnInputItDoesNotUse_stillWarns() throws Exception {
    assertThat(
            CliRun.run(
                    Map.of(),
                    "init",
                    "--owner",
                    "acme",
                    "--name",
                    "deploy",
                    "--repo",
                    repo.toString())
                .exitCode())
        .isZero();
    CliRun run = action(Map.of("INPUT_COMMAND", "check", "INPUT_TITLE", "x"));

    assertThat(run.all()).contains("Input title has no effect on command check");
  }

  @Test
  void promote_withoutItsRequiredInputs_namesTheInputs_inOneAnnotation_withoutTheUsageText() {
    CliRun run = action(Map.of("INPUT_COMMAND", "promote", "INPUT_TO", "prod/signed"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .startsWith(
            "::error title=countersign usage problem::Command promote needs input \"from\"");
    assertThat(run.all()).doesNotContain("Usage: countersign").doesNotContain("--from=DIR");
  }

  @Test
  void inputValueTheOptionCannotTake_isReportedAgainstTheInput_escaped() {
    // The runner decodes %0A in an annotation into a line break; the value's % is escaped, so it
    // stays text.
    CliRun run = action(Map.of("INPUT_PUSH_ATTEMPTS", "three%0A::warning::injected"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .startsWith(
            "::error title=countersign usage problem::Input push_attempts: Invalid value for"
                + " option '--push-attempts': 'three%250A::warning::injected' is not an int");
    assertThat(run.all().lines()).noneMatch(line -> line.startsWith("::warning"));
    assertThat(run.all()).doesNotContain("Usage: countersign");
  }

  @Test
  void inputValueTheCommandRefusesAfterParsing_isReportedAgainstTheInput() {
    CliRun run = action(Map.of("INPUT_PARALLEL", "2000", "INPUT_DRY_RUN", "true"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .startsWith(
            "::error title=countersign usage problem::Input parallel: --parallel 2000 is more"
                + " signatures in flight than countersign keeps (at most 1024)");
  }

  @Test
  void malformedDirectoryPairInput_namesTheInputAndTheOption() {
    CliRun run = action(Map.of("INPUT_DIRS", "unsigned=signed", "INPUT_DRY_RUN", "true"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("error: Input dirs: --dir \"unsigned=signed\" is not a directory pair");
  }

  @Test
  void refusedValueOnTheCommandLine_namesTheOptionOnly() {
    CliRun run = CliRun.run(Map.of(), "run", "--repo", repo.toString(), "--parallel", "0");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("error: --parallel 0 lets no signature be made")
        .doesNotContain("Input ");
  }

  @Test
  void inputWithASecondLine_whereOneValueIsExpected_failsTheStepNamingTheInput() {
    // Neither line is taken as the branch, and the value is not repeated where the runner would
    // run its second line as a command.
    CliRun run =
        action(Map.of("INPUT_BRANCH", "main\n::warning::injected", "INPUT_DRY_RUN", "true"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .startsWith(
            "::error title=countersign usage problem::Input branch takes one line, got 2 (");
    assertThat(run.all()).doesNotContain("injected").doesNotContain("Usage: countersign");
  }

  @Test
  void tlogUploadInput_becomesTheRunOption() {
    List<String> args =
        ActionInputs.arguments(
            Env.of(
                Map.of(
                    "INPUT_KEY",
                    "cosign.key",
                    "INPUT_TLOG_UPLOAD",
                    "true",
                    "INPUT_REKOR_URL",
                    "https://rekor.example")),
            "run",
            option -> true);

    assertThat(args)
        .containsSubsequence("run", "--key=cosign.key")
        .contains("--tlog-upload", "--rekor-url=https://rekor.example");
  }

  /** The Action entry in {@link #repo}, as the runner starts it, with these INPUT_* variables. */
  private CliRun action(Map<String, String> inputs) {
    Map<String, String> env = new HashMap<>(inputs);
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_WORKSPACE", repo.toString());
    return CliRun.run(env, "action");
  }
}
