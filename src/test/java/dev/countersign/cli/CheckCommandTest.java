package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.gate.GateRepository;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CheckCommandTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-11-22T05:00:00Z"), ZoneOffset.UTC);

  @TempDir Path work;
  @TempDir Path scratch;

  private GateRepository repo;
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @BeforeEach
  void setUp() {
    repo = GateRepository.create(work, scratch);
  }

  private int run(Env env, String... args) {
    return Main.run(
        Runtime.of(env, CLOCK, new PrintWriter(out, true), new PrintWriter(err, true)), args);
  }

  private List<String> outLines() {
    return out.toString().lines().toList();
  }

  private void editSignedConfigMap() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml").replace("greeting: hello", "greeting: hacked"));
  }

  private void addGovernanceViolations() {
    repo.write("unsigned/net/allow-all.yaml", GateRepository.ALLOW_ALL_INGRESS);
    repo.write(
        "unsigned/app/worker.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: worker-config
        data:
          threads: "4"
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: worker
          labels:
            app: worker
        spec:
          replicas: 1
        """);
  }

  @Test
  void check_signedFileEditedByHand_exits1WithTheFileAndLine() {
    editSignedConfigMap();
    int line = repo.lineOf("signed/app/config.yaml", "greeting: hacked");

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "error signed/app/config.yaml:"
                + line
                + " [signature] ConfigMap/shop/app-config: content differs from the signed message"
                + " at data.greeting: signed \"hello\", found \"hacked\", perhaps you should undo"
                + " the change here and make it in unsigned/app/config.yaml instead; files under"
                + " signed/ are written only by the signing workflow (countersign/signature)",
            "signed:   2 files, 1 of 2 documents verified",
            "unsigned: 0 files, 0 documents, 2 governance policies applied",
            "check failed: 1 error, 0 warnings");
    assertThat(err.toString()).isEmpty();
  }

  @Test
  void check_inGitHubActions_annotatesTheEditedFileAndWritesSummaryAndOutputs() throws Exception {
    editSignedConfigMap();
    int line = repo.lineOf("signed/app/config.yaml", "greeting: hacked");
    Path summary = scratch.resolve("summary.md");
    Path outputs = scratch.resolve("outputs.txt");
    Env env =
        Env.of(
            Map.of(
                "GITHUB_ACTIONS",
                "true",
                "GITHUB_WORKSPACE",
                work.toString(),
                "GITHUB_STEP_SUMMARY",
                summary.toString(),
                "GITHUB_OUTPUT",
                outputs.toString()));

    int code = run(env, "check");

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "::error file=signed/app/config.yaml,line="
                + line
                + ",title=countersign signature::ConfigMap/shop/app-config: content differs from"
                + " the signed message at data.greeting: signed \"hello\", found \"hacked\","
                + " perhaps you should undo the change here and make it in unsigned/app/config.yaml"
                + " instead; files under signed/ are written only by the signing workflow"
                + " (countersign/signature)",
            "signed:   2 files, 1 of 2 documents verified",
            "unsigned: 0 files, 0 documents, 2 governance policies applied",
            "check failed: 1 error, 0 warnings");
    assertThat(Files.readString(summary))
        .startsWith("### countersign check\n\n**Failed**: 1 error, 0 warnings.\n")
        .contains("| signed manifests | 2 | 2 | 1 verified |\n")
        .contains(
            "| error | signature | signed/app/config.yaml | "
                + line
                + " | ConfigMap/shop/app-config | content differs");
    assertThat(Files.readString(outputs)).isEqualTo("result=failed\nerrors=1\nwarnings=0\n");
  }

  @Test
  void check_onlyValidUnsignedManifestsAdded_exits0() {
    repo.write(
        "unsigned/app/cache.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: cache
          labels:
            team: payments
        spec:
          replicas: 1
        ---
        apiVersion: networking.k8s.io/v1
        kind: NetworkPolicy
        metadata:
          name: from-frontend
        spec:
          podSelector: {}
          ingress:
          - from:
            - podSelector:
                matchLabels:
                  app: frontend
        """);

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(0);
    assertThat(outLines())
        .containsExactly(
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 1 file, 2 documents, 2 governance policies applied",
            "check passed: 0 errors, 0 warnings");
  }

  @Test
  void check_governanceViolations_exit1WithPolicyMessagesFilesAndLines() {
    addGovernanceViolations();

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "error unsigned/app/worker.yaml:8 [governance] Deployment/worker: every Deployment"
                + " needs a team label (require-team-label/validations/0)",
            "error unsigned/net/allow-all.yaml:1 [governance] NetworkPolicy/shop/allow-all: a"
                + " NetworkPolicy must not allow ingress from everywhere"
                + " (deny-allow-all-ingress/validations/0)",
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 2 files, 3 documents, 2 governance policies applied",
            "check failed: 2 errors, 0 warnings");
  }

  @Test
  void check_sarifOutput_isStructurallyValidSarif210WithLocations() throws Exception {
    addGovernanceViolations();
    editSignedConfigMap();
    int line = repo.lineOf("signed/app/config.yaml", "greeting: hacked");

    int code = run(Env.empty(), "check", "--repo", work.toString(), "--output", "sarif");

    assertThat(code).isEqualTo(1);
    JsonNode sarif = new ObjectMapper().readTree(out.toString());
    assertThat(sarif.path("version").asText()).isEqualTo("2.1.0");
    assertThat(sarif.path("$schema").asText())
        .isEqualTo("https://json.schemastore.org/sarif-2.1.0.json");
    assertThat(sarif.path("runs")).hasSize(1);
    JsonNode run = sarif.path("runs").get(0);
    JsonNode driver = run.path("tool").path("driver");
    assertThat(driver.path("name").asText()).isEqualTo("countersign");
    JsonNode rules = driver.path("rules");
    JsonNode results = run.path("results");
    assertThat(results).hasSize(3);
    for (JsonNode result : results) {
      String ruleId = result.path("ruleId").asText();
      assertThat(rules.get(result.path("ruleIndex").asInt()).path("id").asText()).isEqualTo(ruleId);
      assertThat(result.path("level").asText()).isEqualTo("error");
      assertThat(result.path("message").path("text").asText()).isNotBlank();
      JsonNode physical = result.path("locations").get(0).path("physicalLocation");
      String uri = physical.path("artifactLocation").path("uri").asText();
      assertThat(uri).doesNotStartWith("/").doesNotContain("\\").doesNotContain(work.toString());
      assertThat(Files.isRegularFile(work.resolve(uri))).as(uri).isTrue();
      assertThat(physical.path("region").path("startLine").asInt()).isPositive();
    }
    assertThat(results.findValuesAsText("ruleId"))
        .containsExactly(
            "countersign/signature",
            "require-team-label/validations/0",
            "deny-allow-all-ingress/validations/0");
    assertThat(
            results
                .get(0)
                .path("locations")
                .get(0)
                .path("physicalLocation")
                .path("region")
                .path("startLine")
                .asInt())
        .isEqualTo(line);
    assertThat(rules).hasSize(3);
    for (JsonNode rule : rules) {
      assertThat(rule.path("shortDescription").path("text").asText()).isNotBlank();
    }
  }

  @Test
  void check_sarifFile_writesSarifWhilePrintingText() throws Exception {
    addGovernanceViolations();
    Path sarifFile = scratch.resolve("reports/check.sarif");

    int code =
        run(Env.empty(), "check", "--repo", work.toString(), "--sarif-file", sarifFile.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines()).last().isEqualTo("check failed: 2 errors, 0 warnings");
    JsonNode sarif = new ObjectMapper().readTree(Files.readString(sarifFile));
    assertThat(sarif.path("version").asText()).isEqualTo("2.1.0");
    assertThat(sarif.path("runs").get(0).path("results")).hasSize(2);
  }

  @Test
  void check_jsonOutputInActions_keepsStdoutJsonAndAnnotatesOnStderr() throws Exception {
    addGovernanceViolations();
    Env env =
        Env.of(
            Map.of(
                "GITHUB_ACTIONS",
                "true",
                "GITHUB_OUTPUT",
                scratch.resolve("outputs.txt").toString()));

    int code = run(env, "check", "--repo", work.toString(), "--output", "json");

    assertThat(code).isEqualTo(1);
    JsonNode json = new ObjectMapper().readTree(out.toString());
    assertThat(json.path("passed").asBoolean()).isFalse();
    assertThat(json.path("summary").path("errors").asInt()).isEqualTo(2);
    assertThat(json.path("findings").get(0).path("file").asText())
        .isEqualTo("unsigned/app/worker.yaml");
    assertThat(json.path("findings").get(0).path("line").asInt()).isEqualTo(8);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "::error file=unsigned/app/worker.yaml,line=8,title=countersign"
                + " governance::Deployment/worker: every Deployment needs a team label"
                + " (require-team-label/validations/0)",
            "::error file=unsigned/net/allow-all.yaml,line=1,title=countersign"
                + " governance::NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow"
                + " ingress from everywhere (deny-allow-all-ingress/validations/0)");
  }

  @Test
  void check_unsignedFileFindings_presetAnnotationsAndDuplicateKey() {
    repo.write(
        "unsigned/preset.yaml",
        "apiVersion: v1\n"
            + "kind: ConfigMap\n"
            + "metadata:\n"
            + "  name: p\n"
            + "  annotations:\n"
            + "    cosign.sigstore.dev/signature: MEUCIQ==\n");
    repo.write(
        "unsigned/dup.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\n  name: e\n");

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .startsWith(
            "error unsigned/dup.yaml:5 [manifest] duplicate key \"name\" in metadata (first defined"
                + " at line 4), perhaps you should remove one of them; Kubernetes tools disagree on"
                + " which one wins (countersign/readable-manifest)",
            "error unsigned/preset.yaml:6 [manifest] ConfigMap/p: already carries the signature"
                + " annotation cosign.sigstore.dev/signature in an unsigned directory, perhaps you"
                + " should remove it; the signing workflow adds signatures after merge, and a"
                + " pre-set one would be signed over or kept unreviewed"
                + " (countersign/no-preset-signature)");
  }

  @Test
  void check_governanceWarningOnly_exits0AndAnnotatesAWarning() throws Exception {
    repo.write(
        "policies/no-nodeport.yaml",
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: no-nodeport
        spec:
          failurePolicy: Ignore
          matchConstraints:
            resourceRules:
            - apiGroups: [""]
              apiVersions: ["v1"]
              operations: ["CREATE"]
              resources: ["services"]
          validations:
          - expression: "object.spec.type != 'NodePort'"
        """);
    repo.write(
        "unsigned/web.yaml",
        "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n");

    Path outputs = scratch.resolve("outputs.txt");
    Env env = Env.of(Map.of("GITHUB_ACTIONS", "true", "GITHUB_OUTPUT", outputs.toString()));

    int code = run(env, "check", "--repo", work.toString());

    assertThat(code).isEqualTo(0);
    assertThat(outLines())
        .containsExactly(
            "::warning file=unsigned/web.yaml,line=1,title=countersign governance::Service/web:"
                + " expression 'object.spec.type != 'NodePort'' resulted in error: key 'type' is"
                + " not present in map. (no-nodeport/validations/0)",
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 1 file, 1 document, 3 governance policies applied",
            "check passed: 0 errors, 1 warning");
    assertThat(Files.readString(outputs)).isEqualTo("result=passed\nerrors=0\nwarnings=1\n");
  }

  @Test
  void check_configMapKeyContainingStatusEditedUnderSigned_fails() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml")
            .replace("  greeting: hello\n", "  greeting: hello\n  status: degraded-on-purpose\n"));

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines().get(0))
        .startsWith("error signed/app/config.yaml:")
        .contains(
            "content differs from the signed message at data.status: signed nothing, found"
                + " \"degraded-on-purpose\"");
  }

  @Test
  void check_deploymentPodSecurityContextRunAsRootUnderSigned_fails() {
    repo.write(
        "signed/app/deployment.yaml",
        repo.read("signed/app/deployment.yaml")
            .replace(
                "      containers:\n",
                "      securityContext:\n        runAsUser: 0\n      containers:\n"));
    assertThat(repo.read("signed/app/deployment.yaml")).contains("runAsUser: 0");

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines().get(0))
        .startsWith("error signed/app/deployment.yaml:")
        .contains("spec.template.spec.securityContext.runAsUser: signed nothing, found 0");
  }

  @Test
  void check_emptiedFieldUnderSigned_failsAsNotExactlyTheMessage() {
    repo.write(
        "signed/app/deployment.yaml",
        repo.read("signed/app/deployment.yaml")
            .replace("      containers:\n", "      securityContext: {}\n      containers:\n"));

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines().get(0))
        .startsWith("error signed/app/deployment.yaml:")
        .contains("is not exactly document 1 of the signed message");
  }

  @Test
  void check_withoutPolicyFile_exits2NamingIt() throws Exception {
    Files.delete(work.resolve(".countersign/policy.yaml"));

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(2);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "error: No trust policy found at .countersign/policy.yaml in "
                + work
                + " while starting countersign check",
            "hint: perhaps you should run \"countersign init\" and commit its files, or pass"
                + " --policy FILE");
  }

  /**
   * The repository root is no location for rules: the base commit's rules cannot be read there
   * (every pull request's check stopped with "a bug"), and the work tree's reader refuses it too. A
   * trust policy error naming its line (exit 6, as for a path outside the repository), not an
   * internal error.
   */
  @Test
  void check_governanceLocationThatIsTheRepositoryRoot_exits6NamingThePolicyLine() {
    repo.write(
        ".countersign/policy.yaml",
        repo.read(".countersign/policy.yaml").replace("policies: [policies]", "policies: [.]"));

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).as(err.toString()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(err.toString())
        .contains(".countersign/policy.yaml:")
        .contains("\".\" is the repository root; name a file or directory inside it");
  }

  @Test
  void control_check_governanceLocationInsideTheRepository_isLoaded() {
    repo.write(
        ".countersign/policy.yaml",
        repo.read(".countersign/policy.yaml")
            .replace("policies: [policies]", "policies: [./policies/]"));
    addGovernanceViolations();

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).as(err.toString()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(out.toString()).contains("deny-allow-all-ingress");
  }

  /**
   * A long value under the common DNS-subdomain regex: java.util.regex's recursion overflowed the
   * stack and the check died without a finding; RE2 (the API server's engine, here RE2J) rejects it
   * in linear time.
   */
  @Test
  void check_longValueUnderDnsSubdomainRegex_exits1WithTheFinding() {
    repo.write(
        "policies/dns-host.yaml",
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: dns-host
        spec:
          matchConstraints:
            resourceRules:
            - apiGroups: [""]
              apiVersions: ["v1"]
              operations: ["CREATE"]
              resources: ["configmaps"]
          validations:
          - expression: >-
              object.metadata.annotations.host.find('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') != ''
            message: "host must be a DNS subdomain"
        """);
    repo.write(
        "unsigned/app/hosts.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hosts\n  annotations:\n    host: "
            + "a.".repeat(30_000)
            + "\n");

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "error unsigned/app/hosts.yaml:1 [governance] ConfigMap/hosts: host must be a DNS"
                + " subdomain (dns-host/validations/0)",
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 1 file, 1 document, 3 governance policies applied",
            "check failed: 1 error, 0 warnings");
    assertThat(err.toString()).isEmpty();
  }

  /**
   * Three ways the offline check used to pass what the API server refuses: {@code $} before a final
   * newline, probes left empty (null) counted as present, and {@code *}{@code /*} in resourceRules
   * matching nothing.
   */
  @Test
  void check_whatTheApiServerRefuses_exits1WithEachFinding() {
    repo.write(
        "policies/cluster-rules.yaml",
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: corp-owner
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
          validations:
          - expression: >-
              object.metadata.annotations.owner.find('^[a-z]+@corp\\\\.com$') != ''
            message: "owner must be a corp.com address"
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: probes
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
          validations:
          - expression: >-
              object.spec.template.spec.containers.all(c, has(c.livenessProbe) && has(c.readinessProbe))
            message: "every container needs probes"
        ---
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: team-everywhere
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"]}
          validations:
          - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
            message: "every object needs a team label"
        """);
    repo.write(
        "unsigned/app/cluster.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: owners
          labels: {team: shop}
          annotations:
            owner: "root@corp.com\\n"
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          labels: {team: shop}
        spec:
          template:
            spec:
              containers:
              - name: web
                image: web:1
                livenessProbe:
                readinessProbe:
        ---
        apiVersion: v1
        kind: Secret
        metadata:
          name: db
        stringData:
          password: hunter2
        """);

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "error unsigned/app/cluster.yaml:1 [governance] ConfigMap/owners: owner must be a"
                + " corp.com address (corp-owner/validations/0)",
            "error unsigned/app/cluster.yaml:9 [governance] Deployment/web: every container needs"
                + " probes (probes/validations/0)",
            "error unsigned/app/cluster.yaml:23 [governance] Secret/db: every object needs a team"
                + " label (team-everywhere/validations/0)",
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 1 file, 3 documents, 5 governance policies applied",
            "check failed: 3 errors, 0 warnings");
  }

  /**
   * matchPolicy Equivalent (the default): the cluster judges an autoscaling/v1 HPA by a policy on
   * autoscaling/v2 after converting it, so writing the older version is no way around the policy.
   */
  @Test
  void check_equivalentApiVersionOfAGatedResource_exits1InsteadOfPassingUnjudged() {
    repo.write(
        "policies/hpa.yaml",
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata:
          name: hpa-ceiling
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: [autoscaling], apiVersions: [v2], operations: [CREATE], resources: [horizontalpodautoscalers]}
          validations:
          - expression: "object.spec.maxReplicas <= 10"
            message: "at most 10 replicas"
        """);
    String hpa =
        """
        apiVersion: autoscaling/%s
        kind: HorizontalPodAutoscaler
        metadata:
          name: %s
          namespace: shop
        spec:
          scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}
          minReplicas: 1
          maxReplicas: %d
        """;
    repo.write("unsigned/app/hpa-v1.yaml", hpa.formatted("v1", "web-v1", 500));
    repo.write("unsigned/app/hpa-v2.yaml", hpa.formatted("v2", "web-v2", 10));

    int code = run(Env.empty(), "check", "--repo", work.toString());

    assertThat(code).isEqualTo(1);
    assertThat(outLines())
        .containsExactly(
            "error unsigned/app/hpa-v1.yaml:1 [governance] HorizontalPodAutoscaler/shop/web-v1:"
                + " applies to this autoscaling/v1 HorizontalPodAutoscaler as autoscaling/v2"
                + " (matchPolicy: Equivalent): the API server would convert the object to"
                + " autoscaling/v2 and evaluate the policy on the result, which countersign cannot"
                + " do offline, perhaps you should write it as autoscaling/v2, or name"
                + " autoscaling/v1 in the policy's resourceRules (hpa-ceiling)",
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 2 files, 2 documents, 3 governance policies applied",
            "check failed: 1 error, 0 warnings");
  }
}
