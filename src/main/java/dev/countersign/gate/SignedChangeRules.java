package dev.countersign.gate;

import dev.countersign.git.CommitIds;
import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.LogTimes;
import dev.countersign.verification.SigningEvent;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.LongStream;

/**
 * In a pull request, files under a signed directory change only the way countersign changes them.
 * Besides verifying exactly against the base branch's trust policy (the gate's signature check),
 * every file the pull request adds or modifies there must be:
 *
 * <ul>
 *   <li><b>not older</b> than the version it replaces: its transparency-log time (the earliest
 *       proven {@code integratedTime} of its signature sets) is not before the base version's (the
 *       latest proven of its sets) ({@value #RULE_ROLLBACK});
 *   <li><b>not a replay</b>: it carries no signing ({@link SigningEvent}: any valid form of a
 *       signature) that an earlier version of the same path carried (searched in the base's history
 *       as far as the clone has it) other than the base version ({@value #RULE_REPLAY});
 *   <li><b>at its own path</b>: every object its message holds (group, kind, namespace, name) that
 *       the base branch already has somewhere under a signed or unsigned directory must be there at
 *       the same path relative to its directory: its own earlier version, its unsigned source, or
 *       the same file in another environment's signed directory (a promotion). A signed file copied
 *       or moved to another path fails ({@value #RULE_PATH}).
 * </ul>
 *
 * Deletions are allowed and reported as warnings ({@value #RULE_DELETED}). Stateless apart from its
 * inputs; reads git objects and the given work-tree files only.
 */
final class SignedChangeRules {

  static final String RULE_ROLLBACK = "countersign/signed-not-older";
  static final String RULE_REPLAY = "countersign/signed-no-replay";
  static final String RULE_PATH = "countersign/signed-own-path";
  static final String RULE_DELETED = "countersign/signed-deleted";

  /** A signed file that must not replace the base branch's version is signed anew instead. */
  private static final String RESIGN_HINT =
      "perhaps you should revert the change in the unsigned directory instead, so the signing"
          + " workflow signs it anew";

  private final BaseCommit base;
  private final RepositoryFiles workTree;
  private final List<PolicyFile.DirectoryPair> pairs;
  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final LogTimes logTimes;

  /**
   * @param logTimes proves the log times the not-older rule compares (its trusted root is asked for
   *     only when a changed file's base version carries a bundle)
   */
  SignedChangeRules(
      BaseCommit base,
      RepositoryFiles workTree,
      List<PolicyFile.DirectoryPair> pairs,
      ManifestReader reader,
      SignedManifestFormat format,
      LogTimes logTimes) {
    this.base = base;
    this.workTree = workTree;
    this.pairs = List.copyOf(pairs);
    this.reader = reader;
    this.format = format;
    this.logTimes = logTimes;
  }

  /** An object of the base, and where it lives: the file and the path relative to its directory. */
  private record Slot(ObjectIdentity object, Path file, Path relative) {}

  /**
   * What {@link #check} found.
   *
   * @param findings the rules' findings, deletions included
   * @param brought the signed files the change adds or modifies (their bytes are not the base's),
   *     in the order given
   */
  record Judged(List<GateFinding> findings, List<Path> brought) {
    Judged {
      findings = List.copyOf(findings);
      brought = List.copyOf(brought);
    }
  }

  /**
   * @param signedFiles the manifests under the signed directories of the work tree (repository
   *     relative), with their directory pair
   */
  Judged check(Map<Path, PolicyFile.DirectoryPair> signedFiles) {
    RepositoryFiles baseFiles = base.files();
    List<GateFinding> findings = new ArrayList<>();
    List<Path> brought = new ArrayList<>();
    List<Changed> changes = new ArrayList<>();
    for (Map.Entry<Path, PolicyFile.DirectoryPair> entry : signedFiles.entrySet()) {
      Path path = entry.getKey();
      Optional<byte[]> now = workTree.read(path);
      if (now.isEmpty()) {
        continue;
      }
      Optional<byte[]> before = baseFiles.read(path);
      if (before.isPresent() && Arrays.equals(before.get(), now.get())) {
        continue;
      }
      brought.add(path);
      // One that is not a signed manifest at all is reported by the signature check.
      decode(path, now.get())
          .ifPresent(file -> changes.add(new Changed(path, entry.getValue(), file, before)));
    }
    if (!changes.isEmpty()) {
      List<BaseManifest> manifests = baseManifests(baseFiles);
      Map<String, Retired> retired = retiredSignings(manifests);
      Map<String, List<Slot>> slots = slots(manifests);
      for (Changed change : changes) {
        Optional<Decoded> previous = change.before().flatMap(b -> decode(change.path(), b));
        notOlder(change.path(), change.file(), previous).ifPresent(findings::add);
        noReplay(change.path(), change.file(), retired).ifPresent(findings::add);
        ownPath(change.path(), change.pair(), change.file(), slots).ifPresent(findings::add);
      }
    }
    for (PolicyFile.DirectoryPair pair : pairs) {
      for (Path gone : baseFiles.filesUnder(pair.signed()).keySet()) {
        if (isManifestName(gone) && workTree.read(gone).isEmpty()) {
          findings.add(
              new GateFinding(
                  gone,
                  0,
                  GateFinding.Check.SIGNATURE,
                  RULE_DELETED,
                  "",
                  "is deleted by this change; after the merge nothing from this repository applies"
                      + " it any more",
                  GateFinding.Severity.WARNING));
        }
      }
    }
    return new Judged(findings, brought);
  }

