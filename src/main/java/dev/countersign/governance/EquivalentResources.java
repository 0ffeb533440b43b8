package dev.countersign.governance;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Which group/version pairs the API server serves as the same resource, for {@code matchPolicy:
 * Equivalent}. Offline there is no discovery, so this knows what is fixed: a resource is the same
 * in every version of its group (a CustomResourceDefinition has one plural per group, and built-in
 * resources keep their name across versions), Kubernetes' cohabiting resources are the same across
 * the groups listed below, the core group serves only {@code v1} and {@code extensions} only {@code
 * v1beta1}. Any other version of a group is assumed to be served: the cluster's real list is
 * unknown, and for a gate assuming too much is a refusal, assuming too little a pass.
 */
public final class EquivalentResources {

  /**
   * Kubernetes' cohabiting resources (the storage factory of kube-apiserver): one stored object,
   * served under each of these groups.
   */
  private static final Map<String, Set<String>> COHABITING_GROUPS =
      Map.of(
          "deployments", Set.of("apps", "extensions"),
          "daemonsets", Set.of("apps", "extensions"),
          "replicasets", Set.of("apps", "extensions"),
          "networkpolicies", Set.of("networking.k8s.io", "extensions"),
          "ingresses", Set.of("networking.k8s.io", "extensions"),
          "podsecuritypolicies", Set.of("policy", "extensions"),
          "events", Set.of("", "events.k8s.io"),
          "replicationcontrollers", Set.of("", "extensions"));

  /** Groups whose versions are known and final. */
  private static final Map<String, String> ONLY_VERSION = Map.of("", "v1", "extensions", "v1beta1");

  private EquivalentResources() {}

  /**
   * The groups that serve {@code resource} of {@code group} as the same resource: {@code group}
   * first, then its cohabiting groups.
   */
  public static List<String> groupsServing(String group, String resource) {
    Set<String> cohabiting = COHABITING_GROUPS.getOrDefault(resource, Set.of());
    if (!cohabiting.contains(group)) {
      return List.of(group);
    }
    return Stream.concat(
            Stream.of(group), cohabiting.stream().filter(other -> !other.equals(group)).sorted())
        .toList();
  }

  /**
   * The version of {@code group} that a rule's {@code version} entry reaches when the cluster may
   * serve it: the group's only version for {@code "*"} where that is known, else {@code version}
   * itself; empty when {@code group} is known not to serve {@code version}.
   */
  public static Optional<String> servedVersion(String group, String version) {
    String only = ONLY_VERSION.get(group);
    if (only == null) {
      return Optional.of(version);
    }
    return version.equals("*") || version.equals(only) ? Optional.of(only) : Optional.empty();
  }
}
