package dev.countersign.init;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;

class RepositoryInitializerTest {

  private static final InitOptions ACME = InitOptions.of("acme", "deploy", "main");

  @TempDir Path repo;

  private final RepositoryInitializer initializer = new RepositoryInitializer();

  @ParameterizedTest
  @CsvSource({
    "acme, deploy, main,"
        + " https://github.com/acme/deploy/.github/workflows/sign-on-merge.yml@refs/heads/main",
    "Acme-Corp, k8s.manifests, release/v2,"
        + " https://github.com/Acme-Corp/k8s.manifests/.github/workflows/sign-on-merge.yml@refs/heads/release/v2",
  })
  void kyvernoPolicy_subject_isTheSigningWorkflowSan(
      String owner, String repository, String branch, String san) {
    Map<String, Object> policy =
        yaml(
            initializer
                .render(InitOptions.of(owner, repository, branch))
                .get(RepositoryInitializer.KYVERNO_POLICY));

    Map<String, Object> keyless =
        map(
            path(
                policy,
                "spec",
                "rules",
                0,
                "validate",
                "manifests",
                "attestors",
                0,
                "entries",
                0,
                "keyless"));
    assertThat(keyless.get("subject")).isEqualTo(san);
    assertThat(keyless.get("issuer")).isEqualTo("https://token.actions.githubusercontent.com");
  }

  @Test
  void kyvernoPolicy_usesExactlyTheFieldNamesKyvernoReadsForManifests() {
    Map<String, Object> policy =
        yaml(initializer.render(ACME).get(RepositoryInitializer.KYVERNO_POLICY));

    assertThat(policy.get("apiVersion")).isEqualTo("kyverno.io/v1");
    assertThat(policy.get("kind")).isEqualTo("ClusterPolicy");
    assertThat(path(policy, "spec", "background")).isEqualTo(false);
    Map<String, Object> validate = map(path(policy, "spec", "rules", 0, "validate"));
    assertThat(validate).containsOnlyKeys("failureAction", "manifests");
    assertThat(validate.get("failureAction")).isEqualTo("Enforce");
    Map<String, Object> manifests = map(validate.get("manifests"));
    assertThat(manifests).containsOnlyKeys("attestors", "ignoreFields", "dryRun");
    Map<String, Object> attestor = map(list(manifests.get("attestors")).get(0));
    assertThat(attestor).containsOnlyKeys("count", "entries");
    assertThat(attestor.get("count")).isEqualTo(1);
    Map<String, Object> entry = map(list(attestor.get("entries")).get(0));
    assertThat(entry).containsOnlyKeys("keyless");
    Map<String, Object> keyless = map(entry.get("keyless"));
    assertThat(keyless).containsOnlyKeys("subject", "issuer", "rekor");
    assertThat(map(keyless.get("rekor"))).containsOnlyKeys("url");
    assertThat(map(keyless.get("rekor")).get("url")).isEqualTo("https://rekor.sigstore.dev");
    Map<String, Object> ignore = map(list(manifests.get("ignoreFields")).get(0));
    assertThat(ignore).containsOnlyKeys("objects", "fields");
    for (Object object : list(ignore.get("objects"))) {
      assertThat(map(object).keySet())
          .isSubsetOf(Set.of("group", "version", "kind", "name", "namespace"));
    }
    assertThat(map(list(ignore.get("objects")).get(0))).containsExactly(Map.entry("kind", "*"));
    assertThat(list(ignore.get("fields")))
        .contains("metadata.annotations.argocd.argoproj.io/tracking-id");
    assertThat(map(manifests.get("dryRun")))
        .containsExactly(Map.entry("enable", true), Map.entry("namespace", "countersign-dryrun"));
    assertThat(list(path(policy, "spec", "rules", 0, "match", "any", 0, "resources", "namespaces")))
        .containsExactly("deploy");
  }

  @Test
  void argoApplication_syncsOnlyTheSignedDirectoryWithServerSideApply() {
    Map<String, Object> app =
        yaml(initializer.render(ACME).get(RepositoryInitializer.ARGOCD_APPLICATION));

    assertThat(app.get("kind")).isEqualTo("Application");
    assertThat(path(app, "spec", "source", "repoURL"))
        .isEqualTo("https://github.com/acme/deploy.git");
    assertThat(path(app, "spec", "source", "targetRevision")).isEqualTo("main");
    assertThat(path(app, "spec", "source", "path")).isEqualTo("signed");
    // Only the files countersign verifies: Argo CD's include glob has no separators, so * also
    // matches across directories, and {a,b} is either.
    assertThat(path(app, "spec", "source", "directory", "include")).isEqualTo("{*.yaml,*.yml}");
    assertThat(map(path(app, "spec", "source", "directory"))).doesNotContainKey("exclude");
    assertThat(list(path(app, "spec", "syncPolicy", "syncOptions")))
        .containsExactly("ServerSideApply=true");
    assertThat(path(app, "spec", "destination", "namespace")).isEqualTo("deploy");
  }

