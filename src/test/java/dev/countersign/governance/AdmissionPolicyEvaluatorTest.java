package dev.countersign.governance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.InstanceOfAssertFactories.STRING;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.policy.YamlTree;
import dev.countersign.support.problems.InputProblem;
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
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

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
          - expression: "!has(object.metadata.annotations) && object.data.list[0] == null"
            message: "a null field is absent, a null list item CEL null"
          - expression: "object.data.big > 9223372036854775807u && object.data.small == 8"
            message: "numbers convert"
          - expression: "object.data.flag && object.data.ratio == 0.5"
            message: "YAML 1.1 scalars"
        """;
    ManifestDocument document =
        YamlTree.parseAll(
                Path.of("c.yaml"),
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\ndata:\n"
                    + "  big: 18446744073709551615\n  small: 010\n  flag: yes\n  ratio: .5\n"
                    + "  list: [null]\n")
            .get(0);
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy), Optional.empty());

    assertThat(evaluator.policyProblems()).isEmpty();
    assertThat(evaluator.evaluate(Path.of("c.yaml"), document)).isEmpty();
  }

  /** The DNS-subdomain regex many policies use, as a CEL string literal. */
  private static final String DNS_SUBDOMAIN =
      "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'";

  /**
   * java.util.regex matched the DNS-subdomain regex's repeated group by recursion, a few stack
   * frames per repetition, and a 60 KB value overflowed the stack; RE2, which the API server uses,
   * runs in linear time without backtracking.
   */
  @Test
  void evaluate_dnsSubdomainRegexOnLongValue_rejectsWithoutOverflowingTheStack() {
    String host = "object.metadata.annotations.host";
    String policy =
        configMapPolicy(
            validation("find", host + ".find(" + DNS_SUBDOMAIN + ") != ''"),
            validation("matches", host + ".matches(" + DNS_SUBDOMAIN + ")"),
            validation("findAll", host + ".findAll(" + DNS_SUBDOMAIN + ").size() == 1"));
    // 60 KB; the trailing dot makes it no DNS subdomain.
    String manifest = configMap("  annotations:\n    host: " + "a.".repeat(30_000) + "\n");

    assertThat(messages(policy, manifest)).containsExactly("find", "matches", "findAll");
  }

  /** RE2's {@code $} (without the m flag) matches only at the end, never before a final newline. */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "'root@corp.com\\n', 'find, matches, findAll'",
    "'root@corp.com', ''",
  })
  void evaluate_dollarAnchor_matchesOnlyAtTheEndAsInRe2(String owner, String expected) {
    String regex = "'^[a-z]+@corp\\\\.com$'";
    String field = "object.metadata.annotations.owner";
    String policy =
        configMapPolicy(
            validation("find", field + ".find(" + regex + ") != ''"),
            validation("matches", field + ".matches(" + regex + ")"),
            validation("findAll", field + ".findAll(" + regex + ").size() == 1"));
    String manifest = configMap("  annotations:\n    owner: \"" + owner + "\"\n");

    assertThat(messages(policy, manifest))
        .containsExactlyElementsOf(expected.isEmpty() ? List.of() : List.of(expected.split(", ")));
  }

  /**
   * Kubernetes' regex functions are Go's {@code FindString} and {@code FindAllString}: an empty
   * match right after the previous match is skipped, an empty match advances by one character (code
   * point), and {@code matches} searches as {@code find} does.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "'abc'.findAll('a*') == ['a', '', '']",
        "'abc'.findAll('') == ['', '', '', '']",
        "'aXbXc'.findAll('X*') == ['', 'X', 'X', '']",
        "'aXbXc'.findAll('X*', 3) == ['', 'X', 'X']",
        "'a1b22'.findAll('[0-9]+') == ['1', '22']",
        "'a1b22'.findAll('[0-9]+', 0) == []",
        "'\u00e9\ud83d\ude00'.findAll('') == ['', '', '']",
        "'abc'.find('b+') == 'b' && 'abc'.find('x') == ''",
        "'abc'.matches('b') && !'abc'.matches('^b')",
        "'A\\nb'.find('(?i)^a$') == '' && 'A\\nb'.find('(?im)^a$') == 'A'",
      })
  void evaluate_regexFunctions_followGoRegexpSemantics(String expression) {
    assertThat(messages(configMapPolicy(validation("differs", expression)), configMap("")))
        .isEmpty();
  }

  @Test
  void evaluate_invalidRegex_isARuntimeErrorNamingTheRegex() {
    String policy = configMapPolicy(validation("", "'abc'.find('(') == ''"));

    assertThat(messages(policy, configMap("")))
        .singleElement(STRING)
        .startsWith(
            "expression ''abc'.find('(') == ''' resulted in error: invalid regular expression"
                + " '(': ");
  }

  /**
   * The API server decodes a manifest into its typed object, which has no place for a null: a field
   * or map entry set to null is absent there, so {@code has()} is false. Labels and annotations are
   * string maps, where a null decodes to the empty string (for the objectSelector too).
   */
  @Test
  void evaluate_nullFields_areAbsentAndNullLabelsAreEmptyStrings() {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: probes}
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"]}
            objectSelector:
              matchExpressions:
              - {key: team, operator: In, values: [""]}
          validations:
          - expression: "object.spec.template.spec.containers.all(c, has(c.livenessProbe) && has(c.readinessProbe))"
            message: "every container needs probes"
          - expression: "!has(object.spec.replicas) && !has(object.spec.template.metadata.annotations)"
            message: "null fields are absent"
          - expression: "object.metadata.labels['team'] == '' && object.spec.template.metadata.labels.app == ''"
            message: "null labels are empty strings"
        """;
    String manifest =
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: web
          labels:
            team:
        spec:
          replicas:
          template:
            metadata:
              annotations:
              labels:
                app:
            spec:
              containers:
              - name: web
                image: web:1
                livenessProbe:
                readinessProbe:
        """;

    assertThat(messages(policy, manifest)).containsExactly("every container needs probes");
  }

  /**
   * A {@code resources} entry is {@code resource/subresource}, as in Kubernetes: {@code *}{@code
   * /*} is every resource and subresource, {@code secrets/*} a Secret and its subresources, while
   * {@code *}{@code /status} names only subresources, which a manifest never is.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "'*/*', true",
    "'*', true",
    "secrets/*, true",
    "secrets, true",
    "'*/status', false",
    "secrets/status, false",
    "configmaps/*, false",
    "configmaps, false",
  })
  void resourceRule_resourceAndSubresource_matchAsInKubernetes(String entry, boolean matches) {
    AdmissionPolicy.ResourceRule rule =
        new AdmissionPolicy.ResourceRule(
            List.of("*"), List.of("*"), List.of(entry), List.of("CREATE"), List.of());

    assertThat(rule.matches("", "v1", "secrets", "db")).isEqualTo(matches);
  }

  @Test
  void evaluate_allResourcesAndSubresources_appliesToAnUnlabelledSecret() {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: require-team}
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: ["*"], apiVersions: ["*"], operations: ["*"], resources: ["*/*"]}
          validations:
          - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
            message: "every object needs a team label"
        """;
    String secret = "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  a: b\n";

    assertThat(messages(policy, secret)).containsExactly("every object needs a team label");
  }

  /**
   * A policy whose rule names one version of a resource, with the manifest written in another
   * version or group that the API server serves as the same resource.
   */
  private static String maxReplicasPolicy(String rule, String matchPolicy) {
    return """
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: max-replicas}
    spec:
      matchConstraints:
    %s    resourceRules:
        - %s
      validations:
      - expression: "object.spec.maxReplicas <= 10"
        message: "at most 10 replicas"
    """
        .formatted(matchPolicy.isEmpty() ? "" : "    matchPolicy: " + matchPolicy + "\n", rule);
  }

  /** An object of {@code apiVersion} and {@code kind} named {@code big} with 100 replicas. */
  private static String hundredReplicas(String apiVersion, String kind) {
    return "apiVersion: %s\nkind: %s\nmetadata:\n  name: big\n  namespace: shop\nspec:\n  maxReplicas: 100\n"
        .formatted(apiVersion, kind);
  }

  private static final String HPA_V2 =
      "{apiGroups: [autoscaling], apiVersions: [v2], operations: [CREATE], resources:"
          + " [horizontalpodautoscalers]}";

  /**
   * matchPolicy Equivalent, Kubernetes' default: the API server converts an object written in
   * another version (or a group that serves the same resource) to the version the rule names and
   * evaluates the policy on the result. countersign cannot convert offline, so it refuses with a
   * finding that says so instead of passing an object the policy never saw.
   */
  @ParameterizedTest(name = "{0} {1} under {2} {3}")
  @CsvSource(
      delimiter = '|',
      value = {
        // The manifest in the version the rule names: judged as written (control).
        "autoscaling/v2 | HorizontalPodAutoscaler | " + HPA_V2 + " | '' | at most 10 replicas",
        // Another served version of the same group.
        "autoscaling/v1 | HorizontalPodAutoscaler | " + HPA_V2 + " | '' | CONVERT autoscaling/v2",
        "autoscaling/v1 | HorizontalPodAutoscaler | "
            + HPA_V2
            + " | Equivalent | CONVERT"
            + " autoscaling/v2",
        // matchPolicy Exact: the other version is not matched, in the cluster either (control).
        "autoscaling/v1 | HorizontalPodAutoscaler | " + HPA_V2 + " | Exact | ''",
        // A group that serves the same resource (Kubernetes' cohabiting resources).
        "extensions/v1beta1 | Deployment | {apiGroups: [apps], apiVersions: [v1], operations:"
            + " [CREATE], resources: [deployments]} | '' | CONVERT apps/v1",
        "extensions/v1beta1 | NetworkPolicy | {apiGroups: [networking.k8s.io], apiVersions: [v1],"
            + " operations: ['*'], resources: [networkpolicies]} | '' | CONVERT"
            + " networking.k8s.io/v1",
        "events.k8s.io/v1 | Event | {apiGroups: [''], apiVersions: [v1], operations: [CREATE],"
            + " resources: [events]} | '' | CONVERT v1",
        // A custom resource in another version of its group (Kyverno's exceptions).
        "kyverno.io/v2beta1 | PolicyException | {apiGroups: [kyverno.io], apiVersions: [v2],"
            + " operations: [CREATE], resources: [policyexceptions]} | '' | CONVERT kyverno.io/v2",
        // Another resource, or a group that does not serve it: not matched (controls).
        "autoscaling/v1 | Scale | " + HPA_V2 + " | '' | ''",
        "example.com/v1 | HorizontalPodAutoscaler | " + HPA_V2 + " | '' | ''",
        // The core group has only v1: a rule on every group's v2 does not reach a ConfigMap.
        "v1 | ConfigMap | {apiGroups: ['*'], apiVersions: [v2], operations: [CREATE], resources:"
            + " ['*']} | '' | ''",
        "autoscaling/v1 | HorizontalPodAutoscaler | {apiGroups: ['*'], apiVersions: [v2],"
            + " operations: [CREATE], resources: ['*']} | '' | CONVERT autoscaling/v2",
      })
  void evaluate_equivalentVersionOrGroup_isRefusedUnlessMatchPolicyExact(
      String apiVersion, String kind, String rule, String matchPolicy, String expected) {
    List<String> messages =
        messages(maxReplicasPolicy(rule, matchPolicy), hundredReplicas(apiVersion, kind));

    if (expected.startsWith("CONVERT ")) {
      String as = expected.substring("CONVERT ".length());
      assertThat(messages)
          .singleElement(STRING)
          .startsWith(
              "applies to this "
                  + apiVersion
                  + " "
                  + kind
                  + " as "
                  + as
                  + " (matchPolicy: Equivalent): the API server would convert the object to "
                  + as
                  + " and evaluate the policy on the result, which countersign cannot do"
                  + " offline");
    } else {
      assertThat(messages)
          .containsExactlyElementsOf(expected.isEmpty() ? List.of() : List.of(expected));
    }
  }

  @Test
  void evaluate_equivalentMatch_isAnErrorOnTheWholePolicyEvenUnderFailurePolicyIgnore() {
    String policy =
        maxReplicasPolicy(HPA_V2, "").replace("spec:\n", "spec:\n  failurePolicy: Ignore\n");
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy), Optional.empty());
    ManifestDocument hpa =
        YamlTree.parseAll(
                Path.of("h.yaml"), hundredReplicas("autoscaling/v1", "HorizontalPodAutoscaler"))
            .get(0);

    assertThat(evaluator.evaluate(Path.of("h.yaml"), hpa))
        .singleElement()
        .satisfies(
            f -> {
              assertThat(f.severity()).isEqualTo(PolicyFinding.Severity.ERROR);
              assertThat(f.ruleId()).isEqualTo("max-replicas");
              assertThat(f.object()).isEqualTo("HorizontalPodAutoscaler/shop/big");
              assertThat(f.message())
                  .endsWith(
                      "perhaps you should write it as autoscaling/v2, or name autoscaling/v1 in"
                          + " the policy's resourceRules");
            });
  }

  /**
   * excludeResourceRules count only exact matches offline: whether the cluster serves the version
   * an exclusion names (and so excludes its equivalents) is unknown, and guessing yes would let an
   * object through that the cluster judges.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "autoscaling/v1, ''",
    "autoscaling/v2, at most 10 replicas",
  })
  void evaluate_exclusionOfAnEquivalentVersion_excludesOnlyTheVersionItNames(
      String apiVersion, String expected) {
    String policy =
        maxReplicasPolicy(
                "{apiGroups: [autoscaling], apiVersions: ['*'], operations: [CREATE], resources:"
                    + " [horizontalpodautoscalers]}",
                "")
            .replace(
                "  validations:",
                "    excludeResourceRules:\n    - {apiGroups: [autoscaling], apiVersions: [v1],"
                    + " operations: ['*'], resources: [horizontalpodautoscalers]}\n"
                    + "  validations:");

    assertThat(messages(policy, hundredReplicas(apiVersion, "HorizontalPodAutoscaler")))
        .containsExactlyElementsOf(expected.isEmpty() ? List.of() : List.of(expected));
  }

  @Test
  void load_unknownMatchPolicy_isRefusedWithItsLine() {
    String policy = maxReplicasPolicy(HPA_V2, "Fuzzy");

    assertThatThrownBy(() -> new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("p.yaml:6")
        .hasMessageContaining("matchPolicy \"Fuzzy\" must be Exact or Equivalent");
  }

  /**
   * namespaceObject is the object's Namespace in the cluster, which countersign does not have: an
   * outcome that depends on it is unknown offline. It is refused as an error whatever the
   * failurePolicy (the cluster would not fail, it would decide), while an outcome that holds for
   * every namespace is decided as usual.
   */
  @ParameterizedTest(name = "{0} replicas {1} failurePolicy {2}")
  @CsvSource(
      delimiter = ';',
      value = {
        "namespaceObject.metadata.labels.env != 'prod' ; 1 ; Ignore ; UNKNOWN",
        "namespaceObject.metadata.labels.env != 'prod' ; 1 ; Fail ; UNKNOWN",
        "namespaceObject == null || namespaceObject.metadata.labels.env != 'prod' ; 1 ; Fail ;"
            + " UNKNOWN",
        "variables.prod == false ; 1 ; Ignore ; UNKNOWN",
        // Decided whatever the namespace's labels (controls).
        "namespaceObject.metadata.labels.env != 'prod' ; 3 ; Ignore ; ''",
        "namespaceObject == null || namespaceObject.metadata.labels.env != 'prod' ; 3 ; Fail ; ''",
        "variables.prod == false ; 3 ; Fail ; ''",
      })
  void evaluate_outcomeThatDependsOnTheNamespace_isRefusedWhateverTheFailurePolicy(
      String namespaceCondition, int replicas, String failurePolicy, String expected) {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: prod-replicas}
        spec:
          failurePolicy: %s
          matchConstraints:
            resourceRules:
            - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
          variables:
          - name: prod
            expression: "namespaceObject.metadata.labels.env == 'prod'"
          validations:
          - expression: "%s || object.spec.replicas >= 2"
            message: "production needs 2 replicas"
        """
            .formatted(failurePolicy, namespaceCondition);
    String deployment =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n"
            + "spec:\n  replicas: "
            + replicas
            + "\n";

    List<String> findings = severitiesAndMessages(policy, deployment);

    if (expected.equals("UNKNOWN")) {
      assertThat(findings)
          .singleElement(STRING)
          .startsWith(
              "ERROR expression '"
                  + namespaceCondition
                  + " || object.spec.replicas >= 2' depends on namespaceObject, the object's"
                  + " Namespace in the cluster, which countersign does not have offline");
    } else {
      assertThat(findings).isEmpty();
    }
  }

  /**
   * A manifest without metadata.namespace is created in the namespace it is applied to, which the
   * API server writes into the object and the request before admission: unknown offline.
   */
  @ParameterizedTest(name = "metadata [{0}]")
  @CsvSource(
      delimiter = ';',
      value = {
        "'' ; Ignore ; ERROR expression 'request.namespace != 'kube-system' &&"
            + " object.metadata.namespace != 'kube-system'' depends on namespaceObject",
        "'  namespace: shop\n' ; Ignore ; ''",
        "'  namespace: kube-system\n' ; Ignore ; ERROR not in kube-system",
      })
  void evaluate_namespaceLeftToTheApply_isUnknownNotAnError(
      String namespace, String failurePolicy, String expected) {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: not-kube-system}
        spec:
          failurePolicy: %s
          matchConstraints:
            resourceRules:
            - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
          validations:
          - expression: "request.namespace != 'kube-system' && object.metadata.namespace != 'kube-system'"
            message: "not in kube-system"
        """
            .formatted(failurePolicy);
    String configMap =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" + namespace.replace("\\n", "\n");

    List<String> findings = severitiesAndMessages(policy, configMap);

    if (expected.isEmpty()) {
      assertThat(findings).isEmpty();
    } else {
      assertThat(findings).singleElement(STRING).startsWith(expected);
    }
  }

  /** For a cluster-scoped object the API server passes namespaceObject as null, as here. */
  @Test
  void evaluate_clusterScopedObject_seesNamespaceObjectNull() {
    String policy =
        """
        apiVersion: admissionregistration.k8s.io/v1
        kind: ValidatingAdmissionPolicy
        metadata: {name: cluster-roles}
        spec:
          matchConstraints:
            resourceRules:
            - {apiGroups: ['*'], apiVersions: ['*'], operations: [CREATE], resources: ['*']}
          validations:
          - expression: "namespaceObject == null || namespaceObject.metadata.labels.env != 'prod'"
            message: "not in prod"
        """;

    assertThat(
            severitiesAndMessages(
                policy,
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n"
                    + "  name: reader\n"))
        .isEmpty();
  }

  /** A CEL string literal of {@code length} a's: a long expression that is still valid CEL. */
  private static String longLiteral(int length) {
    return "'" + "a".repeat(length) + "'";
  }

  /** A policy on ConfigMaps whose one validation, without a message, is {@code expression}. */
  private static String policyWithoutMessage(String expression) {
    return configMapPolicy("  - expression: |-\n      " + expression + "\n");
  }

  @Test
  void control_aShortFailedExpression_isPrintedWhole() {
    assertThat(
            messages(
                policyWithoutMessage("object.metadata.name == " + longLiteral(10)), configMap("")))
        .containsExactly("failed expression: object.metadata.name == 'aaaaaaaaaa'");
  }

  @Test
  void aFailedExpressionOfNinetyThousandCharacters_isPrintedAsItsBeginningAndLength() {
    String expression = "object.metadata.name == " + longLiteral(90_000);

    assertThat(messages(policyWithoutMessage(expression), configMap("")))
        .singleElement(STRING)
        .isEqualTo(
            "failed expression: "
                + expression.substring(0, 200)
                + "... ("
                + expression.length()
                + " characters)");
  }

  @Test
  void anExpressionOfNinetyThousandCharactersThatErrs_isNamedByItsBeginningAndLength() {
    String expression = "object.data.missing == " + longLiteral(90_000);

    assertThat(messages(policyWithoutMessage(expression), configMap("")))
        .singleElement(STRING)
        .startsWith("expression '" + expression.substring(0, 200) + "...' (")
        .contains(expression.length() + " characters) resulted in error: ")
        .hasSizeLessThan(400);
  }

  @Test
  void anExpressionOfNinetyThousandCharactersThatDoesNotCompile_isNamedByItsBeginningAndLength() {
    String expression = longLiteral(90_000) + " ==";
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policyWithoutMessage(expression)),
            Optional.empty());

    assertThat(evaluator.policyProblems())
        .singleElement()
        .extracting(PolicyFinding::message, STRING)
        .startsWith("validation 0 '" + expression.substring(0, 200) + "...' (")
        .contains(expression.length() + " characters) does not compile: ")
        .hasSizeLessThan(600);
  }

  /** Each finding of {@code policy} on {@code manifest} as "SEVERITY message". */
  private static List<String> severitiesAndMessages(String policy, String manifest) {
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy), Optional.empty());
    assertThat(evaluator.policyProblems()).isEmpty();
    ManifestDocument document = YamlTree.parseAll(Path.of("m.yaml"), manifest).get(0);
    return evaluator.evaluate(Path.of("m.yaml"), document).stream()
        .map(f -> f.severity() + " " + f.message())
        .toList();
  }

  /** A policy on ConfigMaps with the given {@code spec.validations} entries. */
  private static String configMapPolicy(String... validations) {
    return """
    apiVersion: admissionregistration.k8s.io/v1
    kind: ValidatingAdmissionPolicy
    metadata: {name: regex}
    spec:
      matchConstraints:
        resourceRules:
        - {apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE"], resources: ["configmaps"]}
      validations:
    """
        + String.join("", validations);
  }

  /** One {@code validations} entry; the expression as a block scalar, so YAML escapes nothing. */
  private static String validation(String message, String expression) {
    return "  - message: \"" + message + "\"\n    expression: |-\n      " + expression + "\n";
  }

  /** A ConfigMap {@code c} whose metadata ends with {@code metadata}. */
  private static String configMap(String metadata) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" + metadata;
  }

  /** The messages of the findings of {@code policy} on {@code manifest}, both YAML text. */
  private static List<String> messages(String policy, String manifest) {
    AdmissionPolicyEvaluator evaluator =
        new AdmissionPolicyEvaluator(
            new AdmissionPolicyLoader().parse(Path.of("p.yaml"), policy), Optional.empty());
    assertThat(evaluator.policyProblems()).isEmpty();
    ManifestDocument document = YamlTree.parseAll(Path.of("m.yaml"), manifest).get(0);
    return evaluator.evaluate(Path.of("m.yaml"), document).stream()
        .map(PolicyFinding::message)
        .toList();
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
