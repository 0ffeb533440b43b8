package dev.countersign.gate;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.Memoized;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;

/**
 * After the merge, and the signing run it triggers, each pair's signed directory holds every object
 * ({@link ObjectIdentity}) at most once ({@value #RULE}). GitOps deploys a signed directory as one
 * set, and neither tool takes an object twice as a reviewer would read the diff:
 *
 * <ul>
 *   <li>Flux's kustomize-controller builds a directory without a kustomization file from a
 *       generated one listing every {@code .yaml}/{@code .yml} file, and kustomize refuses a
 *       resource whose id is already registered: the build fails, and nothing of the directory is
 *       applied any more, later fixes included;
 *   <li>Argo CD keeps only the last of a repeated resource in the order it read the files, with a
 *       {@code RepeatedResourceWarning}: a file added beside a reviewed object replaces it, though
 *       its diff shows an addition.
 * </ul>
 *
 * A duplicate the change brings is an error at the later of its two places, naming the other; one
 * the base branch already holds at the same two paths is a warning, so it does not block unrelated
 * changes. The same object in the signed directories of two pairs (staging and production) is not a
 * duplicate: each is deployed on its own, unless one directory lies inside the other, which then
 * holds both (Flux builds a directory with every manifest below it). Stateless apart from its
 * inputs.
 */
final class DuplicateObjects {

  static final String RULE = "countersign/duplicate-object";

  private DuplicateObjects() {}

  /**
   * What the signed directories hold after the merge, pair by pair: a tree's signed files, with
   * each of its unsigned files signed over its target ({@code signed/X} for {@code unsigned/X}), as
   * {@code run} writes them. Documents that do not read are left out; other rules report them.
   */
  static final class AfterMerge {

    /**
     * A document in a signed directory after the merge, the file of the tree it is read in, and the
     * unsigned file where a change to it is made.
     *
     * @param document only what names the object and its line ({@link
     *     ManifestDocument#withOnlyObjectNames}): a tree's every document is held at once
     * @param object the object {@code document} stands for, worked out once
     */
    private record Placed(
        Path target,
        Path source,
        Path changedIn,
        GateFinding.Check check,
        ManifestDocument document,
        ObjectIdentity object) {}

    private final List<PolicyFile.DirectoryPair> pairs;
    // By target, whichever pair put it there: a signed directory holds every target below it, those
    // of a pair whose signed directory lies inside it too (Flux builds a directory recursively).
    private final Map<Path, List<Placed>> signed = new TreeMap<>();
    private final Map<Path, List<Placed>> unsigned = new TreeMap<>();

    AfterMerge(List<PolicyFile.DirectoryPair> pairs) {
      this.pairs = List.copyOf(pairs);
    }

    /**
     * The signed directories after the merge of the tree {@code files} holds (a commit's): its
     * signed and unsigned manifests under every pair.
     */
    static AfterMerge of(
        RepositoryFiles files, List<PolicyFile.DirectoryPair> pairs, ManifestReader reader) {
      AfterMerge after = new AfterMerge(pairs);
      for (PolicyFile.DirectoryPair pair : pairs) {
        // A file under the directories of two pairs belongs to the first, as the gate assigns it.
        files
            .filesUnder(pair.signed())
            .forEach(
                (path, bytes) -> {
                  if (after.pairOfSigned(path).equals(Optional.of(pair))) {
                    after.signed(pair, path, parse(reader, path, bytes));
                  }
                });
        files
            .filesUnder(pair.unsigned())
            .forEach(
                (path, bytes) -> {
                  if (after.pairOfUnsigned(path).equals(Optional.of(pair))) {
                    after.unsigned(pair, path, parse(reader, path, bytes));
                  }
                });
      }
      return after;
    }

    private static List<ManifestDocument> parse(ManifestReader reader, Path path, byte[] bytes) {
      if (!ManifestTree.isManifestName(RepositoryPaths.slashed(path))) {
        return List.of();
      }
      try {
        return reader.parse(bytes, path);
      } catch (InputProblem unreadable) {
        return List.of();
      }
    }

