package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code countersign doctor} reports like {@code check}: text, JSON, SARIF, annotations, exit 1 on
 * findings.
 */
class DoctorCommandTest {

  private static final String CHECK_WORKFLOW = ".github/workflows/check-on-pr.yml";

  /** A workflow GitHub runs; the attacks below change one key of it. */
  private static final String LINT_WORKFLOW =
      """
      name: lint
      on: push
      jobs:
        lint:
          runs-on: ubuntu-latest
          permissions:
            contents: read
          steps: [{run: "true"}]
      """;

  @TempDir Path repo;
  @TempDir Path tmp;

  @BeforeEach
  void initialised() throws Exception {
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
    Path workflow = repo.resolve(CHECK_WORKFLOW);
    Files.writeString(
        workflow,
        Files.readString(workflow)
            .replace(
                "actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683 # v4.2.2",
                "actions/checkout@v4"));
  }

  @Test
  void text_listsEachFindingWithFileAndLine_andExits1() {
    CliRun run =
        CliRun.run(
            Map.of(), "doctor", "--repo", repo.toString(), "--owner", "acme", "--name", "deploy");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out().lines().toList())
        .containsExactly(
            "error "
                + CHECK_WORKFLOW
                + ":19 [chain] actions/checkout@v4 is not pinned to a full commit SHA; a moved tag"
                + " runs other code with this job's token, perhaps you should write"
                + " actions/checkout@<40-hex commit of the release> # v4 (chain/action-pinned)",
            "doctor: the chain is broken: 1 finding, 1 Kyverno manifests rule read");
  }

  @Test
  void json_and_sarif_carryTheSameFinding() throws Exception {
    CliRun json =
        CliRun.run(
            Map.of(),
            "doctor",
            "--repo",
            repo.toString(),
            "--owner",
            "acme",
            "--name",
            "deploy",
            "--output",
            "json");
    JsonNode report = new ObjectMapper().readTree(json.out());
    assertThat(json.exitCode()).isEqualTo(1);
    assertThat(report.path("passed").asBoolean()).isFalse();
    assertThat(report.path("findings").get(0).path("file").asText()).isEqualTo(CHECK_WORKFLOW);
    assertThat(report.path("findings").get(0).path("line").asInt()).isEqualTo(19);
    assertThat(report.path("findings").get(0).path("check").asText()).isEqualTo("chain");

    Path sarifFile = tmp.resolve("out/doctor.sarif");
    CliRun sarif =
        CliRun.run(
            Map.of(),
            "doctor",
            "--repo",
            repo.toString(),
            "--owner",
            "acme",
            "--name",
            "deploy",
            "--output",
            "sarif",
            "--sarif-file",
            sarifFile.toString());
    JsonNode result =
        new ObjectMapper().readTree(sarif.out()).path("runs").get(0).path("results").get(0);
    assertThat(result.path("ruleId").asText()).isEqualTo("chain/action-pinned");
    assertThat(
            result
                .path("locations")
                .get(0)
                .path("physicalLocation")
                .path("region")
                .path("startLine")
                .asInt())
        .isEqualTo(19);
    assertThat(Files.readString(sarifFile)).isEqualTo(sarif.out());
  }

  @Test
  void inGitHubActions_findingsBecomeAnnotationsAndOutputs() throws Exception {
    Path output = tmp.resolve("output");
    Path summary = tmp.resolve("summary");
    CliRun run =
        CliRun.run(
            Map.of(
                "GITHUB_ACTIONS",
                "true",
                "GITHUB_OUTPUT",
                output.toString(),
                "GITHUB_STEP_SUMMARY",
                summary.toString(),
                "GITHUB_REPOSITORY",
                "acme/deploy"),
            "doctor",
            "--repo",
            repo.toString());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains(
            "::error file="
                + CHECK_WORKFLOW
                + ",line=19,title=countersign chain::actions/checkout@v4 is not pinned");
    assertThat(Files.readString(output)).contains("result=failed\n", "errors=1\n", "warnings=0\n");
    assertThat(Files.readString(summary)).startsWith("### countersign doctor\n");
  }

  @Test
  void workflowThatExpandsThroughAliases_isAFindingOnItsLine() throws Exception {
    String head = "name: bomb\non: push\nx:\n";
    Files.writeString(
        repo.resolve(".github/workflows/bomb.yml"),
        head + HostileYamlCostTest.aliasBomb("  ", 20) + "jobs: {}\n");

    CliRun run =
        CliRun.run(
            Map.of(), "doctor", "--repo", repo.toString(), "--owner", "acme", "--name", "deploy");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out())
        .containsPattern(
            "(?m)^error \\.github/workflows/bomb\\.yml:([4-9]|1[0-9]|2[0-3]) \\[chain\\] .*expands"
                + " to more than 1000000 values through aliases \\(a YAML alias bomb\\?\\)");
  }

  @Test
  void control_workflowWithAFewAliases_isReadWithoutAFinding() throws Exception {
    Files.writeString(
        repo.resolve(".github/workflows/aliases.yml"),
        """
        name: aliases
        on: push
        env: &env {A: "1"}
        jobs:
          one: {runs-on: ubuntu-latest, env: *env, steps: [{run: "true"}]}
          two: {runs-on: ubuntu-latest, env: *env, steps: [{run: "true"}]}
        """);

    CliRun run =
        CliRun.run(
            Map.of(), "doctor", "--repo", repo.toString(), "--owner", "acme", "--name", "deploy");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out()).doesNotContain("aliases.yml").contains("chain is broken: 1 finding");
  }

  @Test
  void workflowWithAKeyTwice_isAFindingOnTheSecondKey() throws Exception {
    // GitHub refuses the file ("'permissions' is already defined"), so it never runs; reading the
    // last value would check a workflow that does not exist.
    assertLintWorkflowFinding(
        LINT_WORKFLOW.replace("    steps:", "    permissions:\n      contents: write\n    steps:"),
        8,
        "the key \"permissions\" appears twice, perhaps you should remove one");
  }

  @Test
  void workflowWithTwoJobIdsDifferingOnlyInCase_isAFindingOnTheSecond() throws Exception {
    // GitHub compares job ids without regard to case and refuses the file, so it never runs;
    // checking both jobs would check a workflow that does not exist.
    assertLintWorkflowFinding(
        LINT_WORKFLOW + "  LINT:\n    runs-on: ubuntu-latest\n    steps: [{run: \"true\"}]\n",
        9,
        "the job id \"LINT\" differs from \"lint\" only in case, and GitHub refuses that, perhaps"
            + " you should rename one");
  }

  @Test
  void workflowWithASequenceAsAKey_isAFindingOnThatKey() throws Exception {
    // GitHub reads only plain values as keys; skipping this one would check what GitHub refuses.
    assertLintWorkflowFinding(
        LINT_WORKFLOW.replace("jobs:", "? [contents, write]\n: x\njobs:"),
        3,
        "a mapping key is not a plain value");
  }

  @Test
  void control_workflowWithEachKeyOnce_isReadWithoutAFinding() throws Exception {
    Files.writeString(repo.resolve(".github/workflows/lint.yml"), LINT_WORKFLOW);

    CliRun run = doctor();

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out()).doesNotContain("lint.yml").contains("chain is broken: 1 finding");
  }

  @Test
  void withoutAKnownGitHubRepository_exits2SayingWhatToPass() {
    CliRun run = CliRun.run(Map.of(), "doctor", "--repo", repo.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("The GitHub repository is unknown", "--owner OWNER --name NAME");
  }

  /**
   * Writes {@code workflow} as lint.yml and asserts doctor reports it as a finding on {@code line}
   * saying {@code message}, right after the rule: the location is not repeated in the text.
   */
  private void assertLintWorkflowFinding(String workflow, int line, String message)
      throws IOException {
    Files.writeString(repo.resolve(".github/workflows/lint.yml"), workflow);

    CliRun run = doctor();

    assertThat(run.exitCode()).as(run.all()).isEqualTo(1);
    assertThat(run.out())
        .containsPattern(
            "(?m)^error \\.github/workflows/lint\\.yml:"
                + line
                + " \\[chain\\] "
                + Pattern.quote(message));
  }

  private CliRun doctor() {
    return CliRun.run(
        Map.of(), "doctor", "--repo", repo.toString(), "--owner", "acme", "--name", "deploy");
  }
}
