package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Annotations on a reviewed object that make Argo CD or Flux stop applying it, or delete it, while
 * the signed directory still holds it: one line in the diff, and the deployed deny-all
 * NetworkPolicy leaves the cluster (a hook is not a managed resource, so Argo CD prunes the one it
 * deployed and, with a delete policy, deletes the hook after the sync) or stops being updated (a
 * skipped object is never applied again). Each pull request goes through the real {@code check}
 * Action entry on a real repository whose base deploys {@code signed/net/default-deny.yaml}, with
 * its benign control.
 */
class GitOpsAnnotationsTest {

  /** The deployed policy: no ingress to any pod of the namespace. */
  private static final String DENY_ALL = GateRepository.DEFAULT_DENY;

  /** A migration Job run before each sync: the normal use of a hook. */
  private static final String MIGRATION_JOB =
      """
      apiVersion: batch/v1
      kind: Job
      metadata:
        name: migrate
        namespace: shop
        annotations:
          argocd.argoproj.io/hook: PreSync
          argocd.argoproj.io/hook-delete-policy: HookSucceeded
      spec:
        template:
          spec:
            restartPolicy: Never
            containers:
            - name: migrate
              image: registry.example/migrate:1.0.0
      """;

  @TempDir Path tmp;
  private PullRequestGate gate;
  private GateRepository seed;

  @BeforeEach
  void baseDeploysTheDenyAllPolicy() throws Exception {
    gate = new PullRequestGate(tmp);
    seed = gate.seed();
    gate.git()
        .commitToOrigin(
            "main",
            Map.of("signed/net/default-deny.yaml", signed("net/default-deny.yaml", DENY_ALL)),
            Set.of(),
            "deploy the deny-all policy");
    gate.baseIsMain();
  }

  // --- Argo CD: a hook is not a managed resource ---------------------------------------------

  @ParameterizedTest
  @ValueSource(
      strings = {
        "argocd.argoproj.io/hook: PostSync\n    argocd.argoproj.io/hook-delete-policy:"
            + " HookSucceeded",
        "helm.sh/hook: post-install\n    helm.sh/hook-delete-policy: hook-succeeded",
        "argocd.argoproj.io/hook: Sync",
        "helm.sh/hook: test",
        "argocd.argoproj.io/hook: PreDelete",
        "argocd.argoproj.io/hook: Skip",
        "kustomize.toolkit.fluxcd.io/reconcile: disabled",
        "kustomize.toolkit.fluxcd.io/ssa: Ignore",
        "kustomize.toolkit.fluxcd.io/ssa: ifnotpresent"
      })
  void deployedPolicy_editedToBeLeftOutOrDeleted_fails(String annotation) throws Exception {
    CliRun run = check(Map.of("unsigned/net/default-deny.yaml", annotated(DENY_ALL, annotation)));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=unsigned/net/default-deny.yaml,line=7,")
        .contains("NetworkPolicy/shop/default-deny")
        .contains("(countersign/gitops-file)");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "example.com/owner: platform-team",
        // Helm marks CRDs so; gitops-engine's helm.IsHook does not count it as a hook.
        "helm.sh/hook: crd-install",
        "kustomize.toolkit.fluxcd.io/reconcile: enabled"
      })
  void control_deployedPolicy_editedWithAnAnnotationThatLeavesItDeployed_passes(String annotation)
      throws Exception {
    CliRun run = check(Map.of("unsigned/net/default-deny.yaml", annotated(DENY_ALL, annotation)));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void deployedPolicy_editedToCarryFluxsReconcileDisabledAsALabel_fails() throws Exception {
    // Flux matches its exclusion selector against labels as well as annotations.
    String labelled =
        DENY_ALL.replace(
            "  namespace: shop\n",
            "  namespace: shop\n  labels:\n    kustomize.toolkit.fluxcd.io/reconcile: Disabled\n");

    CliRun run = check(Map.of("unsigned/net/default-deny.yaml", labelled));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=unsigned/net/default-deny.yaml,line=7,")
        .contains("kustomize.toolkit.fluxcd.io/reconcile: Disabled makes Flux")
        .contains("(countersign/gitops-file)");
  }

  @Test
  void signedFileThatMakesTheDeployedPolicyAHook_brought_fails() throws Exception {
    // Validly signed (a refresh proposed it and nobody merged it, say) and carried into a pull
    // request at its own path: every signed-directory rule passes.
    String signed =
        signed(
            "net/default-deny.yaml",
            annotated(
                DENY_ALL,
                "helm.sh/hook: pre-install\n    helm.sh/hook-delete-policy: hook-succeeded"));

    CliRun run = check(Map.of("signed/net/default-deny.yaml", signed));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/net/default-deny.yaml,")
        .contains("title=countersign signature::NetworkPolicy/shop/default-deny: helm.sh/hook:")
        .contains("(countersign/gitops-file)")
        .doesNotContain("does not verify");
  }

  @Test
  void newPolicyThatIsAHookWithADeletePolicy_isAWarningNamingTheEffect() throws Exception {
    // Nothing deployed leaves the cluster, but the reviewed policy never stays in it.
    String hook =
        annotated(
                DENY_ALL,
                "argocd.argoproj.io/hook: PostSync\n    argocd.argoproj.io/hook-delete-policy:"
                    + " HookSucceeded")
            .replace("default-deny", "deny-egress");

    CliRun run = check(Map.of("unsigned/net/deny-egress.yaml", hook));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=unsigned/net/deny-egress.yaml,line=7,")
        .contains("deleting it again after that phase")
        .contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void control_newMigrationJobThatIsAPreSyncHook_passes() throws Exception {
    CliRun run = check(Map.of("unsigned/jobs/migrate.yaml", MIGRATION_JOB));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "argocd.argoproj.io/sync-options: Prune=false",
        "argocd.argoproj.io/sync-options: ServerSideApply=true,Force=true",
        "kustomize.toolkit.fluxcd.io/prune: disabled",
        "kustomize.toolkit.fluxcd.io/ssa: Merge"
      })
  void deployedPolicy_editedToChangeHowItIsAppliedOrRemoved_isAWarning(String annotation)
      throws Exception {
    CliRun run = check(Map.of("unsigned/net/default-deny.yaml", annotated(DENY_ALL, annotation)));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=unsigned/net/default-deny.yaml,line=7,")
        .contains("(countersign/gitops-file)")
        .contains("check passed: 0 errors, 1 warning");
  }

  // --- helpers -------------------------------------------------------------------------------

  private CliRun check(Map<String, String> writes) throws Exception {
    return gate.check(gate.pullRequest(writes, Set.of(), 1), Map.of());
  }

  /** {@code manifest} with {@code annotations} (indented for metadata.annotations) added. */
  private static String annotated(String manifest, String annotations) {
    return manifest.replace(
        "  namespace: shop\n", "  namespace: shop\n  annotations:\n    " + annotations + "\n");
  }

  /** {@code content} signed with the trusted key, as the signing workflow would. */
  private String signed(String relative, String content) {
    seed.sign(relative, content);
    return seed.read("signed/" + relative);
  }
}
