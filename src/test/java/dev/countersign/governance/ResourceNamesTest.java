package dev.countersign.governance;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ResourceNamesTest {

  @ParameterizedTest
  @CsvSource({
    "Deployment, deployments",
    "NetworkPolicy, networkpolicies",
    "Ingress, ingresses",
    "Policy, policies",
    "ClusterPolicy, clusterpolicies",
    "IngressClass, ingressclasses",
    "StorageClass, storageclasses",
    "Endpoints, endpoints",
    "ConfigMap, configmaps",
    "Gateway, gateways",
    "HorizontalPodAutoscaler, horizontalpodautoscalers",
    "ValidatingAdmissionPolicy, validatingadmissionpolicies",
    "Proxy, proxies",
    "Mesh, meshes",
    "Status, statuses",
    "PodSecurityPolicy, podsecuritypolicies",
    "PriorityClass, priorityclasses",
    "RuntimeClass, runtimeclasses",
    "GatewayClass, gatewayclasses",
    "ComponentStatus, componentstatuses",
    "ResourceClaimParameters, resourceclaimparameters",
    "PodDisruptionBudget, poddisruptionbudgets",
    "Box, boxes",
    "Buzz, buzzes",
    "Patch, patches",
    "Day, days",
    "'', ''",
  })
  void pluralOf_kind_givesResourceName(String kind, String resource) {
    assertThat(ResourceNames.pluralOf(kind)).isEqualTo(resource);
  }

  @Test
  void labelSelector_matchLabelsAndExpressions_allMustHold() {
    LabelSelector selector =
        new LabelSelector(
            Map.of("tier", "frontend"),
            List.of(
                new LabelSelector.Requirement("env", "In", List.of("prod", "staging")),
                new LabelSelector.Requirement("legacy", "DoesNotExist", List.of())));

    assertThat(selector.matches(Map.of("tier", "frontend", "env", "prod"))).isTrue();
    assertThat(selector.matches(Map.of("tier", "frontend", "env", "dev"))).isFalse();
    assertThat(selector.matches(Map.of("tier", "frontend", "env", "prod", "legacy", "yes")))
        .isFalse();
    assertThat(selector.matches(Map.of("env", "prod"))).isFalse();
    assertThat(LabelSelector.EVERYTHING.matches(Map.of())).isTrue();
  }
}