    /** What this holds now, to be changed without changing this. */
    AfterMerge copy() {
      AfterMerge copy = new AfterMerge(pairs);
      copy.signed.putAll(signed);
      copy.unsigned.putAll(unsigned);
      return copy;
    }

    /** {@code file}, under {@code pair}'s signed directory, is deployed as it is. */
    AfterMerge signed(PolicyFile.DirectoryPair pair, Path file, List<ManifestDocument> documents) {
      Path source = pair.unsignedFileOf(file);
      add(signed, file, file, source, GateFinding.Check.SIGNATURE, documents);
      return this;
    }

    /**
     * {@code file}, under {@code pair}'s unsigned directory, is signed over its target, whatever
     * the signed directory holds there now.
     */
    AfterMerge unsigned(
        PolicyFile.DirectoryPair pair, Path file, List<ManifestDocument> documents) {
      Path target = pair.signedFileOf(file);
      add(unsigned, target, file, file, GateFinding.Check.MANIFEST, documents);
      return this;
    }

    /** The pair whose unsigned directory holds {@code file}, as the gate assigns it: the first. */
    Optional<PolicyFile.DirectoryPair> pairOfUnsigned(Path file) {
      return pairs.stream().filter(p -> file.startsWith(p.unsigned())).findFirst();
    }

    private Optional<PolicyFile.DirectoryPair> pairOfSigned(Path file) {
      return pairs.stream().filter(p -> file.startsWith(p.signed())).findFirst();
    }

    private static void add(
        Map<Path, List<Placed>> side,
        Path target,
        Path source,
        Path changedIn,
        GateFinding.Check check,
        List<ManifestDocument> documents) {
      List<Placed> placed = new ArrayList<>();
      for (ManifestDocument document : documents) {
        // An object without a kind or name is the object-name rule's (and the reader's) to report.
        if (!document.kind().isEmpty() && !document.name().isEmpty()) {
          ManifestDocument names = document.withOnlyObjectNames();
          placed.add(new Placed(target, source, changedIn, check, names, ObjectIdentity.of(names)));
        }
      }
      side.put(target, placed);
    }

    /**
     * What {@code directory} holds after the merge, below it at any depth, in target order and
     * document order: the unsigned files' content where they have a target, the signed files'
     * elsewhere.
     */
    private List<Placed> deployed(Path directory) {
      Map<Path, List<Placed>> targets = new TreeMap<>();
      signed.forEach((target, placed) -> putIfUnder(directory, targets, target, placed));
      unsigned.forEach((target, placed) -> putIfUnder(directory, targets, target, placed));
      return targets.values().stream().flatMap(List::stream).toList();
    }

    private static void putIfUnder(
        Path directory, Map<Path, List<Placed>> targets, Path target, List<Placed> placed) {
      if (target.startsWith(directory)) {
        targets.put(target, placed);
      }
    }

    /** Whether {@code directory} holds, at the target of {@code placed}, an object it may be. */
    private boolean holds(Path directory, Placed placed) {
      return deployed(directory).stream()
          .anyMatch(p -> p.target().equals(placed.target()) && p.object().mayBe(placed.object()));
    }

    /** The signed directories, each once, in the pairs' order. */
    private List<Path> directories() {
      return pairs.stream().map(PolicyFile.DirectoryPair::signed).distinct().toList();
    }

    /** Two places of one object in a signed directory: the earlier and the later. */
    private record Duplicate(Placed earlier, Placed later) {

      Duplicate swapped() {
        return new Duplicate(later, earlier);
      }

      /** The same two places whatever files put them there, for comparing with the base. */
      String key() {
        return earlier.object().family()
            + "\n"
            + RepositoryPaths.slashed(earlier.target())
            + "\n"
            + RepositoryPaths.slashed(later.target());
      }
    }

