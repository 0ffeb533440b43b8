package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.UsageProblem;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Anchored ignore-field semantics (as Kyverno documents fields) and the defaults' kind bindings.
 */
class IgnoreFieldsTest {

  private static ManifestDocument object(String apiVersion, String kind) {
    return new ManifestDocument(
        Map.of("apiVersion", apiVersion, "kind", kind, "metadata", Map.of("name", "x")));
  }

  @Test
  void pattern_isAnchoredAtTheRoot_coversItsSubtree_starIsOneSegment_dotIsLiteral() {
    assertThat(IgnoreFields.matches("status", "status")).isTrue();
    assertThat(IgnoreFields.matches("status", "status.phase")).isTrue();
    // Never matched anywhere in a path: a ConfigMap key containing "status" stays protected.
    assertThat(IgnoreFields.matches("status", "data.status")).isFalse();
    assertThat(IgnoreFields.matches("status", "data.statusPage")).isFalse();
    assertThat(IgnoreFields.matches("status", "statusPage")).isFalse();
    // Pod-level fields do not reach into a Deployment's pod template.
    assertThat(
            IgnoreFields.matches(
                "spec.securityContext", "spec.template.spec.securityContext.runAsUser"))
        .isFalse();
    assertThat(
            IgnoreFields.matches(
                "spec.containers.*.resources",
                "spec.template.spec.containers.0.resources.limits.cpu"))
        .isFalse();
    assertThat(
            IgnoreFields.matches(
                "spec.containers.*.resources", "spec.containers.0.resources.limits.cpu"))
        .isTrue();
    assertThat(IgnoreFields.matches("spec.containers.*.resources", "spec.containers.0.1.resources"))
        .isFalse();
    assertThat(IgnoreFields.matches("metadata.uid", "metadataXuid")).isFalse();
    assertThat(IgnoreFields.matches("spec.replicas", "spec.template")).isFalse();
    assertThat(IgnoreFields.matches("spec.replicas", "spec.replicasX")).isFalse();
    assertThat(IgnoreFields.matches("spec.clusterIPs.0", "spec.clusterIPs.1")).isFalse();
    // A trailing star extends the last segment, as the annotation masks need.
    assertThat(IgnoreFields.matches("metadata.finalizers*", "metadata.finalizers.0")).isTrue();
    assertThat(
            IgnoreFields.matches(
                "metadata.annotations.cosign.sigstore.dev/message*",
                "metadata.annotations.cosign.sigstore.dev/message"))
        .isTrue();
    assertThat(IgnoreFields.matches("metadata.managedFields.*", "metadata.managedFields.0.manager"))
        .isTrue();
    assertThat(IgnoreFields.matches("a[", "a[")).isTrue();
    assertThat(IgnoreFields.matches("*", "anything")).isFalse();
  }

  @Test
  void defaults_applyByKind() {
    IgnoreFields defaults = IgnoreFields.withDefaults(List.of());
    ManifestDocument service = object("v1", "Service");
    ManifestDocument configMap = object("v1", "ConfigMap");

    assertThat(defaults.ignores(service, "spec.clusterIP", false)).isTrue();
    assertThat(defaults.ignores(configMap, "spec.clusterIP", false)).isFalse();
    assertThat(
            defaults.ignores(
                configMap,
                "metadata.annotations.kubectl.kubernetes.io/last-applied-configuration",
                false))
        .isTrue();
    assertThat(
            defaults.ignores(
                configMap, "metadata.annotations.argocd.argoproj.io/tracking-id", false))
        .isFalse();
    assertThat(defaults.ignores(object("route.openshift.io/v1", "Route"), "spec.host", false))
        .isTrue();
    assertThat(defaults.ignores(object("example.com/v1", "Route"), "spec.host", false)).isFalse();
    assertThat(defaults.ignores(object("kyverno.io/v1", "ClusterPolicy"), "spec.background", false))
        .isTrue();
  }

  @Test
  void defaultsOutsideMetadataAndStatus_coverOnlyFieldsTheMessageLeavesOut() {
    IgnoreFields defaults = IgnoreFields.withDefaults(List.of());
    ManifestDocument service = object("v1", "Service");
    ManifestDocument policy = object("kyverno.io/v1", "ClusterPolicy");

    // Filled in by the server: ignored; stated in the message: it must hold.
    assertThat(defaults.ignores(service, "spec.type", false)).isTrue();
    assertThat(defaults.ignores(service, "spec.type", true)).isFalse();
    assertThat(defaults.ignores(policy, "spec.validationFailureAction", true)).isFalse();
    assertThat(defaults.ignores(object("v1", "Pod"), "spec.tolerations.0.key", true)).isFalse();
    // Bookkeeping stays ignored whatever the message says.
    assertThat(defaults.ignores(service, "metadata.resourceVersion", true)).isTrue();
    assertThat(defaults.ignores(service, "metadata.labels.app.kubernetes.io/instance", true))
        .isTrue();
    assertThat(defaults.ignores(service, "status.loadBalancer.ingress.0.ip", true)).isTrue();
    // So do the fields the user names.
    assertThat(IgnoreFields.withDefaults(List.of("spec.type")).ignores(service, "spec.type", true))
        .isTrue();
  }

  @Test
  void extraFields_applyToEveryKind_andInvalidOnesAreUsageProblems() {
    IgnoreFields extra =
        IgnoreFields.withDefaults(List.of("metadata.annotations.argocd.argoproj.io/tracking-id"));
    assertThat(
            extra.ignores(
                object("v1", "ConfigMap"),
                "metadata.annotations.argocd.argoproj.io/tracking-id",
                true))
        .isTrue();

    assertThatThrownBy(() -> IgnoreFields.withDefaults(List.of("spec..x")))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("spec..x");
  }

  @Test
  void canonicalImage_addsDockerHubDefaults_only() {
    assertThat(ContentComparison.canonicalImage("nginx"))
        .isEqualTo("docker.io/library/nginx:latest");
    assertThat(ContentComparison.canonicalImage("docker.io/nginx"))
        .isEqualTo("docker.io/library/nginx:latest");
    assertThat(ContentComparison.canonicalImage("acme/app:1")).isEqualTo("docker.io/acme/app:1");
    assertThat(ContentComparison.canonicalImage("ghcr.io/acme/app"))
        .isEqualTo("ghcr.io/acme/app:latest");
    assertThat(ContentComparison.canonicalImage("localhost:5000/app@sha256:ab"))
        .isEqualTo("localhost:5000/app@sha256:ab");
  }
}
