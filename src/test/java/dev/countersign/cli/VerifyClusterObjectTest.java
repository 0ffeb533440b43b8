package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify}: exact for files (as in a repository), Kyverno's tolerances, anchored, only for
 * objects read back from a cluster ({@code --cluster-object}). Real key, real signatures.
 */
class VerifyClusterObjectTest {

  @TempDir Path work;
  @TempDir Path scratch;
  private GateRepository repo;

  @BeforeEach
  void setUp() {
    repo = GateRepository.create(work, scratch);
  }

  private static final String SERVICE =
      """
      apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: app
      spec:
        selector:
          app: web
        ports:
          - port: 80
            targetPort: 8080
            protocol: TCP
      """;

  private static final String CLUSTER_POLICY =
      """
      apiVersion: kyverno.io/v1
      kind: ClusterPolicy
      metadata:
        name: require-signed-manifests
      spec:
        rules:
          - name: signed
            match:
              any:
                - resources:
                    kinds: [ConfigMap]
            validate:
              manifests:
                attestors:
                  - entries:
                      - keys:
                          publicKeys: "-----BEGIN PUBLIC KEY-----"
      """;

  private CliRun verify(String... extra) {
    return verifyFile("signed/app/config.yaml", extra);
  }

  private CliRun verifyFile(String relative, String... extra) {
    String[] args = new String[extra.length + 4];
    args[0] = "verify";
    args[1] = "--key";
    args[2] = work.resolve(".countersign/cosign.pub").toString();
    System.arraycopy(extra, 0, args, 3, extra.length);
    args[args.length - 1] = work.resolve(relative).toString();
    return CliRun.run(Map.of(), args);
  }

  /** Signs {@code content} as signed/app/FILE, then edits it as the cluster would hold it. */
  private String signThenReadBack(String file, String content, String... replacements) {
    repo.sign("app/" + file, content);
    String relative = "signed/app/" + file;
    String readBack = repo.read(relative);
    for (int i = 0; i < replacements.length; i += 2) {
      assertThat(readBack).contains(replacements[i]);
      readBack = readBack.replace(replacements[i], replacements[i + 1]);
    }
    repo.write(relative, readBack);
    return relative;
  }

  /** What the API server adds to every object it stores. */
  private static final String SERVER_METADATA =
      "metadata:\n"
          + "  uid: 0b9d6f3c-8d8a-4a47-9d55-1f8e3c2a7b10\n"
          + "  resourceVersion: \"4711\"\n"
          + "  creationTimestamp: \"2024-05-01T10:00:00Z\"\n"
          + "  generation: 3\n";

  @Test
  void serverSetStatus_failsAsAFile_butPassesAsAClusterObject() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml") + "status:\n  observed: true\n");

    CliRun file = verify();
    CliRun clusterObject = verify("--cluster-object");

    assertThat(file.exitCode()).as(file.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(file.out()).contains("content differs from the signed message at status.observed");
    assertThat(clusterObject.exitCode()).as(clusterObject.all()).isZero();
  }

  @Test
  void configMapKeyContainingStatus_failsEvenAsAClusterObject() {
    repo.write(
        "signed/app/config.yaml",
        repo.read("signed/app/config.yaml")
            .replace("  greeting: hello\n", "  greeting: hello\n  status: degraded-on-purpose\n"));

    CliRun clusterObject = verify("--cluster-object");

    assertThat(clusterObject.exitCode())
        .as(clusterObject.all())
        .isEqualTo(ExitCode.REJECTED.code());
    assertThat(clusterObject.out())
        .contains("data.status: signed nothing, found \"degraded-on-purpose\"");
  }

  @Test
  void ignoreFieldWithoutClusterObject_isAUsageError() {
    CliRun run = verify("--ignore-field", "data.greeting");

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("--ignore-field applies only to objects read back from a cluster");
  }

