package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.init.InitOptions;
import dev.countersign.init.ManifestInventory;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.manifest.ManifestReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code workflows-examples/} is one coherent adoption: the policy files are exactly what {@code
 * init} generates for the bundled example (acme/platform-policies, the manifests of
 * docs/example/unsigned, the refresh workflow as a second signer), and {@code doctor} finds nothing
 * wrong with the examples assembled into a repository. Run with {@code
 * -Dcountersign.writeExamples=true} to regenerate the generated files after changing a template.
 */
class WorkflowExamplesTest {

  private static final Path EXAMPLES = Path.of("workflows-examples");

  /** Example file name to the path init writes it to. */
  private static final Map<String, Path> GENERATED = new LinkedHashMap<>();

  static {
    GENERATED.put("trust-policy.yaml", RepositoryInitializer.POLICY);
    GENERATED.put("kyverno-clusterpolicy.yaml", RepositoryInitializer.KYVERNO_POLICY);
    GENERATED.put("kyverno-dryrun-rbac.yaml", RepositoryInitializer.KYVERNO_DRY_RUN_RBAC);
    GENERATED.put("argocd-application.yaml", RepositoryInitializer.ARGOCD_APPLICATION);
    GENERATED.put("check-on-pr.yml", RepositoryInitializer.CHECK_WORKFLOW);
  }

  @TempDir Path repo;

  static InitOptions exampleOptions() {
    ManifestInventory inventory =
        ManifestInventory.scan(
            Path.of("docs", "example"), List.of(Path.of("unsigned")), new ManifestReader());
    return InitOptions.of("acme", "platform-policies", "main")
        .withInventory(inventory)
        .withOtherSigningWorkflows(List.of("refresh-allowlist.yml"));
  }

  @Test
  void generatedExamples_areExactlyWhatInitWritesForTheBundledExample() throws IOException {
    Map<Path, String> rendered = new RepositoryInitializer().render(exampleOptions());
    for (Map.Entry<String, Path> example : GENERATED.entrySet()) {
      Path file = EXAMPLES.resolve(example.getKey());
      String expected = rendered.get(example.getValue());
      if (Boolean.getBoolean("countersign.writeExamples")) {
        Files.writeString(file, expected, StandardCharsets.UTF_8);
      }
      assertThat(Files.readString(file, StandardCharsets.UTF_8))
          .as(example.getKey())
          .isEqualTo(expected);
    }
  }

  /** The example workflows that take part in the adoption of the bundled example. */
  private static final List<String> ADOPTION_WORKFLOWS =
      List.of("sign-on-merge.yml", "promote.yml", "refresh-allowlist.yml", "release-image.yml");

  /**
   * The example workflows of the OCI variant: its signing workflow replaces sign-on-merge.yml (both
   * would run on the same push), so it is checked in a repository of its own.
   */
  private static final List<String> OCI_WORKFLOWS =
      List.of("sign-and-publish-oci.yml", "release-image.yml");

  @Test
  void everyExampleFile_isInARepositoryThatDoctorChecks() throws IOException {
    List<String> checked =
        Stream.of(GENERATED.keySet().stream(), ADOPTION_WORKFLOWS.stream(), OCI_WORKFLOWS.stream())
            .flatMap(s -> s)
            .toList();
    try (Stream<Path> examples = Files.list(EXAMPLES)) {
      assertThat(examples.map(p -> p.getFileName().toString()))
          .allSatisfy(name -> assertThat(checked).as("checked example files").contains(name));
    }
  }

  @Test
  void doctor_onTheExamplesAssembledIntoARepository_findsNothing() throws IOException {
    for (Map.Entry<String, Path> example : GENERATED.entrySet()) {
      copy(EXAMPLES.resolve(example.getKey()), repo.resolve(example.getValue()));
    }
    copyWorkflows(ADOPTION_WORKFLOWS);
    copyExampleManifests();

    assertDoctorFindsNothing();
  }

  /**
   * sign-and-publish-oci.yml as a newcomer adopts it: in the repository instead of
   * sign-on-merge.yml, with the policy files init writes there (init lists it as a signer, since it
   * runs countersign).
   */
  @Test
  void doctor_onTheOciExampleAsTheSigningWorkflow_findsNothing() throws IOException {
    copyWorkflows(OCI_WORKFLOWS);
    copy(EXAMPLES.resolve("check-on-pr.yml"), repo.resolve(RepositoryInitializer.CHECK_WORKFLOW));
    copyExampleManifests();
    Map<Path, String> rendered =
        new RepositoryInitializer()
            .render(exampleOptions().withOtherSigningWorkflows(List.of(OCI_WORKFLOWS.get(0))));
    for (Path generated : GENERATED.values()) {
      if (!generated.equals(RepositoryInitializer.CHECK_WORKFLOW)) {
        Files.createDirectories(repo.resolve(generated).getParent());
        Files.writeString(repo.resolve(generated), rendered.get(generated), StandardCharsets.UTF_8);
      }
    }

    assertDoctorFindsNothing();
  }

  private void copyWorkflows(List<String> workflows) throws IOException {
    for (String workflow : workflows) {
      copy(EXAMPLES.resolve(workflow), repo.resolve(".github/workflows").resolve(workflow));
    }
  }

  private void copyExampleManifests() throws IOException {
    try (Stream<Path> walk = Files.walk(Path.of("docs/example/unsigned"))) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        copy(
            file,
            repo.resolve("unsigned").resolve(Path.of("docs/example/unsigned").relativize(file)));
      }
    }
  }

  private void assertDoctorFindsNothing() {
    CliRun doctor =
        CliRun.run(
            Map.of(),
            "doctor",
            "--repo",
            repo.toString(),
            "--owner",
            "acme",
            "--name",
            "platform-policies");

    assertThat(doctor.exitCode()).as(doctor.all()).isZero();
    assertThat(doctor.out())
        .isEqualTo("doctor: the chain holds: 0 findings, 1 Kyverno manifests rule read\n");
  }

  private static void copy(Path from, Path to) throws IOException {
    Files.createDirectories(to.getParent());
    Files.copy(from, to);
  }
}
