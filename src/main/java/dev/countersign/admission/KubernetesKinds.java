package dev.countersign.admission;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What countersign knows about Kubernetes kinds without a cluster: which are cluster-scoped (so a
 * Kyverno {@code namespaces} filter never matches them) and the resource name RBAC rules use.
 * Unknown kinds are treated as namespaced, and their resource name follows the API server's usual
 * pluralisation (what {@code kubectl api-resources} prints for almost every CRD).
 */
public final class KubernetesKinds {

  private static final Set<String> CLUSTER_SCOPED =
      Set.of(
          "Namespace",
          "Node",
          "PersistentVolume",
          "StorageClass",
          "ClusterRole",
          "ClusterRoleBinding",
          "CustomResourceDefinition",
          "PriorityClass",
          "ValidatingWebhookConfiguration",
          "MutatingWebhookConfiguration",
          "ValidatingAdmissionPolicy",
          "ValidatingAdmissionPolicyBinding",
          "MutatingAdmissionPolicy",
          "MutatingAdmissionPolicyBinding",
          "IngressClass",
          "RuntimeClass",
          "APIService",
          "CSIDriver",
          "CSINode",
          "VolumeAttachment",
          "ClusterPolicy",
          "ClusterCleanupPolicy",
          "ClusterIssuer",
          "ClusterPolicyReport",
          "FlowSchema",
          "PriorityLevelConfiguration",
          "CertificateSigningRequest");

  /** Resource names that do not follow the rules in {@link #resource}. */
  private static final Map<String, String> IRREGULAR =
      Map.of(
          "Endpoints", "endpoints",
          "PodSecurityPolicy", "podsecuritypolicies");

  private KubernetesKinds() {}

  /** Whether objects of {@code kind} live outside namespaces. */
  public static boolean isClusterScoped(String kind) {
    return CLUSTER_SCOPED.contains(kind);
  }

  /**
   * The lower-case plural resource name RBAC rules name ({@code NetworkPolicy} -> {@code
   * networkpolicies}).
   */
  public static String resource(String kind) {
    String irregular = IRREGULAR.get(kind);
    if (irregular != null) {
      return irregular;
    }
    String lower = kind.toLowerCase(Locale.ROOT);
    if (lower.endsWith("y")
        && lower.length() > 1
        && "aeiou".indexOf(lower.charAt(lower.length() - 2)) < 0) {
      return lower.substring(0, lower.length() - 1) + "ies";
    }
    if (lower.endsWith("s")
        || lower.endsWith("x")
        || lower.endsWith("ch")
        || lower.endsWith("sh")) {
      return lower + "es";
    }
    return lower + "s";
  }
}
