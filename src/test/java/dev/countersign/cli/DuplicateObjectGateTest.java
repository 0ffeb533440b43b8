package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One Kubernetes object in two files that GitOps deploys together, end to end through the Action's
 * {@code check} on a pull request ({@link PullRequestGate}). After the merge and the signing run it
 * triggers, a pair's signed directory holds the head's signed files with each unsigned file signed
 * over its target; Flux's kustomize build of that directory fails on an object it holds twice (so
 * nothing from it deploys any more), and Argo CD applies only the last one by path. So the gate
 * refuses a duplicate the pull request brings, wherever it comes from, and only reports one the
 * base branch already holds. Each attack has its benign control.
 */
class DuplicateObjectGateTest {

  /** The reviewed, signed policy on main: no ingress at all to the shop namespace. */
  private static final String DEFAULT_DENY = GateRepository.DEFAULT_DENY;

  /**
   * The same object letting in every pod of every namespace: the governance policies accept it (its
   * one ingress rule has a {@code from}), and in a file of its own the diff shows an addition.
   */
  private static final String ALLOW_FROM_EVERY_NAMESPACE =
      DEFAULT_DENY.replace(
          "  policyTypes: [Ingress]\n", "  ingress:\n  - from:\n    - namespaceSelector: {}\n");

  @TempDir java.nio.file.Path tmp;
  private PullRequestGate gate;
  private GateRepository seed;

  @BeforeEach
  void mainHoldsTheSignedDefaultDeny() throws Exception {
    gate = new PullRequestGate(tmp);
    seed = gate.seed();
    seed.sign("net/default-deny.yaml", DEFAULT_DENY);
    gate.git()
        .commitToOrigin(
            "main",
            Map.of("signed/net/default-deny.yaml", seed.read("signed/net/default-deny.yaml")),
            Set.of(),
            "default deny");
    gate.baseIsMain();
  }

  // --- an addition that replaces a reviewed object -------------------------------------------

