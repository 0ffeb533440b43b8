package dev.countersign.promotion;

import java.util.SortedMap;

/**
 * Comparing sets of manifest files and normalising directory names (which files are manifests:
 * {@code ManifestTree}).
 */
final class Manifests {

  private Manifests() {}

  static boolean sameFiles(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.entrySet().stream()
        .allMatch(e -> java.util.Arrays.equals(e.getValue(), b.get(e.getKey())));
  }

  /** {@code dir} without leading {@code ./} or trailing slashes, with {@code /} separators. */
  static String normalize(String dir) {
    String d = dir.replace('\\', '/');
    while (d.startsWith("./")) {
      d = d.substring(2);
    }
    while (d.endsWith("/")) {
      d = d.substring(0, d.length() - 1);
    }
    return d;
  }
}
