package dev.countersign.promotion;

import java.util.Arrays;
import java.util.SortedMap;

/** Comparing sets of manifest files (which files are manifests: {@code ManifestTree}). */
final class Manifests {

  private Manifests() {}

  static boolean sameFiles(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.entrySet().stream().allMatch(e -> Arrays.equals(e.getValue(), b.get(e.getKey())));
  }
}
