package dev.countersign.admission;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * One Kyverno rule with {@code validate.manifests}, as countersign reads it from a policy file in
 * the repository. Only what decides admission of signed manifests is kept.
 *
 * @param file the policy file, repository-relative
 * @param policy {@code ClusterPolicy/NAME} or {@code Policy/NAMESPACE/NAME}
 * @param rule the rule's name
 * @param line the line of the rule in {@code file}
 * @param match the resource filters, any of which admits an object into the rule
 * @param policyNamespace the namespace of a namespaced {@code Policy}, which applies only there
 * @param keyless keyless attestor entries
 * @param keyed whether some attestor entry uses keys (not checked against workflow identities)
 * @param dryRun whether {@code dryRun.enable} is true
 * @param dryRunNamespace {@code dryRun.namespace}, when set
 * @param dryRunLine the line of {@code dryRun} (else of {@code manifests})
 */
public record KyvernoManifestRule(
    Path file,
    String policy,
    String rule,
    int line,
    List<ResourceFilter> match,
    Optional<String> policyNamespace,
    List<KeylessEntry> keyless,
    boolean keyed,
    boolean dryRun,
    Optional<String> dryRunNamespace,
    int dryRunLine) {

  public KyvernoManifestRule {
    match = List.copyOf(match);
    keyless = List.copyOf(keyless);
  }

  /**
   * A keyless entry; {@code subject} is empty when the entry sets none (then Kyverno accepts any
   * signer).
   */
  public record KeylessEntry(String subject, boolean usesRegExp, int line) {}

  /**
   * One {@code resources} filter: kinds as Kyverno writes them ({@code Kind}, {@code v1/Kind},
   * {@code group/v1/Kind}, {@code *}) and namespace patterns ({@code *} and {@code ?}); an empty
   * namespace list matches every namespace.
   */
  public record ResourceFilter(List<String> kinds, List<String> namespaces) {
    public ResourceFilter {
      kinds = List.copyOf(kinds);
      namespaces = List.copyOf(namespaces);
    }

    public boolean matches(
        String group, String version, String kind, String namespace, String name) {
      boolean kindMatches =
          kinds.stream().anyMatch(pattern -> kindMatches(pattern, group, version, kind));
      if (!kindMatches) {
        return false;
      }
      if (namespaces.isEmpty()) {
        return true;
      }
      // Kyverno compares a Namespace object's own name with the namespace filter.
      String subject = kind.equals("Namespace") ? name : namespace;
      return namespaces.stream().anyMatch(pattern -> wildcard(pattern, subject));
    }

    private static boolean kindMatches(String pattern, String group, String version, String kind) {
      if (pattern.equals("*")) {
        return true;
      }
      String[] parts = pattern.split("/");
      String patternKind = parts[parts.length - 1];
      if (!wildcard(patternKind, kind)) {
        return false;
      }
      if (parts.length == 2) {
        return wildcard(parts[0], version);
      }
      if (parts.length >= 3) {
        return wildcard(parts[0], group) && wildcard(parts[1], version);
      }
      return true;
    }
  }

  /**
   * Whether an object of this group/version/kind in {@code namespace} (empty: cluster-scoped)
   * enters the rule.
   */
  public boolean matches(String group, String version, String kind, String namespace, String name) {
    if (policyNamespace.isPresent() && !policyNamespace.get().equals(namespace)) {
      return false;
    }
    return match.stream().anyMatch(filter -> filter.matches(group, version, kind, namespace, name));
  }

  /** Whether some keyless entry's subject is exactly {@code san}, as Kyverno compares it. */
  public boolean acceptsSubject(String san) {
    return keyless.stream().anyMatch(entry -> entry.subject().equals(san));
  }

  /** Kyverno's wildcard matching: {@code *} any run, {@code ?} one character. */
  static boolean wildcard(String pattern, String value) {
    StringBuilder regex = new StringBuilder();
    for (char c : pattern.toCharArray()) {
      switch (c) {
        case '*' -> regex.append(".*");
        case '?' -> regex.append('.');
        default -> regex.append(Pattern.quote(String.valueOf(c)));
      }
    }
    return value.matches(regex.toString());
  }
}
