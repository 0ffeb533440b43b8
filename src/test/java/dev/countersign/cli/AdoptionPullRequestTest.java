package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pull request that adopts countersign, as the generated check-on-pr workflow runs on it: a
 * repository with manifests and no countersign yet, a pull request adding what {@code init} wrote,
 * checked out as GitHub's merge. Its base has no trust policy, so the gate cannot judge it; it must
 * say so instead of telling the author to run init, which is what they just did, and it must not
 * pass.
 */
class AdoptionPullRequestTest {

  @TempDir Path tmp;
  private GitFixture git;

  @BeforeEach
  void repositoryBeforeCountersign() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main",
        Map.of("unsigned/sample-configmap.yaml", fixture("sample-configmap.yaml")),
        Set.of(),
        "the team's manifests");
  }

  @Test
  void theAdoptionPullRequest_isNotPassed_andTheErrorSaysItAddsTheFirstTrustPolicy()
      throws Exception {
    git.branchOnOrigin("adopt", "main");
    String head = git.commitToOrigin("adopt", initFiles(), Set.of(), "adopt countersign");

    CliRun run = checkMergeOf("adopt", head);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.all())
        .contains(
            "this change adds the first trust policy",
            "perhaps you should review this change by hand and merge it without the check")
        .doesNotContain("run \"countersign init\"");
    assertThat(run.all()).doesNotContain("result=passed");
  }

  @Test
  void control_aPullRequestAddingNoTrustPolicy_toABaseWithout_isToldToRunInit() throws Exception {
    git.branchOnOrigin("feature", "main");
    String head =
        git.commitToOrigin(
            "feature",
            Map.of("unsigned/concat.yaml", fixture("sample-configmap-concat.yaml")),
            Set.of(),
            "another manifest");

    CliRun run = checkMergeOf("feature", head);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.all())
        .contains("perhaps you should run \"countersign init\" and commit its files")
        .doesNotContain("adds the first trust policy");
  }

  @Test
  void control_onceTheAdoptionIsMerged_theNextPullRequestIsJudgedByItsRules() throws Exception {
    git.commitToOrigin("main", initFiles(), Set.of(), "adopt countersign (#1)");
    git.branchOnOrigin("feature", "main");
    // Renamed: main's unsigned/sample-configmap.yaml holds sample-cm, which would be signed twice.
    String another =
        fixture("sample-configmap-concat.yaml").replace("name: sample-cm\n", "name: another-cm\n");
    String head =
        git.commitToOrigin(
            "feature", Map.of("unsigned/concat.yaml", another), Set.of(), "another manifest");

    CliRun run = checkMergeOf("feature", head);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("unsigned: 2 files, 3 documents");
  }

  /**
   * A file signed by an identity the adopted policy does not trust (real 2022 public-good
   * signatures): doctor says to move it back under unsigned/ to sign it again, and a pull request
   * doing exactly what the hint says passes the gate.
   */
  @Test
  void doctorsHintForAFileSignedByAnOldIdentity_followed_passesTheGate() throws Exception {
    adoptedWithAnOldSignature();
    Path clone = git.clone("doctor", 0, false);

    CliRun doctor =
        CliRun.run(
            Map.of(), "doctor", "--owner", "acme", "--name", "deploy", "--repo", clone.toString());

    assertThat(doctor.exitCode()).as(doctor.all()).isEqualTo(1);
    assertThat(doctor.out())
        .contains(
            "which the trust policy no longer accepts",
            "move it back under the unsigned directory and delete its cosign.sigstore.dev/"
                + " annotations");
    String unsignedAgain =
        fixture("sample-configmap-keyless-multi-signed.yaml")
            .replaceAll("(?m)^  annotations:\\n(    cosign\\.sigstore\\.dev/.*\\n)+", "");
    assertThat(unsignedAgain).doesNotContain("cosign.sigstore.dev/");
    git.branchOnOrigin("resign", "main");
    String head =
        git.commitToOrigin(
            "resign",
            Map.of("unsigned/old.yaml", unsignedAgain),
            Set.of("signed/old.yaml"),
            "sign old.yaml again with the current workflow");

    CliRun check = checkMergeOf("resign", head);

    assertThat(check.exitCode()).as(check.all()).isZero();
  }

  @Test
  void control_movingTheFileBackWithItsOldSignature_isRefusedByTheGate() throws Exception {
    adoptedWithAnOldSignature();
    git.branchOnOrigin("resign", "main");
    String head =
        git.commitToOrigin(
            "resign",
            Map.of("unsigned/old.yaml", fixture("sample-configmap-keyless-multi-signed.yaml")),
            Set.of("signed/old.yaml"),
            "git mv signed/old.yaml unsigned/");

    CliRun check = checkMergeOf("resign", head);

    assertThat(check.exitCode()).as(check.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(check.out()).contains("countersign/no-preset-signature");
  }

  private void adoptedWithAnOldSignature() throws Exception {
    Map<String, String> files = new TreeMap<>(initFiles());
    files.put("signed/old.yaml", fixture("sample-configmap-keyless-multi-signed.yaml"));
    git.commitToOrigin("main", files, Set.of("unsigned/sample-configmap.yaml"), "adopted");
  }

  /** What {@code countersign init} writes for this repository, by repository path. */
  private Map<String, String> initFiles() throws Exception {
    Path scratch = git.clone("scratch", 0, false);
    CliRun init =
        CliRun.run(
            Map.of(), "init", "--owner", "acme", "--name", "deploy", "--repo", scratch.toString());
    assertThat(init.exitCode()).as(init.all()).isZero();
    Map<String, String> files = new TreeMap<>();
    for (String dir : new String[] {".github", ".countersign"}) {
      try (Stream<Path> walk = Files.walk(scratch.resolve(dir))) {
        for (Path file : walk.filter(Files::isRegularFile).toList()) {
          files.put(
              scratch.relativize(file).toString().replace('\\', '/'),
              Files.readString(file, StandardCharsets.UTF_8));
        }
      }
    }
    assertThat(files).containsKey(".countersign/policy.yaml");
    return files;
  }

  /**
   * {@code check} through the Action entry on a pull_request event for {@code branch}, checked out
   * as actions/checkout does by default: GitHub's merge of the head into main.
   */
  private CliRun checkMergeOf(String branch, String head) throws Exception {
    String base = git.originHead("main");
    String merge = git.mergeOnOrigin("pull-1-merge", "main", branch);
    Path ws = git.cloneBranch("ws", "pull-1-merge", 0);
    Path event = tmp.resolve("event.json");
    Files.writeString(
        event,
        "{\"action\":\"opened\",\"number\":1,\"pull_request\":{\"number\":1,"
            + "\"base\":{\"ref\":\"main\",\"sha\":\""
            + base
            + "\"},\"head\":{\"ref\":\""
            + branch
            + "\",\"sha\":\""
            + head
            + "\"}}}");
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", "pull_request");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_SHA", merge);
    env.put("GITHUB_WORKSPACE", ws.toString());
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_COMMAND", "check");
    CliRun run = CliRun.run(env, "action");
    if (Files.exists(tmp.resolve("output"))) {
      return new CliRun(
          run.exitCode(), run.out() + Files.readString(tmp.resolve("output")), run.err());
    }
    return run;
  }

  private static String fixture(String name) throws IOException {
    try (InputStream in =
        AdoptionPullRequestTest.class.getResourceAsStream(
            "/manifest/k8s-manifest-sigstore/" + name)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