    /**
     * Every later place of an object in a directory, with the first earlier place that may be the
     * same object; with {@code all}, every pair of places.
     */
    private List<Duplicate> duplicates(Path directory, boolean all) {
      Map<String, List<Placed>> byFamily = new LinkedHashMap<>();
      for (Placed placed : deployed(directory)) {
        byFamily.computeIfAbsent(placed.object().family(), f -> new ArrayList<>()).add(placed);
      }
      List<Duplicate> duplicates = new ArrayList<>();
      for (List<Placed> family : byFamily.values()) {
        for (int later = 1; later < family.size(); later++) {
          for (int earlier = 0; earlier < later; earlier++) {
            if (family.get(earlier).object().mayBe(family.get(later).object())) {
              duplicates.add(new Duplicate(family.get(earlier), family.get(later)));
              if (!all) {
                break;
              }
            }
          }
        }
      }
      return duplicates;
    }
  }

  /**
   * Every object that {@code after} holds more than once in one signed directory: an error, unless
   * {@code before} (the base branch, merged the same way) holds it at the same two paths, then a
   * warning.
   *
   * @param lazyBefore asked for only when {@code after} holds a duplicate (reading the base costs a
   *     parse of every manifest it holds)
   */
  static List<GateFinding> check(AfterMerge after, Supplier<Optional<AfterMerge>> lazyBefore) {
    Supplier<Optional<AfterMerge>> before = Memoized.of(lazyBefore);
    List<GateFinding> findings = new ArrayList<>();
    // A place in a signed directory that lies inside another is reported once, in the first.
    Set<Object> reported = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Path directory : after.directories()) {
      List<AfterMerge.Duplicate> duplicates =
          after.duplicates(directory, false).stream().filter(d -> reported.add(d.later())).toList();
      if (duplicates.isEmpty()) {
        continue;
      }
      Set<String> known = new HashSet<>();
      before.get().ifPresent(b -> b.duplicates(directory, true).forEach(d -> known.add(d.key())));
      for (AfterMerge.Duplicate duplicate : duplicates) {
        boolean onTheBase = known.contains(duplicate.key());
        // Reported where the change put it: the place the base does not hold it at.
        if (!onTheBase
            && before.get().isPresent()
            && before.get().get().holds(directory, duplicate.later())
            && !before.get().get().holds(directory, duplicate.earlier())) {
          duplicate = duplicate.swapped();
        }
        findings.add(finding(directory, duplicate, onTheBase));
      }
    }
    return findings;
  }

  private static GateFinding finding(
      Path directory, AfterMerge.Duplicate duplicate, boolean onTheBase) {
    AfterMerge.Placed earlier = duplicate.earlier();
    AfterMerge.Placed later = duplicate.later();
    String what =
        "is also in "
            + RepositoryPaths.slashed(earlier.source())
            + " (line "
            + Math.max(1, earlier.document().line())
            + ")"
            + (onTheBase ? ", as on the base branch" : "")
            + ": after the merge "
            + RepositoryPaths.slashed(directory)
            + "/ would hold one object twice, so Flux's build of that directory fails and nothing"
            + " in it is applied any more, and Argo CD applies only the one it reads last";
    Optional<String> namespace = earlier.object().namespace().or(() -> later.object().namespace());
    String hint;
    if (!earlier.object().namespace().equals(later.object().namespace())) {
      hint =
          "perhaps you should give both a metadata.namespace: one without lands in the namespace"
              + " Argo CD or Flux deploys into, which may be "
              + ManifestTree.escaped(namespace.orElse(""));
    } else if (onTheBase) {
      hint = "perhaps you should delete one of them";
    } else {
      hint =
          "perhaps you should change the object in "
              + RepositoryPaths.slashed(earlier.changedIn())
              + " instead, or give this one another name";
    }
    return new GateFinding(
        later.source(),
        Math.max(0, later.document().line()),
        later.check(),
        RULE,
        later.document().describe(),
        Hints.append(what, hint),
        onTheBase ? GateFinding.Severity.WARNING : GateFinding.Severity.ERROR);
  }
}