  @Test
  void unsignedFileHoldingAnObjectTheBaseHasSignedAtAnotherPath_fails() throws Exception {
    CliRun run = checkPullRequest(Map.of("unsigned/net/zz-allow.yaml", ALLOW_FROM_EVERY_NAMESPACE));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/zz-allow.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/shop/default-deny: is also in signed/net/default-deny.yaml"
                + " (line "
                + firstLine("signed/net/default-deny.yaml")
                + ")")
        .contains(
            "perhaps you should change the object in unsigned/net/default-deny.yaml instead, or"
                + " give this one another name (countersign/duplicate-object)");
  }

  @Test
  void control_theUnsignedSourceChangingThatObjectAtItsOwnPath_passes() throws Exception {
    CliRun run =
        checkPullRequest(Map.of("unsigned/net/default-deny.yaml", ALLOW_FROM_EVERY_NAMESPACE));

    assertPassedWithoutAFinding(run);
  }

  @Test
  void control_movingTheObjectsSourceToANewPath_passes_andTheDeletionIsOnlyReported()
      throws Exception {
    CliRun run =
        check(
            Map.of("unsigned/net/policies/default-deny.yaml", DEFAULT_DENY),
            Set.of("signed/net/default-deny.yaml"));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains("::warning file=signed/net/default-deny.yaml,")
        .contains("check passed: 0 errors, 1 warning");
  }

  // --- the same object twice in what the pull request adds -----------------------------------

  @Test
  void twoNewUnsignedFilesHoldingOneObject_fail() throws Exception {
    String object = DEFAULT_DENY.replace("default-deny", "deny-payments");

    CliRun run =
        checkPullRequest(Map.of("unsigned/net/a.yaml", object, "unsigned/net/b.yaml", object));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/b.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/shop/deny-payments: is also in unsigned/net/a.yaml (line 1)")
        .contains("check failed: 1 error, 0 warnings");
  }

  @Test
  void oneNewFileHoldingOneObjectInTwoDocuments_fails() throws Exception {
    String object = DEFAULT_DENY.replace("default-deny", "deny-payments");

    CliRun run = checkPullRequest(Map.of("unsigned/net/twice.yaml", object + "---\n" + object));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/twice.yaml,line=10,title=countersign manifest::"
                + "NetworkPolicy/shop/deny-payments: is also in unsigned/net/twice.yaml (line 1)");
  }

  @Test
  void newUnsignedFileAndNewSignedFileHoldingOneObject_fail() throws Exception {
    // A validly signed file the base does not hold (one a scheduled refresh proposed, say): the
    // own-path rule has nothing on the base to compare it with.
    String object = DEFAULT_DENY.replace("default-deny", "deny-payments");
    seed.sign("net/signed-copy.yaml", object);

    CliRun run =
        checkPullRequest(
            Map.of(
                "signed/net/signed-copy.yaml",
                seed.read("signed/net/signed-copy.yaml"),
                "unsigned/net/zz.yaml",
                object));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/zz.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/shop/deny-payments: is also in signed/net/signed-copy.yaml"
                + " (line ");
  }

  @Test
  void control_oneObjectInTheSignedDirectoriesOfTwoPairs_passes() throws Exception {
    // Staging and production each deploy their own signed directory: one object in both is
    // what promotion does.
    addProdPairSigningInto("prod/signed");
    String object = DEFAULT_DENY.replace("default-deny", "deny-payments");

    CliRun run =
        checkPullRequest(Map.of("unsigned/net/a.yaml", object, "prod/unsigned/net/a.yaml", object));

    assertPassedWithoutAFinding(run);
  }

  @Test
  void objectOfTheBaseAddedThroughAPairWhoseSignedDirectoryIsInsideAnother_fails()
      throws Exception {
    // Flux builds signed/ with every manifest below it, signed/prod/ included, and Argo CD with
    // directory.recurse does too: the object is there twice whichever pair signs it.
    addProdPairSigningInto("signed/prod");

    CliRun run =
        checkPullRequest(Map.of("prod/unsigned/zz-allow.yaml", ALLOW_FROM_EVERY_NAMESPACE));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=prod/unsigned/zz-allow.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/shop/default-deny: is also in signed/net/default-deny.yaml"
                + " (line "
                + firstLine("signed/net/default-deny.yaml")
                + ")")
        .contains("check failed: 1 error, 0 warnings");
  }

  @Test
  void duplicateInsideASignedDirectoryThatLiesInAnother_isReportedOnce() throws Exception {
    addProdPairSigningInto("signed/prod");
    String object = DEFAULT_DENY.replace("default-deny", "deny-payments");

    CliRun run =
        checkPullRequest(
            Map.of("prod/unsigned/net/a.yaml", object, "prod/unsigned/net/b.yaml", object));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=prod/unsigned/net/b.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/shop/deny-payments: is also in prod/unsigned/net/a.yaml (line 1)")
        .contains("check failed: 1 error, 0 warnings");
  }

  @Test
  void control_theSameAdditionThroughAPairWhoseSignedDirectoryIsBesideIt_passes() throws Exception {
    addProdPairSigningInto("prod/signed");

    CliRun run =
        checkPullRequest(Map.of("prod/unsigned/zz-allow.yaml", ALLOW_FROM_EVERY_NAMESPACE));

    assertPassedWithoutAFinding(run);
  }

  // --- what the API server and the GitOps tools count as one object --------------------------

  @Test
  void objectWithoutANamespace_namedAsASignedObjectOfTheBase_fails() throws Exception {
    // Argo CD puts it in the Application's destination namespace, Flux in the Kustomization's
    // target namespace; neither is in the repository, and either may be shop.
    CliRun run =
        checkPullRequest(
            Map.of(
                "unsigned/net/zz-allow.yaml",
                ALLOW_FROM_EVERY_NAMESPACE.replace("  namespace: shop\n", "")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/zz-allow.yaml,line=1,title=countersign manifest::"
                + "NetworkPolicy/default-deny: is also in signed/net/default-deny.yaml (line "
                + firstLine("signed/net/default-deny.yaml")
                + ")")
        .contains("perhaps you should give both a metadata.namespace");
  }

  @Test
  void control_theSameNameInAnotherNamedNamespace_passes() throws Exception {
    CliRun run =
        checkPullRequest(
            Map.of(
                "unsigned/net/zz-allow.yaml",
                ALLOW_FROM_EVERY_NAMESPACE.replace("namespace: shop", "namespace: billing")));

    assertPassedWithoutAFinding(run);
  }

  @Test
  void theSameObjectUnderAnotherVersionOfItsGroup_fails() throws Exception {
    // The API server serves one object under every version of its group; kustomize tells the
    // versions apart and so builds both, and the later apply wins.
    String v2 =
        """
        apiVersion: autoscaling/v2
        kind: HorizontalPodAutoscaler
        metadata:
          name: api
          namespace: shop
        spec:
          scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: api}
          minReplicas: 2
          maxReplicas: 4
        """;
    seed.sign("app/hpa.yaml", v2);
    gate.git()
        .commitToOrigin(
            "main",
            Map.of("signed/app/hpa.yaml", seed.read("signed/app/hpa.yaml")),
            Set.of(),
            "hpa");
    gate.baseIsMain();

    CliRun run =
        checkPullRequest(
            Map.of(
                "unsigned/app/hpa-v1.yaml",
                v2.replace("autoscaling/v2", "autoscaling/v1")
                    .replace("minReplicas: 2", "minReplicas: 1")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/app/hpa-v1.yaml,line=1,title=countersign manifest::"
                + "HorizontalPodAutoscaler/shop/api: is also in signed/app/hpa.yaml (line "
                + firstLine("signed/app/hpa.yaml")
                + ")");
  }

  // --- a duplicate the base branch already holds ---------------------------------------------

  @Test
  void duplicateTheBaseAlreadyHolds_isOnlyReported_andDoesNotBlockAnUnrelatedChange()
      throws Exception {
    gate.git()
        .commitToOrigin(
            "main",
            Map.of("signed/net/copy.yaml", seed.read("signed/net/default-deny.yaml")),
            Set.of(),
            "a copy merged before the gate knew duplicates");
    gate.baseIsMain();

    CliRun run = checkPullRequest(Map.of("README.md", "unrelated\n"));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains(
            "::warning file=signed/net/default-deny.yaml,line="
                + firstLine("signed/net/default-deny.yaml")
                + ",title=countersign signature::NetworkPolicy/shop/default-deny: is also in"
                + " signed/net/copy.yaml (line "
                + firstLine("signed/net/default-deny.yaml")
                + "), as on the base branch")
        .contains("check passed: 0 errors, 1 warning");
  }

  // --- helpers -------------------------------------------------------------------------------

  /** Main's trust policy gains a second pair, prod/unsigned to {@code signed}, after the first. */
  private void addProdPairSigningInto(String signed) throws Exception {
    gate.git()
        .commitToOrigin(
            "main",
            Map.of(
                ".countersign/policy.yaml",
                GateRepository.POLICY.replace(
                    "  - unsigned: unsigned\n    signed: signed\n",
                    "  - unsigned: unsigned\n    signed: signed\n"
                        + "  - unsigned: prod/unsigned\n    signed: "
                        + signed
                        + "\n")),
            Set.of(),
            "a prod environment");
    gate.baseIsMain();
  }

  private CliRun checkPullRequest(Map<String, String> writes) throws Exception {
    return check(writes, Set.of());
  }

  private CliRun check(Map<String, String> writes, Set<String> deletes) throws Exception {
    return gate.check(gate.pullRequest(writes, deletes, 0), Map.of());
  }

  /** The line of a signed file's first document, below the signer's header comment. */
  private int firstLine(String signedFile) {
    return seed.lineOf(signedFile, "apiVersion: ");
  }

  private static void assertPassedWithoutAFinding(CliRun run) {
    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }
}