  @Test
  void jsonOutput_namesEachDocumentsFileLineObjectVerdictAndSigners_inThatOrder() throws Exception {
    CliRun run = verify("--output", "json");

    assertThat(run.exitCode()).as(run.all()).isZero();
    JsonNode rows = new ObjectMapper().readTree(run.out());
    assertThat(rows).hasSize(1);
    JsonNode row = rows.get(0);
    assertThat(row.fieldNames())
        .toIterable()
        .containsExactly("file", "document", "line", "object", "verified", "reason", "signers");
    assertThat(row.get("file").asText()).endsWith("config.yaml");
    assertThat(row.get("verified").asBoolean()).isTrue();
    assertThat(row.get("signers")).isNotEmpty();
  }

  @Test
  void serviceFieldsTheServerFillsIn_passAsAClusterObject() {
    String file =
        signThenReadBack(
            "service.yaml",
            SERVICE,
            "metadata:\n",
            SERVER_METADATA,
            "spec:\n",
            "spec:\n"
                + "  type: ClusterIP\n"
                + "  sessionAffinity: None\n"
                + "  clusterIP: 10.96.12.7\n"
                + "  clusterIPs:\n  - 10.96.12.7\n"
                + "  ipFamilies:\n  - IPv4\n"
                + "  ipFamilyPolicy: SingleStack\n"
                + "  internalTrafficPolicy: Cluster\n");
    repo.write(file, repo.read(file) + "status:\n  loadBalancer: {}\n");

    CliRun run = verifyFile(file, "--cluster-object");

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  @Test
  void serviceTypeTheMessageStates_changedInTheCluster_isRejected() {
    String stated = SERVICE.replace("spec:\n", "spec:\n  type: ClusterIP\n");
    String file =
        signThenReadBack(
            "service.yaml",
            stated,
            "metadata:\n",
            SERVER_METADATA,
            "type: ClusterIP",
            "type: LoadBalancer");

    CliRun run = verifyFile(file, "--cluster-object");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "content differs from the signed message at spec.type: signed \"ClusterIP\","
                + " found \"LoadBalancer\"");
  }

  @Test
  void statedFieldChangedInTheCluster_passesWhenTheUserIgnoresIt() {
    String stated = SERVICE.replace("spec:\n", "spec:\n  type: ClusterIP\n");
    String file = signThenReadBack("service.yaml", stated, "type: ClusterIP", "type: NodePort");

    CliRun run = verifyFile(file, "--cluster-object", "--ignore-field", "spec.type");

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  @Test
  void policyDefaultsKyvernoFillsIn_passAsAClusterObject() {
    String file =
        signThenReadBack(
            "policy.yaml",
            CLUSTER_POLICY,
            "spec:\n",
            "spec:\n  validationFailureAction: Audit\n  background: true\n"
                + "  failurePolicy: Fail\n");

    CliRun run = verifyFile(file, "--cluster-object");

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  @Test
  void enforcementTheMessageStates_switchedToAuditInTheCluster_isRejected() {
    String file =
        signThenReadBack(
            "policy.yaml",
            CLUSTER_POLICY.replace("spec:\n", "spec:\n  validationFailureAction: Enforce\n"),
            "validationFailureAction: Enforce",
            "validationFailureAction: Audit");

    CliRun run = verifyFile(file, "--cluster-object");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("at spec.validationFailureAction: signed \"Enforce\"");
  }

  @Test
  void bookkeepingTheMessageStates_mayStillChangeInTheCluster() {
    // A message made from an exported object states uid, resourceVersion and an Argo CD instance
    // label; the server and Argo CD rewrite them, as Kyverno expects.
    String file =
        signThenReadBack(
            "exported.yaml",
            CONFIG_MAP_WITH_BOOKKEEPING,
            "resourceVersion: \"1\"",
            "resourceVersion: \"2\"",
            "app.kubernetes.io/instance: old",
            "app.kubernetes.io/instance: argo-app");

    CliRun run = verifyFile(file, "--cluster-object");

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  private static final String CONFIG_MAP_WITH_BOOKKEEPING =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: exported
        namespace: app
        resourceVersion: "1"
        labels:
          app.kubernetes.io/instance: old
      data:
        greeting: hello
      """;
}
