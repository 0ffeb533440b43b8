package dev.countersign.governance;

import java.util.Locale;
import java.util.Map;

/**
 * Maps a {@code kind} to its resource name (lower-case plural), which is what {@code
 * resourceRules.resources} lists. Offline there is no API discovery, so this applies the English
 * rules Kubernetes' own {@code UnsafeGuessKindToResource} uses plus a table of kinds whose plural
 * those rules get wrong.
 */
public final class ResourceNames {

  /** Kinds whose resource name the suffix rules below would not produce. */
  private static final Map<String, String> IRREGULAR =
      Map.ofEntries(
          Map.entry("endpoints", "endpoints"),
          Map.entry("podsecuritypolicy", "podsecuritypolicies"),
          Map.entry("networkpolicy", "networkpolicies"),
          Map.entry("ingress", "ingresses"),
          Map.entry("ingressclass", "ingressclasses"),
          Map.entry("storageclass", "storageclasses"),
          Map.entry("priorityclass", "priorityclasses"),
          Map.entry("runtimeclass", "runtimeclasses"),
          Map.entry("policy", "policies"),
          Map.entry("clusterpolicy", "clusterpolicies"),
          Map.entry("gatewayclass", "gatewayclasses"),
          Map.entry("componentstatus", "componentstatuses"),
          Map.entry("resourceclaimparameters", "resourceclaimparameters"),
          Map.entry("poddisruptionbudget", "poddisruptionbudgets"));

  private ResourceNames() {}

  /** {@code Deployment -> deployments}, {@code NetworkPolicy -> networkpolicies}. */
  public static String pluralOf(String kind) {
    String lower = kind.toLowerCase(Locale.ROOT);
    String irregular = IRREGULAR.get(lower);
    if (irregular != null) {
      return irregular;
    }
    if (lower.isEmpty()) {
      return lower;
    }
    if (lower.endsWith("s")
        || lower.endsWith("x")
        || lower.endsWith("z")
        || lower.endsWith("ch")
        || lower.endsWith("sh")) {
      return lower + "es";
    }
    if (lower.endsWith("y") && lower.length() > 1 && !isVowel(lower.charAt(lower.length() - 2))) {
      return lower.substring(0, lower.length() - 1) + "ies";
    }
    return lower + "s";
  }

  private static boolean isVowel(char c) {
    return "aeiou".indexOf(c) >= 0;
  }
}
