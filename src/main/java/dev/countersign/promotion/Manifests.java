package dev.countersign.promotion;

import dev.countersign.git.GitWorkspace;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;

/** Reading the manifest files of a directory from a commit. */
final class Manifests {

  private Manifests() {}

  static boolean isManifest(String path) {
    String lower = path.toLowerCase(Locale.ROOT);
    return lower.endsWith(".yaml") || lower.endsWith(".yml");
  }

  /**
   * The {@code .yaml}/{@code .yml} files under {@code directory} in {@code commit}, by path.
   *
   * @throws InputProblem when one is a symbolic link or submodule (its target would be promoted
   *     or signed, not a manifest)
   */
  static SortedMap<String, byte[]> read(GitWorkspace workspace, String commit, String directory) {
    for (String special : workspace.nonRegularFiles(commit, directory)) {
      if (isManifest(special)) {
        throw new InputProblem(Path.of(special), 0, "is a symbolic link or submodule, not a manifest file",
            ", perhaps you should commit the manifest itself");
      }
    }
    SortedMap<String, byte[]> files = new TreeMap<>();
    workspace.readFiles(commit, directory).forEach((path, bytes) -> {
      if (isManifest(path)) {
        files.put(path, bytes);
      }
    });
    return files;
  }

  static boolean sameFiles(SortedMap<String, byte[]> a, SortedMap<String, byte[]> b) {
    if (!a.keySet().equals(b.keySet())) {
      return false;
    }
    return a.entrySet().stream().allMatch(e -> java.util.Arrays.equals(e.getValue(), b.get(e.getKey())));
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
