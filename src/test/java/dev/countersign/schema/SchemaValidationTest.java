package dev.countersign.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import dev.countersign.init.InitOptions;
import dev.countersign.init.ManifestInventory;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.policy.PolicyFileLoader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every file {@code countersign init} can generate (every combination of its options) and every
 * file in {@code workflows-examples/} against the real schemas: SchemaStore's GitHub workflow
 * schema, Kyverno's ClusterPolicy CRD and Argo CD's Application CRD.
 */
class SchemaValidationTest {

  private static final Path EXAMPLES = Path.of("workflows-examples");

  @TempDir Path tmp;

  static Stream<Arguments> initOptions() {
    List<ManifestInventory> inventories =
        List.of(
            ManifestInventory.empty(),
            new ManifestInventory(
                new TreeSet<>(
                    List.of(
                        new ManifestInventory.Kind("networking.k8s.io", "NetworkPolicy"),
                        new ManifestInventory.Kind("kyverno.io", "PolicyException"))),
                new TreeSet<>(List.of("payments", "platform")),
                false),
            new ManifestInventory(
                new TreeSet<>(
                    List.of(
                        new ManifestInventory.Kind("", "Namespace"),
                        new ManifestInventory.Kind("rbac.authorization.k8s.io", "ClusterRole"),
                        new ManifestInventory.Kind("apps", "Deployment"))),
                new TreeSet<>(),
                true),
            new ManifestInventory(
                new TreeSet<>(List.of(new ManifestInventory.Kind("", "Namespace"))),
                new TreeSet<>(),
                false));
    List<Arguments> all = new ArrayList<>();
    for (ManifestInventory inventory : inventories) {
      for (boolean promotion : List.of(false, true)) {
        for (List<String> others :
            List.of(List.<String>of(), List.of("refresh-allowlist.yml", "nightly.yaml"))) {
          for (String branch : List.of("main", "release/v2")) {
            for (boolean customDirs : List.of(false, true)) {
              InitOptions options =
                  InitOptions.of("Acme-Corp", "k8s.policies", branch)
                      .withInventory(inventory)
                      .withOtherSigningWorkflows(others)
                      .withPromotion(promotion);
              if (customDirs) {
                options =
                    options
                        .withDirectories(
                            Path.of("manifests/pending"), Path.of("manifests/approved"))
                        .withNamespace("team-a")
                        .withPromotionTarget(
                            promotion ? Optional.of(Path.of("envs/prod")) : Optional.empty());
              }
              all.add(Arguments.of(options));
            }
          }
        }
      }
    }
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("initOptions")
  void everyGeneratedFile_isValidAgainstItsRealSchema(InitOptions options) throws IOException {
    Map<Path, String> files = new RepositoryInitializer().render(options);
    for (Map.Entry<Path, String> file : files.entrySet()) {
      assertValid(file.getKey(), file.getValue());
    }
    // The trust policy has no public schema: countersign's own loader is its schema.
    Files.createDirectories(tmp.resolve(".countersign"));
    Files.writeString(
        tmp.resolve(".countersign/policy.yaml"), files.get(RepositoryInitializer.POLICY));
    assertThat(new PolicyFileLoader().load(tmp, Path.of(".countersign/policy.yaml")).signers())
        .hasSize(options.signingWorkflows().size());
    // Kubernetes objects (RBAC included) read as manifests.
    Path rbac = tmp.resolve("rbac.yaml");
    Files.writeString(rbac, files.get(RepositoryInitializer.KYVERNO_DRY_RUN_RBAC));
    assertThat(new ManifestReader().read(rbac, Path.of("rbac.yaml")).documents())
        .hasSizeGreaterThanOrEqualTo(3);
  }

  @Test
  void everyExampleFile_isValidAgainstItsRealSchema() throws IOException {
    List<Path> examples;
    try (Stream<Path> list = Files.list(EXAMPLES)) {
      examples = list.sorted().toList();
    }
    assertThat(examples)
        .extracting(p -> p.getFileName().toString())
        .contains(
            "release-image.yml",
            "kyverno-clusterpolicy.yaml",
            "argocd-application.yaml",
            "sign-on-merge.yml");
    for (Path example : examples) {
      assertValid(example, Files.readString(example, StandardCharsets.UTF_8));
    }
    assertThat(
            new PolicyFileLoader()
                .load(Path.of("."), EXAMPLES.resolve("trust-policy.yaml"))
                .signers())
        .isNotEmpty();
  }

  @Test
  void theValidatorRejectsWhatTheClusterAndGitHubWouldRefuse() {
    // The YAML error of the old release-image.yml: a plain scalar holding ": ".
    assertThatThrownBy(
            () ->
                RealSchemas.yamlDocuments(
                    "jobs:\n  a:\n    steps:\n      - run: grep -q \"image: x\" f\n"))
        .hasMessageContaining("mapping values are not allowed");
    JsonNode badWorkflow =
        RealSchemas.yamlDocuments(
                "on: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    permissions:\n"
                    + "      pull-request: write\n    steps:\n      - run: true\n")
            .get(0);
    assertThat(RealSchemas.errors(RealSchemas.githubWorkflow(), badWorkflow)).isNotEmpty();
    JsonNode badPolicy =
        RealSchemas.yamlDocuments(
                "apiVersion: kyverno.io/v1\n"
                    + "kind: ClusterPolicy\n"
                    + "metadata: {name: x}\n"
                    + "spec:\n"
                    + "  rules:\n"
                    + "    - name: r\n"
                    + "      match: {any: [{resources: {kinds: [Pod]}}]}\n"
                    + "      validate:\n"
                    + "        manifests:\n"
                    + "          dryrun: {enable: true}\n"
                    + "          attestors: []\n")
            .get(0);
    assertThat(RealSchemas.errors(RealSchemas.kyvernoClusterPolicy(), badPolicy))
        .anyMatch(m -> m.contains("dryrun"));
    JsonNode badApp =
        RealSchemas.yamlDocuments(
                "apiVersion: argoproj.io/v1alpha1\n"
                    + "kind: Application\n"
                    + "metadata: {name: x}\n"
                    + "spec:\n"
                    + "  project: default\n"
                    + "  destination: {namespace: x}\n"
                    + "  source: {repoURL: r, path: p, recursive: true}\n")
            .get(0);
    assertThat(RealSchemas.errors(RealSchemas.argoApplication(), badApp))
        .anyMatch(m -> m.contains("recursive"));
  }

  /** Workflows against SchemaStore; ClusterPolicies and Applications against their CRDs. */
  static void assertValid(Path file, String text) {
    String name = file.toString().replace('\\', '/');
    List<JsonNode> documents = RealSchemas.yamlDocuments(text);
    assertThat(documents).as(name).isNotEmpty();
    if (name.endsWith(".yml") || name.contains(".github/workflows/")) {
      assertThat(documents).as(name).hasSize(1);
      assertThat(RealSchemas.errors(RealSchemas.githubWorkflow(), documents.get(0)))
          .as(name)
          .isEmpty();
      return;
    }
    for (JsonNode document : documents) {
      JsonSchema schema = RealSchemas.forDocument(document);
      if (schema != null) {
        assertThat(RealSchemas.errors(schema, document))
            .as(name + " " + document.path("kind").asText())
            .isEmpty();
      }
    }
  }
}
