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
 * The last step of the promise: Argo CD or Flux deploys the signed directory, and they read more
 * than the manifests countersign verifies there. A kustomization file makes Flux (and Argo CD)
 * build what it says instead of the directory's files; Argo CD applies {@code .json} and evaluates
 * {@code .jsonnet} files; Flux's source-controller leaves out what a {@code .sourceignore} names.
 * Each pull request below goes through the real {@code check} Action entry on a real repository,
 * with its benign control.
 */
class GitOpsFilesTest {

  /** A Kustomization that makes the signed directory deploy a file no signature covers. */
  private static final String KUSTOMIZATION =
      """
      apiVersion: kustomize.config.k8s.io/v1beta1
      kind: Kustomization
      resources:
      - app/config.yaml
      - ../docs/evil.yaml
      """;

  private static final String EVIL_JSON =
      """
      {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
       "metadata": {"name": "allow-all", "namespace": "shop"},
       "spec": {"podSelector": {}, "ingress": [{}]}}
      """;

  /** The shape of a Sigstore bundle sidecar ({@code sign --bundle-sidecar}): no Kubernetes kind. */
  private static final String BUNDLE_SIDECAR =
      """
      {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
       "verificationMaterial": {}, "messageSignature": {}}
      """;

  @TempDir Path tmp;
  private PullRequestGate gate;
  private GateRepository seed;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
    seed = gate.seed();
  }

  // --- files under a signed directory that a GitOps tool reads --------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"signed/Kustomization", "signed/app/Kustomization"})
  void extensionlessKustomization_underTheSignedDirectory_fails(String path) throws Exception {
    CliRun run =
        check(Map.of(path, KUSTOMIZATION, "docs/evil.yaml", GateRepository.ALLOW_ALL_INGRESS));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=" + path + ",title=countersign signature::")
        .contains("kustomization file")
        .contains("(countersign/gitops-file)");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "signed/kustomization.yaml",
        "signed/app/kustomization.yml",
        "signed/Chart.yaml",
        "signed/.argocd-source.yaml",
        "signed/.argocd-source-platform.yaml"
      })
  void manifestNamedGitOpsFile_underTheSignedDirectory_failsAsOne(String path) throws Exception {
    CliRun run = check(Map.of(path, KUSTOMIZATION));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=" + path + ",")
        .contains("countersign/gitops-file");
  }

  @Test
  void signedKustomizationYaml_thatVerifies_stillFails() throws Exception {
    // A kustomization that went through review as an "object" and was signed: its signature
    // covers the file, not what Flux or Argo CD build from it.
    String signed =
        signed(
            "kustomization.yaml",
            KUSTOMIZATION.replace("resources:", "metadata:\n  name: shop\nresources:"));

    CliRun run = check(Map.of("signed/kustomization.yaml", signed));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/kustomization.yaml,")
        .contains("countersign/gitops-file")
        .doesNotContain("does not verify");
  }

  @ParameterizedTest
  @ValueSource(strings = {"signed/app/allow-all.json", "signed/app/allow-all.jsonnet"})
  void jsonOrJsonnet_underTheSignedDirectory_fails(String path) throws Exception {
    CliRun run = check(Map.of(path, EVIL_JSON));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=" + path + ",title=countersign signature::")
        .contains("(countersign/gitops-file)");
  }

  @Test
  void kubernetesObjectNamedLikeABundleSidecar_fails() throws Exception {
    CliRun run = check(Map.of("signed/app/config.yaml.sigstore.json", EVIL_JSON));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml.sigstore.json,")
        .contains("countersign/gitops-file");
  }

  @Test
  void bundleSidecarWithoutItsManifest_fails() throws Exception {
    CliRun run = check(Map.of("signed/app/gone.yaml.sigstore.json", BUNDLE_SIDECAR));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/gone.yaml.sigstore.json,")
        .contains("countersign/gitops-file");
  }

  @Test
  void control_bundleSidecarBesideItsManifest_passes() throws Exception {
    CliRun run = check(Map.of("signed/app/config.yaml.sigstore.json", BUNDLE_SIDECAR));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void control_harmlessFilesUnderTheSignedDirectory_pass() throws Exception {
    CliRun run =
        check(
            Map.of(
                "signed/README.md", "# What is deployed\n",
                "signed/app/.gitkeep", "",
                "signed/app/notes.txt", "kustomization.yaml is not here\n",
                "unsigned/Kustomization", KUSTOMIZATION));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @ParameterizedTest
  @ValueSource(strings = {"unsigned/kustomization.yaml", "unsigned/app/Chart.yaml"})
  void gitOpsFileUnderTheUnsignedDirectory_thatRunWouldSign_fails(String path) throws Exception {
    // Reads as an object (apiVersion, kind, metadata.name), so every other rule passes it, and
    // run would sign it into signed/, where Flux and Argo CD read it as instructions.
    CliRun run =
        check(
            Map.of(
                path,
                KUSTOMIZATION.replace(
                    "resources:", "metadata:\n  name: shop\n  labels: {team: x}\nresources:")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=" + path + ",title=countersign manifest::would be signed into")
        .contains("(countersign/gitops-file)");
  }

  // --- .sourceignore ----------------------------------------------------------------------------

  @Test
  void sourceignoreUnderTheSignedDirectory_fails() throws Exception {
    CliRun run = check(Map.of("signed/.sourceignore", "app/deployment.yaml\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/.sourceignore,")
        .contains("countersign/gitops-file");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/signed/app/deployment.yaml", "deployment.yaml", "signed/app", "*"})
  void rootSourceignoreThatHidesASignedFile_fails(String pattern) throws Exception {
    CliRun run = check(Map.of(".sourceignore", "# docs only\n" + pattern + "\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("signed/app/deployment.yaml")
        .contains("(countersign/sourceignore)");
  }

  @Test
  void rootSourceignoreWithABracketThatFluxReadsAsAList_hidingASignedFile_fails() throws Exception {
    // Flux matches with Go's filepath.Match, where only [^...] negates: [!d] is the set of '!'
    // and 'd', so this pattern leaves deployment.yaml out (git would read [!d] as "not d").
    CliRun run = check(Map.of(".sourceignore", "signed/app/[!d]eployment.yaml\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("leaves signed/app/deployment.yaml out of what Flux deploys");
  }

  @Test
  void control_rootSourceignoreWithABracketThatMatchesNoSignedFile_isAWarning() throws Exception {
    CliRun run = check(Map.of(".sourceignore", "signed/app/[!x]eployment.yaml\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void rootSourceignoreWithALineFluxStopsReadingAt_fails() throws Exception {
    // Flux reads the patterns with a bufio.Scanner, whose lines end at 64 KiB: it stops at this
    // comment and never reads the negation after it, so deployment.yaml is left out.
    CliRun run =
        check(
            Map.of(
                ".sourceignore",
                "deployment.yaml\n# " + "x".repeat(64 * 1024) + "\n!deployment.yaml\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("line 2")
        .contains("(countersign/sourceignore)");
  }

  @Test
  void control_rootSourceignoreWhoseNegationFluxReads_isAWarning() throws Exception {
    CliRun run =
        check(
            Map.of(
                ".sourceignore",
                "deployment.yaml\n# " + "x".repeat(1024) + "\n!deployment.yaml\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void control_rootSourceignoreThatHidesNoSignedFile_isAWarning() throws Exception {
    CliRun run = check(Map.of(".sourceignore", "/docs/\n/unsigned/\n*.md\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=.sourceignore,")
        .contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void control_sourceignoreOutsideEveryDirectoryAboveASignedOne_isLeftAlone() throws Exception {
    CliRun run = check(Map.of("docs/.sourceignore", "*\n", "unsigned/.sourceignore", "*\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void sourceignoreThatTheBaseHas_changedWithoutHidingMore_isAWarning() throws Exception {
    gate.git().commitToOrigin("main", Map.of(".sourceignore", "/docs/\n"), Set.of(), "ignore docs");
    gate.baseIsMain();

    CliRun run = check(Map.of(".sourceignore", "/docs/\n# and the drafts\n/drafts/\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=.sourceignore,title=countersign signature::this change changes a")
        .contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void sourceignoreNegationThatKeepsTheSignedFiles_isAWarning_andOneThatStopsKeepingThem_fails()
      throws Exception {
    gate.git()
        .commitToOrigin(
            "main", Map.of(".sourceignore", "*.yaml\n!/signed/**\n"), Set.of(), "ignore yaml");
    gate.baseIsMain();

    CliRun kept = check(Map.of(".sourceignore", "*.yaml\n!/signed/**\n*.md\n"));
    CliRun dropped = check(Map.of(".sourceignore", "*.yaml\n!/signed/app/config.yaml\n"));

    assertThat(kept.exitCode()).as(kept.all()).isEqualTo(ExitCode.OK.code());
    assertThat(dropped.exitCode()).as(dropped.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(dropped.out())
        .contains("::error file=.sourceignore,")
        .contains("leaves signed/app/deployment.yaml out of what Flux deploys")
        .doesNotContain("config.yaml out");
  }

  @Test
  void rootSourceignoreThatIsALink_fails() throws Exception {
    // Flux reads what the link points to (source-controller copies in-repository links before it
    // reads the patterns); the gate judges no file through a link.
    gate.git().branchOnOrigin("pr-link", "main");
    gate.git()
        .commitToOrigin(
            "pr-link", Map.of("docs/patterns.txt", "deployment.yaml\n"), Set.of(), "patterns");
    gate.git().commitSymlinkToOrigin("pr-link", ".sourceignore", "docs/patterns.txt");
    Path ws = gate.git().cloneBranch("ws-link", "pr-link", 1);

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("is not a regular file")
        .contains("(countersign/sourceignore)");
  }

  // --- Flux's default ignore list ---------------------------------------------------------------
  // With no ignore pattern anywhere in the repository, source-controller's SourceIgnoreFilter
  // archives with NewDefaultMatcher: the VCS patterns and DefaultPatterns (images, CI files such
  // as .github/ and cloudbuild.yaml, **/.sops.yaml, **/.flux.yaml, **/.goreleaser.yml). With at
  // least one pattern it uses the VCS patterns and the loaded ones only.

  @ParameterizedTest
  @ValueSource(strings = {"team/.sops.yaml", ".github/netpol.yaml", "cloudbuild.yaml"})
  void deletingTheOnlySourceignore_whenFluxsDefaultsThenHideASignedFile_fails(String relative)
      throws Exception {
    baseWith(".sourceignore", "/docs/\n", relative);

    CliRun run = gate.check(gate.pullRequest(Map.of(), Set.of(".sourceignore"), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("default ignore list")
        .contains("signed/" + relative)
        .contains("(countersign/sourceignore)");
  }

  @Test
  void sourceignoreTurnedIntoCommentsOnly_whenFluxsDefaultsThenHideASignedFile_fails()
      throws Exception {
    baseWith(".sourceignore", "/docs/\n", "team/.sops.yaml");

    CliRun run = check(Map.of(".sourceignore", "# nothing to leave out\n\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=.sourceignore,")
        .contains("leaves signed/team/.sops.yaml out of what Flux deploys");
  }

  @Test
  void deletingASourceignoreOutsideTheSignedDirectories_whenFluxsDefaultsThenHideASignedFile_fails()
      throws Exception {
    // Flux applies its defaults only when no .sourceignore of the whole repository holds a
    // pattern: one under docs/ decides it for signed/ too.
    baseWith("docs/.sourceignore", "*.md\n", ".github/netpol.yaml");

    CliRun run = gate.check(gate.pullRequest(Map.of(), Set.of("docs/.sourceignore"), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=docs/.sourceignore,")
        .contains("leaves signed/.github/netpol.yaml out of what Flux deploys");
  }

  @Test
  void sourceignoreOutsideTheSignedDirectoriesTurnedIntoALink_isCountedAsHoldingNoPattern()
      throws Exception {
    // Flux reads the empty file the link points to, so no pattern is left and its defaults apply;
    // the gate reads no file through a link and assumes the worst: no pattern.
    baseWith("docs/.sourceignore", "*.md\n", "team/.sops.yaml");
    gate.git().branchOnOrigin("pr-link", "main");
    gate.git().commitToOrigin("pr-link", Map.of("docs/empty.txt", ""), Set.of(), "empty");
    gate.git().commitSymlinkToOrigin("pr-link", "docs/.sourceignore", "empty.txt");

    CliRun run = gate.check(gate.git().cloneBranch("ws-link", "pr-link", 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=docs/.sourceignore,")
        .contains("leaves signed/team/.sops.yaml out of what Flux deploys");
  }

  @Test
  void control_deletingTheOnlySourceignore_whenFluxsDefaultsHideNoSignedFile_isAWarning()
      throws Exception {
    baseWith(".sourceignore", "/docs/\n", "team/sops.yaml");

    CliRun run = gate.check(gate.pullRequest(Map.of(), Set.of(".sourceignore"), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=.sourceignore,")
        .contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void control_anotherSourceignoreStillHoldingAPattern_keepsFluxsDefaultsOff_isAWarning()
      throws Exception {
    baseWith(".sourceignore", "/docs/\n", "team/.sops.yaml");
    gate.git()
        .commitToOrigin("main", Map.of("docs/.sourceignore", "*.md\n"), Set.of(), "ignore md");
    gate.baseIsMain();

    CliRun run = gate.check(gate.pullRequest(Map.of(), Set.of(".sourceignore"), 1), Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 1 warning");
  }

  @Test
  void addingThePatternThatTurnsFluxsDefaultsOff_deploysWhatTheyHid_isAWarning() throws Exception {
    // The base has no pattern, so Flux leaves signed/.flux.yaml out; a pattern brings it in,
    // which reviewers read but which takes nothing out of the cluster.
    baseWith(null, null, ".flux.yaml");

    CliRun run = check(Map.of(".sourceignore", "/docs/\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("::warning file=.sourceignore,");
  }

  @Test
  void signedFileFluxsDefaultsHide_addedOrChanged_verifiesWithAWarningThatFluxDoesNotDeployIt()
      throws Exception {
    baseWith(null, null, ".flux.yaml");

    CliRun changed =
        check(
            Map.of(
                "signed/.flux.yaml",
                signed(".flux.yaml", ActionPipelineTest.configMap("flux", "v2")),
                "signed/.sops.yaml",
                signed(".sops.yaml", ActionPipelineTest.configMap("sops", "v1"))));

    assertThat(changed.exitCode()).as(changed.all()).isEqualTo(ExitCode.OK.code());
    assertThat(changed.out())
        .contains("::warning file=signed/.flux.yaml,")
        .contains("::warning file=signed/.sops.yaml,")
        .contains("Flux's source-controller leaves this signed file out of what Flux deploys")
        .contains("check passed: 0 errors, 2 warnings");
  }

  @Test
  void control_signedFileFluxsDefaultsHide_leftAsTheBaseHasIt_getsNoWarning() throws Exception {
    baseWith(null, null, ".flux.yaml");

    CliRun run = check(Map.of("docs/notes.md", "unrelated\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  // --- signed files Argo CD or Flux leave out ---------------------------------------------------
  // Argo CD's directory source skips every file whose bytes hold +argocd:skip-file-rendering
  // (argo-cd getPotentiallyValidManifestFile, since v3.1); with prune it deletes what the file
  // held. Argo CD keeps only names matching ^.*\.(yaml|yml|json|jsonnet)$ and Flux only
  // filepath.Ext .yaml or .yml, both case-sensitive, while countersign signs .YAML too.

  @Test
  void skipMarkerCommentAddedToADeployedSignedFile_fails() throws Exception {
    // The comment is no part of the signed message, so the file still verifies and the change
    // passes every signed-directory rule; Argo CD stops rendering it and prunes the Deployment.
    String deployed = seed.read("signed/app/deployment.yaml");

    CliRun run =
        check(Map.of("signed/app/deployment.yaml", deployed + "# +argocd:skip-file-rendering\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/deployment.yaml,")
        .contains("+argocd:skip-file-rendering")
        .contains("(countersign/gitops-file)");
  }

  @Test
  void control_commentWithoutTheMarkerAddedToADeployedSignedFile_passes() throws Exception {
    String deployed = seed.read("signed/app/deployment.yaml");

    CliRun run =
        check(Map.of("signed/app/deployment.yaml", deployed + "# argocd: rendered as usual\n"));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "    note: +argocd:skip-file-rendering\n",
        "    note: \"see \\x2bargocd:skip-file-rendering\"\n"
      })
  void skipMarkerInAValueOfAnUnsignedManifest_fails(String annotation) throws Exception {
    // run writes the value into the signed file (the second as the plain text its escape stands
    // for), so Argo CD would skip the signed ConfigMap and prune it.
    String source =
        GateRepository.CONFIG_MAP.replace(
            "  namespace: shop\n", "  namespace: shop\n  annotations:\n" + annotation);

    CliRun run = check(Map.of("unsigned/app/config.yaml", source));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=unsigned/app/config.yaml,")
        .contains("+argocd:skip-file-rendering")
        .contains("(countersign/gitops-file)");
  }

  @Test
  void control_skipMarkerInACommentOfAnUnsignedManifest_passes() throws Exception {
    // Comments are not signed: the signed file run writes holds no marker.
    CliRun run =
        check(
            Map.of(
                "unsigned/app/config.yaml",
                "# +argocd:skip-file-rendering\n"
                    + GateRepository.CONFIG_MAP.replace("hello", "hello again")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void signedFileWithTheSkipMarkerInAValue_brought_fails() throws Exception {
    // Validly signed (the refresh proposed it, say), and carried into a pull request.
    String signed =
        signed(
            "app/config.yaml",
            GateRepository.CONFIG_MAP.replace(
                "mode: production", "mode: +argocd:skip-file-rendering"));

    CliRun run = check(Map.of("signed/app/config.yaml", signed));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("(countersign/gitops-file)")
        .doesNotContain("does not verify");
  }

  @ParameterizedTest
  @ValueSource(strings = {"unsigned/app/policy.YAML", "unsigned/app/policy.Yml"})
  void unsignedManifestWhoseExtensionIsNotLowerCase_isAWarning(String path) throws Exception {
    CliRun run = check(Map.of(path, ActionPipelineTest.configMap("policy", "v1")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=" + path + ",")
        .contains("Argo CD and Flux")
        .contains("(countersign/gitops-file)")
        .contains("check passed: 0 errors, 1 warning");
  }

  @ParameterizedTest
  @ValueSource(strings = {"unsigned/app/policy.yaml", "unsigned/app/policy.yml"})
  void control_unsignedManifestWithALowerCaseExtension_passes(String path) throws Exception {
    CliRun run = check(Map.of(path, ActionPipelineTest.configMap("policy", "v1")));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void signedFileWhoseExtensionIsNotLowerCase_brought_isAWarning_andOneTheBaseHas_isNot()
      throws Exception {
    baseWith(null, null, "kept.YAML");

    CliRun run =
        check(
            Map.of(
                "signed/app/policy.YAML",
                signed("app/policy.YAML", ActionPipelineTest.configMap("policy", "v1")),
                "signed/app/other.yml",
                signed("app/other.yml", ActionPipelineTest.configMap("other", "v1"))));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.OK.code());
    assertThat(run.out())
        .contains("::warning file=signed/app/policy.YAML,")
        .doesNotContain("file=signed/kept.YAML")
        .doesNotContain("file=signed/app/other.yml")
        .contains("check passed: 0 errors, 1 warning");
  }

  // --- helpers -------------------------------------------------------------------------------

  private CliRun check(Map<String, String> writes) throws Exception {
    return gate.check(gate.pullRequest(writes, Set.of(), 1), Map.of());
  }

  /**
   * Commits to main, and makes the base, a signed ConfigMap at {@code signed/<relative>} and, when
   * {@code ignorePath} is given, that ignore file.
   */
  private void baseWith(String ignorePath, String patterns, String relative) throws Exception {
    Map<String, String> files = new java.util.HashMap<>();
    files.put(
        "signed/" + relative, signed(relative, ActionPipelineTest.configMap("deployed", "v1")));
    if (ignorePath != null) {
      files.put(ignorePath, patterns);
    }
    gate.git().commitToOrigin("main", files, Set.of(), "the base");
    gate.baseIsMain();
  }

  /** {@code content} signed with the trusted key, as the signing workflow would. */
  private String signed(String relative, String content) {
    seed.sign(relative, content);
    return seed.read("signed/" + relative);
  }
}
