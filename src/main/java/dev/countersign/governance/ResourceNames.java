package dev.countersign.governance;

import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Maps a {@code kind} to its resource name (lower-case plural), which is what {@code
 * resourceRules.resources} lists. Offline there is no API discovery, so this applies the English
 * rules Kubernetes' own {@code UnsafeGuessKindToResource} uses plus a table of kinds whose plural
 * those rules get wrong.
 */
public final class ResourceNames {

  /**
   * Kinds whose name is plural already, so the suffix rules below would add another plural ending.
   */
  private static final Set<String> ALREADY_PLURAL = Set.of("endpoints", "resourceclaimparameters");

  /** Endings that take "es" in the plural. */
  private static final List<String> SIBILANT_ENDINGS = List.of("s", "x", "z", "ch", "sh");

  private ResourceNames() {}

  /** {@code Deployment -> deployments}, {@code NetworkPolicy -> networkpolicies}. */
  public static String pluralOf(String kind) {
    String lower = kind.toLowerCase(Locale.ROOT);
    if (lower.isEmpty() || ALREADY_PLURAL.contains(lower)) {
      return lower;
    }
    if (SIBILANT_ENDINGS.stream().anyMatch(lower::endsWith)) {
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
