package dev.countersign.verification;

/**
 * How a signed document's content must relate to its signed message.
 *
 * <p>{@link #EXACT} is for files in the repository: what countersign signed is what the file holds,
 * document for document, with nothing ignored. {@link #CLUSTER_OBJECT} is for objects read back
 * from a cluster, which the API server and controllers have defaulted and annotated: the Kyverno /
 * k8s-manifest-sigstore default ignore fields and the policy's own apply (anchored, see {@link
 * IgnoreFields}), a namespace the message leaves out may be anything, and image references may
 * differ by {@code docker.io/} or {@code :latest}.
 */
public enum ContentMatch {
  /** The file equals its message: same documents, same count, same order, every field. */
  EXACT,
  /** An object read back from a cluster; only with {@code verify --cluster-object}. */
  CLUSTER_OBJECT
}
