package dev.countersign.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.policy.YamlTree;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class AdmissionPolicyEvaluatorTest {

  private static final Path ROOT = resources();

  static Stream<Arguments> rules() {
    return Stream.of(
        Arguments.of(
            "require-team-label",
            "deployment-without-team",
            List.of("require-team-label[0] every Deployment needs a team label")),
        Arguments.of("require-team-label", "deployment-compliant", List.of()),
        // A kind the policy's resourceRules do not list is not matched at all.
        Arguments.of("require-team-label", "networkpolicy-allow-all", List.of()),
        Arguments.of(
            "deny-allow-all-ingress",
            "networkpolicy-allow-all",
            List.of(
                "deny-allow-all-ingress[0] a NetworkPolicy must not allow ingress from"
                    + " everywhere")),
        Arguments.of("deny-allow-all-ingress", "networkpolicy-from-frontend", List.of()),
        // messageExpression wins over message, as in Kubernetes; params come from the params file.
        Arguments.of(
            "max-replicas",
            "deployment-ten-replicas",
            List.of("max-replicas[0] replicas is 10, at most 5 allowed")),
        Arguments.of("max-replicas", "deployment-compliant", List.of()),
        // all() + filter() + map() + strings extension join().
        Arguments.of(
            "containers-have-limits",
            "deployment-latest-and-unlimited",
            List.of("containers-have-limits[0] containers without a memory limit: sidecar, app")),
        // variables, exists(), exists_one().
        Arguments.of(
            "no-latest-tag",
            "deployment-latest-and-unlimited",
            List.of(
                "no-latest-tag[0] images must be pinned to a tag other than latest",
                "no-latest-tag[1] exactly one container must be called app")),
        Arguments.of("no-latest-tag", "deployment-compliant", List.of()),
        // matchConditions false: the policy does not apply.
        Arguments.of("configmaps-have-data", "configmap-kube-system-empty", List.of()),
        Arguments.of(
            "configmaps-have-data",
            "configmap-shop-empty",
            List.of("configmaps-have-data[0] a ConfigMap must carry data")),
        // A messageExpression that fails at run time falls back to message.
        Arguments.of(
            "message-fallback",
            "configmap-shop-empty",
            List.of("message-fallback[0] a ConfigMap must not be empty")),
        // A missing field read without has() is a runtime error, reported with the expression.
        Arguments.of(
            "no-nodeport",
            "service-without-type",
            List.of(
                "no-nodeport[0] expression 'object.spec.type != 'NodePort'' resulted in error: key"
                    + " 'type' is not present in map.")),
        // No message and no messageExpression: Kubernetes' default message.
        Arguments.of(
            "no-nodeport",
            "service-nodeport",
            List.of("no-nodeport[0] failed expression: object.spec.type != 'NodePort'")),
        // objectSelector matches; strings extension lowerAscii(); Kubernetes regex find().
        Arguments.of(
            "frontend-names",
            "deployment-frontend",
            List.of(
                "frontend-names[0] frontend object Web-Shop must be named web-<lowercase>",
                "frontend-names[1] frontend images must be pinned by digest")),
        // objectSelector matchExpressions NotIn excludes the sandbox object.
        Arguments.of("frontend-names", "deployment-frontend-sandbox", List.of()),
        // objectSelector matchLabels: no tier label, not selected.
        Arguments.of("frontend-names", "deployment-compliant", List.of()));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("rules")
  void evaluate_policyOnManifest_reportsExpectedFindings(
      String policy, String manifest, List<String> expected) {
    AdmissionPolicyEvaluator evaluator = evaluator(policy);

    List<PolicyFinding> findings =
        evaluator.evaluate(Path.of("signed/" + manifest + ".yaml"), manifest(manifest));

    assertThat(evaluator.policyProblems()).isEmpty();
    assertThat(findings)
        .extracting(f -> f.policy() + "[" + f.validationIndex() + "] " + f.message())
        .containsExactlyElementsOf(expected);
  }

  @Test
  void evaluate_rejection_namesFileLineObjectAndSeverity() {
    List<PolicyFinding> findings =
        evaluator("deny-allow-all-ingress")
            .evaluate(Path.of("signed/np.yaml"), manifest("networkpolicy-allow-all"));

    assertThat(findings)
        .containsExactly(
            new PolicyFinding(
                Path.of("signed/np.yaml"),
                1,
                "deny-allow-all-ingress",
                0,
                "NetworkPolicy/shop/allow-all",
                "a NetworkPolicy must not allow ingress from everywhere",
                PolicyFinding.Severity.ERROR));
  }

  @Test
  void evaluate_mapAndLineFunction_usesTheDocumentLine() {
    ManifestDocument second =
        YamlTree.parseAll(
                Path.of("m.yaml"), "kind: A\n---\n" + read("manifests/service-nodeport.yaml"))
            .get(1);

    List<PolicyFinding> findings =
        evaluator("no-nodeport").evaluate(Path.of("m.yaml"), second.content(), second::lineOf);

    assertThat(findings).extracting(PolicyFinding::line).containsExactly(3);
  }

  @Test
  void evaluate_paramKindWithoutParams_reportsTheRuntimeError() {
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().load(ROOT, List.of(Path.of("policies/max-replicas.yaml"))),
            Optional.empty());

    List<PolicyFinding> findings =
        evaluator.evaluate(Path.of("d.yaml"), manifest("deployment-compliant"));

    assertThat(findings)
        .singleElement()
        .satisfies(
            f ->
                assertThat(f.message())
                    .startsWith(
                        "expression 'object.spec.replicas <= int(params.data.maxReplicas)' resulted"
                            + " in error: "));
  }

  @Test
  void policyProblems_expressionsThatDoNotCompile_areReportedOnceWithPolicyFileAndExpression() {
    AdmissionPolicyEvaluator evaluator = evaluator("broken-expressions");

    assertThat(evaluator.policyProblems())
        .extracting(
            f ->
                f.file()
                    + ":"
                    + f.line()
                    + " "
                    + f.ruleId()
                    + " "
                    + f.message().lines().findFirst().orElseThrow())
        .containsExactly(
            "policies/broken-expressions.yaml:13 broken-expressions/validations/0 validation 0"
                + " 'object.metadata.name ==' does not compile: mismatched input '<EOF>' expecting"
                + " {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT,"
                + " NUM_UINT, STRING, BYTES, IDENTIFIER}",
            "policies/broken-expressions.yaml:15 broken-expressions/validations/1 validation 1"
                + " 'authorizer.group('').resource('configmaps').check('create').allowed()' does"
                + " not compile: undeclared reference to 'authorizer' (in container ''); authorizer"
                + " checks need a cluster and are not available offline",
            "policies/broken-expressions.yaml:16 broken-expressions/validations/2 validation 2"
                + " ''not a boolean'' must evaluate to bool, but evaluates to string");
    // The validation that compiles still runs.
    assertThat(evaluator.evaluate(Path.of("c.yaml"), manifest("configmap-kube-system-empty")))
        .extracting(PolicyFinding::message)
        .containsExactly("this one works");
  }

  @Test
  void evaluate_failurePolicyIgnore_turnsRuntimeErrorsIntoWarnings() {
    String text =
        read("policies/no-nodeport.yaml")
            .replace(
                "spec:\n  matchConstraints", "spec:\n  failurePolicy: Ignore\n  matchConstraints");
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), text), Optional.empty());

    assertThat(evaluator.evaluate(Path.of("s.yaml"), manifest("service-without-type")))
        .extracting(PolicyFinding::severity)
        .containsExactly(PolicyFinding.Severity.WARNING);
  }

  @Test
  void evaluate_yamlNullsAndLargeIntegers_areCelValues() {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: values}
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
          validations:
          - expression: "object.metadata.annotations == null"
            message: "null is CEL null"
          - expression: "object.data.big > 9223372036854775807u && object.data.small == 8"
            message: "numbers convert"
          - expression: "object.data.flag && object.data.ratio == 0.5"
            message: "YAML 1.1 scalars"
        """;
    ManifestDocument document =
        YamlTree.parseAll(
                Path.of("c.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\ndata:\n"
                    + "  big: 18446744073709551615\n  small: 010\n  flag: yes\n  ratio: .5\n")
            .get(0);
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy), Optional.empty());

    assertThat(evaluator.policyProblems()).isEmpty();
    assertThat(evaluator.evaluate(Path.of("c.yaml"), document)).isEmpty();
  }

  private static AdmissionPolicyEvaluator evaluator(String policy) {
    AdmissionPolicyLoader loader = new AdmissionPolicyLoader();
    Map<String, Object> params = loader.loadParams(ROOT, Path.of("params-max-replicas.yaml"));
    return new AdmissionPolicyEvaluator(
        loader.load(ROOT, List.of(Path.of("policies/" + policy + ".yaml"))), Optional.of(params));
  }

  private static ManifestDocument manifest(String name) {
    List<ManifestDocument> documents =
        YamlTree.parseAll(Path.of(name + ".yaml"), read("manifests/" + name + ".yaml"));
    assertThat(documents).hasSize(1);
    return documents.get(0);
  }

  private static String read(String relative) {
    try {
      return Files.readString(ROOT.resolve(relative));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Path resources() {
    try {
      return Path.of(AdmissionPolicyEvaluatorTest.class.getResource("/governance").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }
}
