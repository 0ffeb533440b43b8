package dev.countersign.verification;

import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What {@link TrustPolicy#minSigners()} counts, the same for manifests and OCI artifacts
 * (docs/trust-policy.md, "Distinct signers"). A policy entry (one {@code keys[]} key, one {@code
 * signers[]} identity rule) stands for one party, so each counts at most once however many
 * signatures satisfy it: two workflows matching one {@code subjectRegExp} are one entry, not two
 * parties. A signer (a key, or a certificate SAN whatever certificate and issuer carry it) counts
 * at most once too: the same key listed twice, or two Fulcio certificates of one workflow, are one
 * signer. The count is the largest number of entries that can each be given a different signer that
 * satisfies it.
 */
public final class DistinctSigners {

  /**
   * One signature that verified.
   *
   * @param signer who: a key's {@code sha256:} fingerprint or a certificate's SAN
   * @param entries the policy entries it satisfies ({@code keys[K]}, {@code signers[I]}, or, when
   *     any identity is accepted, the identity itself)
   */
  public record Signature(String signer, Set<String> entries) {
    public Signature {
      entries = Set.copyOf(entries);
    }
  }

  private DistinctSigners() {}

  /**
   * The signers that count, in the order they first verified: a largest set of signers that can
   * each be paired with a different policy entry it satisfies.
   */
  public static List<String> counted(List<Signature> verified) {
    Map<String, Set<String>> entriesBySigner = new LinkedHashMap<>();
    for (Signature signature : verified) {
      entriesBySigner
          .computeIfAbsent(signature.signer(), s -> new HashSet<>())
          .addAll(signature.entries());
    }
    Map<String, String> signerOfEntry = new HashMap<>();
    for (String signer : entriesBySigner.keySet()) {
      pair(signer, entriesBySigner, signerOfEntry, new HashSet<>());
    }
    Set<String> paired = new HashSet<>(signerOfEntry.values());
    return entriesBySigner.keySet().stream().filter(paired::contains).toList();
  }

  /**
   * Why too few signers counted: {@code counted} of {@code required}, the verified signers that did
   * not count (their entries were taken), then {@code failures} (the sets that verified nothing).
   */
  public static String shortfall(
      List<String> counted, Collection<String> verified, int required, String failures) {
    List<String> uncounted = verified.stream().filter(s -> !counted.contains(s)).toList();
    StringBuilder reason =
        new StringBuilder().append(counted.size()).append(" distinct signer(s) verified");
    if (!counted.isEmpty()) {
      reason.append(" (").append(String.join(", ", counted)).append(")");
    }
    reason.append(", ").append(required).append(" required");
    if (!uncounted.isEmpty()) {
      reason
          .append("; ")
          .append(String.join(", ", uncounted))
          .append(
              " verified too, but only for a policy entry already counted (each key and each"
                  + " signers[] entry counts once)");
    }
    if (!failures.isEmpty()) {
      reason.append("; ").append(failures);
    }
    return reason.toString();
  }

  /** Kuhn's augmenting path: gives {@code signer} an entry, moving earlier pairs if need be. */
  private static boolean pair(
      String signer,
      Map<String, Set<String>> entriesBySigner,
      Map<String, String> signerOfEntry,
      Set<String> visited) {
    for (String entry : entriesBySigner.get(signer)) {
      if (visited.add(entry)
          && (!signerOfEntry.containsKey(entry)
              || pair(signerOfEntry.get(entry), entriesBySigner, signerOfEntry, visited))) {
        signerOfEntry.put(entry, signer);
        return true;
      }
    }
    return false;
  }
}