  @Test
  void signWorkflow_runsOnPushToBranchWithOidcAndTheActionPlaceholder() {
    String text = initializer.render(ACME).get(RepositoryInitializer.SIGN_WORKFLOW);
    Map<String, Object> workflow = yaml(text);

    // SnakeYAML (YAML 1.1) reads the key "on" as boolean true.
    Map<String, Object> triggers =
        map(
            workflow.containsKey("on")
                ? workflow.get("on")
                : ((Map<?, ?>) workflow).get(Boolean.TRUE));
    assertThat(list(path(triggers, "push", "branches"))).containsExactly("main");
    assertThat(list(path(triggers, "push", "paths"))).containsExactly("unsigned/**");
    Map<String, Object> job = map(path(workflow, "jobs", "sign"));
    assertThat(map(job.get("permissions")))
        .containsExactly(
            Map.entry("contents", "write"),
            Map.entry("id-token", "write"),
            Map.entry("pull-requests", "write"));
    List<Object> steps = list(job.get("steps"));
    assertThat(map(steps.get(0)).get("uses"))
        .isEqualTo("actions/checkout@11bd71901bbe5b1630ceea73d27597364c9af683");
    assertThat(map(steps.get(1)).get("uses")).isEqualTo(ActionReference.USES);
    assertThat(path(steps.get(1), "with", "token")).isEqualTo("${{ secrets.GITHUB_TOKEN }}");
    assertThat(text).doesNotContainPattern("\\{\\{[A-Z_]+\\}\\}");
  }

  @Test
  void policyFile_loadsAndPinsTheSigningWorkflow() throws Exception {
    initializer.write(repo, ACME);

    PolicyFile policy = new PolicyFileLoader().load(repo, PolicyFile.DEFAULT_LOCATION);

    assertThat(policy.toTrustPolicy(repo).identities())
        .containsExactly(
            IdentityRule.exact(
                ACME.signerSubject(), "https://token.actions.githubusercontent.com"));
    assertThat(policy.ignoreFields())
        .containsExactly("metadata.annotations.argocd.argoproj.io/tracking-id");
  }

  @Test
  void write_freshRepository_writesEveryFileDeterministically() throws Exception {
    List<Path> written = initializer.write(repo, ACME.withPromotion(true));

    assertThat(written)
        .containsExactly(
            Path.of(".github/workflows/sign-on-merge.yml"),
            Path.of(".github/workflows/check-on-pr.yml"),
            Path.of(".github/workflows/promote.yml"),
            Path.of(".countersign/policy.yaml"),
            Path.of(".countersign/cluster/kyverno-clusterpolicy.yaml"),
            Path.of(".countersign/cluster/kyverno-dryrun-rbac.yaml"),
            Path.of(".countersign/cluster/argocd-application.yaml"));
    for (Path file : written) {
      assertThat(Files.readString(repo.resolve(file)))
          .isEqualTo(initializer.render(ACME.withPromotion(true)).get(file));
      new org.yaml.snakeyaml.Yaml()
          .loadAll(Files.readString(repo.resolve(file)))
          .forEach(doc -> assertThat(doc).isNotNull());
    }
    assertThat(initializer.render(ACME))
        .isEqualTo(initializer.render(InitOptions.of("acme", "deploy", "main")));
  }

  @Test
  void write_existingFile_isRefusedAndNothingIsWritten() throws Exception {
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(repo.resolve(".countersign/policy.yaml"), "mine");

    assertThatThrownBy(() -> initializer.write(repo, ACME))
        .isInstanceOfSatisfying(
            UsageProblem.class,
            problem -> {
              assertThat(problem.getMessage())
                  .isEqualTo(
                      "Refusing to overwrite .countersign/policy.yaml while running countersign"
                          + " init");
              assertThat(problem.hint())
                  .contains("perhaps you should move it away or pass --force to replace it");
            });
    assertThat(Files.readString(repo.resolve(".countersign/policy.yaml"))).isEqualTo("mine");
    assertThat(repo.resolve(".github")).doesNotExist();
  }

  @Test
  void write_existingFileWithForce_isOverwritten() throws Exception {
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(repo.resolve(".countersign/policy.yaml"), "mine");

    initializer.write(repo, ACME.withForce(true));

    assertThat(Files.readString(repo.resolve(".countersign/policy.yaml")))
        .contains("subject: " + ACME.signerSubject());
  }

  @ParameterizedTest
  @CsvSource({
    "acme/x, deploy, main, The owner \"acme/x\" is not valid while preparing countersign init",
    "acme, deploy, ../main, The branch \"../main\" is not valid while preparing countersign init",
    "acme, deploy, 'ma in', The branch \"ma in\" is not valid while preparing countersign init",
    "acme, .., main, The repository \"..\" is not valid while preparing countersign init",
  })
  void options_invalidNames_areUsageProblems(
      String owner, String repository, String branch, String message) {
    assertThatThrownBy(() -> InitOptions.of(owner, repository, branch))
        .isInstanceOf(UsageProblem.class)
        .hasMessage(message);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> yaml(String text) {
    return (Map<String, Object>) new Yaml(new LoaderOptions()).load(text);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    assertThat(value).isInstanceOf(Map.class);
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    assertThat(value).isInstanceOf(List.class);
    return (List<Object>) value;
  }

  private static Object path(Object root, Object... steps) {
    Object current = root;
    for (Object step : steps) {
      current = step instanceof Integer index ? list(current).get(index) : map(current).get(step);
    }
    return current;
  }
}
