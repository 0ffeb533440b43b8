package dev.countersign.verification;

import dev.countersign.manifest.AnnotationDomain;
import java.security.PublicKey;
import java.util.List;

/**
 * Who may sign and what the verifier tolerates. Built from CLI flags ({@code verify}) or from the
 * repository's {@code .countersign/policy.yaml}.
 *
 * @param identities allowed keyless signers; a keyless set passes if any rule matches
 * @param keys allowed public keys for keyed signatures
 * @param minSigners how many distinct signers must verify ({@link DistinctSigners}): at least 1,
 *     and at most the number of identities and keys when there are any, unless any identity is
 *     accepted
 * @param extraIgnoreFields ignore-field patterns added to the Kyverno/k8s-manifest-sigstore
 *     defaults, anchored at the object's root (see {@code IgnoreFields})
 * @param domain the annotation domain
 * @param insecureIgnoreIdentity accept any keyless signer whose chain and log entry verify; only
 *     when explicitly asked for
 * @param keyedLogEntries a keyed signature counts only with a log entry of its own (a {@code
 *     bundle}) that verifies against the trusted root, as {@code --tlog-upload} makes them;
 *     otherwise a keyed set's bundle is checked when it has one and a trusted root is given
 */
public record TrustPolicy(
    List<IdentityRule> identities,
    List<PublicKey> keys,
    int minSigners,
    List<String> extraIgnoreFields,
    AnnotationDomain domain,
    boolean insecureIgnoreIdentity,
    boolean keyedLogEntries) {

  /** A policy under which a keyed signature without a log entry verifies by its key alone. */
  public TrustPolicy(
      List<IdentityRule> identities,
      List<PublicKey> keys,
      int minSigners,
      List<String> extraIgnoreFields,
      AnnotationDomain domain,
      boolean insecureIgnoreIdentity) {
    this(identities, keys, minSigners, extraIgnoreFields, domain, insecureIgnoreIdentity, false);
  }

  public TrustPolicy {
    identities = List.copyOf(identities);
    keys = List.copyOf(keys);
    extraIgnoreFields = List.copyOf(extraIgnoreFields);
    if (minSigners < 1) {
      throw new IllegalArgumentException("minSigners must be at least 1");
    }
    int entries = identities.size() + keys.size();
    if (!canBeMet(minSigners, entries, insecureIgnoreIdentity)) {
      throw new IllegalArgumentException(
          "minSigners "
              + minSigners
              + " cannot be met: each identity and key counts once, and there are "
              + entries);
    }
  }

  /**
   * Whether {@code minSigners} distinct signers can ever verify when the policy has {@code entries}
   * identities and keys: each entry counts once ("Distinct signers" in docs/trust-policy.md),
   * except that with {@code insecureIgnoreIdentity} every certificate's identity counts on its own.
   */
  public static boolean canBeMet(int minSigners, int entries, boolean insecureIgnoreIdentity) {
    return entries == 0 || minSigners <= entries || insecureIgnoreIdentity;
  }

  /** True when the policy names no signer at all and does not explicitly accept anyone. */
  public boolean isUnconstrained() {
    return identities.isEmpty() && keys.isEmpty() && !insecureIgnoreIdentity;
  }
}
