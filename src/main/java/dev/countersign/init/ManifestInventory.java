package dev.countersign.init;

import dev.countersign.admission.KubernetesKinds;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The kinds and namespaces of the manifests a repository already keeps in its unsigned and signed
 * directories: what the Kyverno policy must match. Unreadable files are skipped here; the merge
 * gate reports them.
 *
 * @param kinds every group/kind found
 * @param namespaces every {@code metadata.namespace} of a namespaced object
 * @param withoutNamespace whether some namespaced object names no namespace (it lands in the Argo
 *     CD destination namespace)
 */
public record ManifestInventory(
    SortedSet<Kind> kinds, SortedSet<String> namespaces, boolean withoutNamespace) {

  /** A kind and its API group (empty for the core group). */
  public record Kind(String group, String kind) implements Comparable<Kind> {
    private static final Comparator<Kind> ORDER =
        Comparator.comparing(Kind::kind).thenComparing(Kind::group);

    public boolean clusterScoped() {
      return KubernetesKinds.isClusterScoped(kind);
    }

    @Override
    public int compareTo(Kind other) {
      return ORDER.compare(this, other);
    }
  }

  public static ManifestInventory empty() {
    return new ManifestInventory(new TreeSet<>(), new TreeSet<>(), false);
  }

  /** Reads every manifest under {@code directories} (relative to {@code root}). */
  public static ManifestInventory scan(Path root, List<Path> directories, ManifestReader reader) {
    SortedSet<Kind> kinds = new TreeSet<>();
    SortedSet<String> namespaces = new TreeSet<>();
    boolean withoutNamespace = false;
    for (Path directory : directories) {
      for (Path file : ManifestTree.listUnder(root.resolve(directory))) {
        ManifestFile manifest;
        try {
          manifest = reader.read(file, root.relativize(file));
        } catch (InputProblem unreadable) {
          continue;
        }
        for (ManifestDocument document : manifest.documents()) {
          Kind kind = new Kind(document.group(), document.kind());
          kinds.add(kind);
          if (!kind.clusterScoped()) {
            if (document.namespace().isPresent()) {
              namespaces.add(document.namespace().get());
            } else {
              withoutNamespace = true;
            }
          }
        }
      }
    }
    return new ManifestInventory(kinds, namespaces, withoutNamespace);
  }

  public boolean isEmpty() {
    return kinds.isEmpty();
  }
}