  /** A signed file the change adds or modifies, and what the base had at its path. */
  private record Changed(
      Path path, PolicyFile.DirectoryPair pair, Decoded file, Optional<byte[]> before) {}

  /** A signed file's first document, its decoded signatures, and the objects its message holds. */
  private record Decoded(ManifestDocument first, SignedContent content) {

    /**
     * The latest proven log time of its signature sets: when the version it replaces was last
     * signed.
     */
    OptionalLong lastLogged(LogTimes times) {
      return proven(times).max();
    }

    /**
     * The earliest proven log time of its signature sets. The earliest, because an old signature
     * with a newer set of another signing appended must still count as old. Only proven times count
     * ({@link LogTimes}): a bundle's time is a number anyone can edit.
     */
    OptionalLong firstLogged(LogTimes times) {
      return proven(times).min();
    }

    private LongStream proven(LogTimes times) {
      return content.signatureSets().stream()
          .map(set -> times.of(content.message(), set))
          .filter(OptionalLong::isPresent)
          .mapToLong(OptionalLong::getAsLong);
    }

    /**
     * The signings its usable sets record ({@link SigningEvent}): a flipped or re-encoded copy of
     * an old signature is the same signing.
     */
    Set<String> signings() {
      Set<String> signings = new HashSet<>();
      content.signatureSets().stream()
          .filter(s -> s.problem().isEmpty() && s.signature().length > 0)
          .forEach(s -> signings.add(SigningEvent.of(s.signature())));
      return signings;
    }
  }

  private Optional<Decoded> decode(Path path, byte[] bytes) {
    try {
      return decode(reader.parse(bytes, path));
    } catch (InputProblem | IllegalArgumentException unreadable) {
      return Optional.empty();
    }
  }

  /** The first document's signatures, when it carries any that decode. */
  private Optional<Decoded> decode(List<ManifestDocument> documents) {
    if (documents.isEmpty()) {
      return Optional.empty();
    }
    try {
      return format
          .decoder()
          .decode(documents.get(0))
          .map(content -> new Decoded(documents.get(0), content));
    } catch (InputProblem | IllegalArgumentException unreadable) {
      return Optional.empty();
    }
  }

  private Optional<GateFinding> notOlder(Path path, Decoded file, Optional<Decoded> previous) {
    if (previous.isEmpty()) {
      return Optional.empty();
    }
    OptionalLong then = previous.get().lastLogged(logTimes);
    if (then.isEmpty()) {
      return Optional.empty();
    }
    OptionalLong now = file.firstLogged(logTimes);
    if (now.isEmpty()) {
      return Optional.of(
          error(
              path,
              file,
              RULE_ROLLBACK,
              "carries no transparency-log time the trusted root proves, so it cannot be shown to"
                  + " be newer than the version it replaces (logged "
                  + Instant.ofEpochSecond(then.getAsLong())
                  + ")",
              "perhaps you should let the signing workflow sign the change in the unsigned"
                  + " directory instead"));
    }
    if (now.getAsLong() < then.getAsLong()) {
      return Optional.of(
          error(
              path,
              file,
              RULE_ROLLBACK,
              "is older than the version it replaces: its signature was logged "
                  + Instant.ofEpochSecond(now.getAsLong())
                  + ", the base branch's version "
                  + Instant.ofEpochSecond(then.getAsLong())
                  + " (a rollback)",
              RESIGN_HINT));
    }
    return Optional.empty();
  }

  /** Where a signing was last seen before the base retired it. */
  private record Retired(Path path, String commitId) {}

  /** A readable manifest of the base under one of the pairs' directories, parsed once. */
  private record BaseManifest(Path directory, Path file, List<ManifestDocument> documents) {}

  /**
   * The base's manifests under every pair's unsigned and signed directory, in path order; files
   * that do not read as manifests are left out (the gate reports the work tree's, not the base's).
   */
  private List<BaseManifest> baseManifests(RepositoryFiles baseFiles) {
    List<BaseManifest> manifests = new ArrayList<>();
    for (PolicyFile.DirectoryPair pair : pairs) {
      for (Path dir : List.of(pair.unsigned(), pair.signed())) {
        for (Map.Entry<Path, byte[]> file : new TreeMap<>(baseFiles.filesUnder(dir)).entrySet()) {
          if (!isManifestName(file.getKey())) {
            continue;
          }
          try {
            manifests.add(
                new BaseManifest(dir, file.getKey(), reader.parse(file.getValue(), file.getKey())));
          } catch (InputProblem unreadable) {
            // Not a manifest the base holds; nothing to compare with.
          }
        }
      }
    }
    return manifests;
  }

