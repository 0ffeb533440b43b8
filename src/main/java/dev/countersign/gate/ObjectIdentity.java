package dev.countersign.gate;

import dev.countersign.admission.KubernetesKinds;
import dev.countersign.manifest.ManifestDocument;
import java.util.Optional;

/**
 * Which cluster object a manifest document stands for, as the API server and the GitOps tools tell
 * objects apart: API group, kind, namespace and name.
 *
 * <ul>
 *   <li>The group, not the version: the API server serves one object under every version of its
 *       group ({@code autoscaling/v1} and {@code autoscaling/v2}), and Argo CD keys its targets by
 *       group (gitops-engine's {@code kube.GetResourceKey}).
 *   <li>A document without {@code metadata.namespace} of a namespaced kind lands in the namespace
 *       the tool deploys into (Argo CD's destination namespace, Flux's target namespace, else
 *       {@code default}), which the repository does not say: it may be the object of that name in
 *       any namespace. A cluster-scoped kind has no namespace; both tools clear one it is given.
 * </ul>
 *
 * @param family group, kind and name: the objects that may be this one share it
 * @param namespace the namespace the document names; empty when it names none or the kind is
 *     cluster-scoped
 */
record ObjectIdentity(String family, Optional<String> namespace) {

  static ObjectIdentity of(ManifestDocument document) {
    String family = document.group() + "/" + document.kind() + "/" + document.name();
    return new ObjectIdentity(
        family,
        KubernetesKinds.isClusterScoped(document.kind()) ? Optional.empty() : document.namespace());
  }

  /**
   * Whether both may be one cluster object: the same family, and the same namespace unless either
   * names none.
   */
  boolean mayBe(ObjectIdentity other) {
    return family.equals(other.family)
        && (namespace.isEmpty() || other.namespace.isEmpty() || namespace.equals(other.namespace));
  }
}
