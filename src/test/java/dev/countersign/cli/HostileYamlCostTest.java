package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * YAML whose cost is the attack, in the files of the rules a pull request may change (the trust
 * policy, admission policies): {@code check} reads the pull request's versions to tell whether they
 * would still work after the merge, so they must cost bounded time and memory and end as a finding
 * naming the file and line. Each attack has its benign control.
 */
class HostileYamlCostTest {

  /**
   * An admission policy that reuses parts through anchors and aliases, as a careful author might.
   */
  private static final String POLICY_WITH_ALIASES =
      """
      apiVersion: admissionregistration.k8s.io/v1
      kind: ValidatingAdmissionPolicy
      metadata:
        name: configmaps-named
      spec:
        matchConstraints:
          resourceRules:
          - apiGroups: [""]
            apiVersions: &versions ["v1"]
            operations: &operations ["CREATE", "UPDATE"]
            resources: ["configmaps"]
          - apiGroups: [""]
            apiVersions: *versions
            operations: *operations
            resources: ["secrets"]
        validations:
        - expression: "has(object.metadata.name)"
          message: "every object needs a name"
      """;

  @TempDir Path tmp;
  private PullRequestGate gate;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
  }

  @Test
  void pullRequestAddingAnAdmissionPolicyThatExpandsThroughAliases_failsNamingItsLine()
      throws Exception {
    CliRun run =
        gate.check(
            gate.pullRequest(
                Map.of("policies/bomb.yaml", POLICY_WITH_ALIASES + aliasBomb("  ", 20)),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(errorLine(run, "policies/bomb.yaml"))
        .isBetween(
            POLICY_WITH_ALIASES.lines().count() + 1, POLICY_WITH_ALIASES.lines().count() + 20);
    assertThat(run.out())
        .contains(
            ",title=countersign policy::this change leaves the gate's rules unusable after the"
                + " merge: expands to more than 1000000 values through aliases (a YAML alias"
                + " bomb?)");
  }

  @Test
  void control_pullRequestAddingAnAdmissionPolicyWithAFewAliases_passesWithTheChangeReported()
      throws Exception {
    CliRun run =
        gate.check(
            gate.pullRequest(Map.of("policies/aliases.yaml", POLICY_WITH_ALIASES), Set.of(), 1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains("::warning file=policies/aliases.yaml,")
        .contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void pullRequestWhoseTrustPolicyExpandsThroughAliases_failsNamingItsLine() throws Exception {
    String policy = gate.seed().read(".countersign/policy.yaml");
    CliRun run =
        gate.check(
            gate.pullRequest(
                Map.of(".countersign/policy.yaml", policy + "x:\n" + aliasBomb("  ", 20)),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(errorLine(run, ".countersign/policy.yaml"))
        .isBetween(policy.lines().count() + 2, policy.lines().count() + 21);
    assertThat(run.out())
        .contains(
            ",title=countersign policy::this change leaves the gate's rules unusable after the"
                + " merge: expands to more than 1000000 values through aliases");
  }

  @Test
  void pullRequestAddingAnAdmissionPolicyOverTheSizeLimit_failsNamingIt() throws Exception {
    CliRun run =
        gate.check(
            gate.pullRequest(
                Map.of(
                    "policies/big.yaml",
                    POLICY_WITH_ALIASES + "  description: " + "x".repeat(2 << 20) + "\n"),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=policies/big.yaml,title=countersign policy::this change leaves the"
                + " gate's rules unusable after the merge: is ")
        .contains("characters, larger than the limit of 1048576 for a configuration file");
  }

  @Test
  void control_pullRequestAddingAnAdmissionPolicyJustUnderTheSizeLimit_passes() throws Exception {
    String policy = POLICY_WITH_ALIASES + "  description: ";
    String large = policy + "x".repeat((1 << 20) - policy.length() - 1) + "\n";

    CliRun run =
        gate.check(gate.pullRequest(Map.of("policies/large.yaml", large), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void
      pullRequestWhoseGovernancePolicyDirectoryHoldsAFileOfGigabytes_failsNamingIt_withoutReadingIt()
          throws Exception {
    Path ws = gate.pullRequest(Map.of("policies/small.yaml", POLICY_WITH_ALIASES), Set.of(), 1);
    // Sparse: 3 GiB as the file system reports it, nothing on disk; more than one array holds.
    try (RandomAccessFile huge =
        new RandomAccessFile(ws.resolve("policies/huge.yaml").toFile(), "rw")) {
      huge.setLength(3L << 30);
    }

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=policies/huge.yaml,title=countersign policy::this change leaves the"
                + " gate's rules unusable after the merge: is more than 3145728 bytes, larger than"
                + " the limit of 1048576 characters for a configuration file");
  }

  @Test
  void pullRequestAddingRuleFilesAFewMegabytesOverTheLimit_failsNamingEach_andReportsTheRest()
      throws Exception {
    String over = "x".repeat((3 << 20) + (1 << 20));
    CliRun run =
        gate.check(
            gate.pullRequest(
                Map.of(
                    "policies/a.yaml",
                    POLICY_WITH_ALIASES + "  description: " + over + "\n",
                    "policies/b.yaml",
                    POLICY_WITH_ALIASES + "  description: " + over + "\n",
                    "policies/notes.bin",
                    over,
                    "policies/small.yaml",
                    POLICY_WITH_ALIASES),
                Set.of(),
                1),
            Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=policies/a.yaml,title=countersign policy::this change leaves the"
                + " gate's rules unusable after the merge: is more than 3145728 bytes")
        .contains("::warning file=policies/b.yaml,")
        .contains("::warning file=policies/notes.bin,")
        .contains("::warning file=policies/small.yaml,");
  }

  @Test
  void baseWhoseGovernancePolicyIsAFewMegabytesOverTheLimit_stopsNamingIt(@TempDir Path other)
      throws Exception {
    GateRepository seed = GateRepository.create(other.resolve("seed"), other.resolve("scratch"));
    seed.write(
        "policies/big.yaml", POLICY_WITH_ALIASES + "  description: " + "x".repeat(4 << 20) + "\n");
    PullRequestGate bigBase = new PullRequestGate(other, seed);

    CliRun run =
        bigBase.check(
            bigBase.pullRequest(Map.of("unsigned/note.txt", "hello\n"), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.all())
        .contains("policies/big.yaml")
        .contains("is more than 3145728 bytes, larger than the limit of 1048576 characters");
  }

  @Test
  void fileOverTheSizeLimitInAGovernanceDirectory_thePullRequestLeavesAlone_isNotReportedAsChanged(
      @TempDir Path other) throws Exception {
    // Not an admission policy, so the base's rules load; but it is a file of the rules.
    PullRequestGate bigBase = gateWhoseBaseHolds("policies/notes.bin", notes('a'), other);

    CliRun run =
        bigBase.check(
            bigBase.pullRequest(Map.of("unsigned/note.txt", "hello\n"), Set.of(), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).doesNotContain("policies/notes.bin");
  }

  @Test
  void control_fileOverTheSizeLimitInAGovernanceDirectory_thePullRequestChanges_isReported(
      @TempDir Path other) throws Exception {
    PullRequestGate bigBase = gateWhoseBaseHolds("policies/notes.bin", notes('a'), other);
    String sameSize = notes('a').substring(1) + "b";
    String longer = notes('a') + "more";

    for (String changed : java.util.List.of(sameSize, longer)) {
      CliRun run =
          bigBase.check(
              bigBase.pullRequest(Map.of("policies/notes.bin", changed), Set.of(), 1), Map.of());

      assertThat(run.exitCode()).as(run.all()).isZero();
      assertThat(run.out())
          .contains(
              "::warning file=policies/notes.bin,title=countersign policy::this change changes a"
                  + " file of the gate's rules");
    }
  }

  /** A gate whose main also holds {@code content} at {@code path}. */
  private static PullRequestGate gateWhoseBaseHolds(String path, String content, Path dir)
      throws Exception {
    GateRepository seed = GateRepository.create(dir.resolve("seed"), dir.resolve("scratch"));
    seed.write(path, content);
    return new PullRequestGate(dir, seed);
  }

  /** 4 MiB of {@code c}, over the 3 MiB the gate reads of a rule file. */
  private static String notes(char c) {
    return String.valueOf(c).repeat(4 << 20);
  }

  /** The line of the first error annotation on {@code file}. */
  private static long errorLine(CliRun run, String file) {
    Matcher error =
        Pattern.compile("(?m)^::error file=" + Pattern.quote(file) + ",line=(\\d+),")
            .matcher(run.out());
    assertThat(error.find()).as(run.all()).isTrue();
    return Long.parseLong(error.group(1));
  }

  /**
   * A "billion laughs" under a mapping key {@code x:} at {@code indent}: {@code levels} anchors,
   * each a list of two aliases of the one before, so the last stands for 2^levels values.
   */
  static String aliasBomb(String indent, int levels) {
    StringBuilder yaml = new StringBuilder(indent + "l0: &l0 [a, b]\n");
    for (int i = 1; i < levels; i++) {
      yaml.append(indent)
          .append("l")
          .append(i)
          .append(": &l")
          .append(i)
          .append(" [*l")
          .append(i - 1)
          .append(", *l")
          .append(i - 1)
          .append("]\n");
    }
    return yaml.toString();
  }
}