  /**
   * The signings that earlier versions of any file under a signed directory carried and that no
   * file under a signed directory of the base carries any more (replaced or deleted), each with
   * where it was seen: putting one back is a replay, wherever it is put. Searched as far as the
   * clone's history goes.
   */
  private Map<String, Retired> retiredSignings(List<BaseManifest> manifests) {
    List<Path> signedDirectories = pairs.stream().map(PolicyFile.DirectoryPair::signed).toList();
    Set<String> current = new HashSet<>();
    for (BaseManifest manifest : manifests) {
      if (signedDirectories.contains(manifest.directory())) {
        decode(manifest.documents()).ifPresent(d -> current.addAll(d.signings()));
      }
    }
    Map<String, Retired> retired = new HashMap<>();
    for (Map.Entry<Path, List<GitWorkspace.FileVersion>> file :
        new TreeMap<>(base.history(signedDirectories)).entrySet()) {
      Path path = file.getKey();
      if (!isManifestName(path)) {
        continue;
      }
      for (GitWorkspace.FileVersion version : file.getValue()) {
        if (version.commitId().equals(base.commitId())) {
          continue; // what the base holds now: its signings are in current
        }
        decode(path, version.bytes())
            .ifPresent(
                old ->
                    old.signings().stream()
                        .filter(signing -> !current.contains(signing))
                        .forEach(
                            signing ->
                                retired.putIfAbsent(
                                    signing, new Retired(path, version.commitId()))));
      }
    }
    return retired;
  }

  private Optional<GateFinding> noReplay(Path path, Decoded file, Map<String, Retired> retired) {
    for (String signing : file.signings()) {
      Retired seen = retired.get(signing);
      if (seen == null) {
        continue;
      }
      String commit = CommitIds.abbreviate(seen.commitId());
      return Optional.of(
          error(
              path,
              file,
              RULE_REPLAY,
              seen.path().equals(path)
                  ? "replays an earlier signed version of this file (as committed in "
                      + commit
                      + ") instead of the base branch's"
                  : "replays the signature of "
                      + RepositoryPaths.slashed(seen.path())
                      + " as committed in "
                      + commit
                      + ", which the base branch no longer has: retired signed content put back"
                      + " at another path",
              RESIGN_HINT));
    }
    return Optional.empty();
  }

  private Optional<GateFinding> ownPath(
      Path path, PolicyFile.DirectoryPair pair, Decoded file, Map<String, List<Slot>> slots) {
    Path relative = pair.signed().relativize(path);
    for (ManifestDocument object : file.content().messageDocuments()) {
      ObjectIdentity identity = ObjectIdentity.of(object);
      List<Slot> at =
          slots.getOrDefault(identity.family(), List.of()).stream()
              .filter(s -> s.object().mayBe(identity))
              .toList();
      if (!at.isEmpty() && at.stream().noneMatch(s -> s.relative().equals(relative))) {
        TreeSet<String> elsewhere = new TreeSet<>();
        at.forEach(s -> elsewhere.add(RepositoryPaths.slashed(s.file())));
        return Optional.of(
            error(
                path,
                file,
                RULE_PATH,
                "holds "
                    + object.describe()
                    + ", which the base branch has at "
                    + String.join(", ", elsewhere)
                    + ": a signed file copied or moved to another path",
                "perhaps you should move the unsigned source instead and let the signing workflow"
                    + " sign it at its new path"));
      }
    }
    return Optional.empty();
  }

  /**
   * Every object the base branch holds under a signed or unsigned directory, with where it is, by
   * {@link ObjectIdentity#family}.
   */
  private Map<String, List<Slot>> slots(List<BaseManifest> manifests) {
    Map<String, List<Slot>> slots = new LinkedHashMap<>();
    for (BaseManifest manifest : manifests) {
      Path relative = manifest.directory().relativize(manifest.file());
      for (ManifestDocument document : manifest.documents()) {
        ObjectIdentity object = ObjectIdentity.of(document);
        slots
            .computeIfAbsent(object.family(), k -> new ArrayList<>())
            .add(new Slot(object, manifest.file(), relative));
      }
    }
    return slots;
  }

  private static boolean isManifestName(Path path) {
    String name = path.getFileName().toString().toLowerCase(Locale.ROOT);
    return name.endsWith(".yaml") || name.endsWith(".yml");
  }

  private static GateFinding error(Path path, Decoded file, String rule, String what, String hint) {
    return new GateFinding(
        path,
        Math.max(0, file.first().line()),
        GateFinding.Check.SIGNATURE,
        rule,
        "",
        Hints.append(what, hint),
        GateFinding.Severity.ERROR);
  }
}
