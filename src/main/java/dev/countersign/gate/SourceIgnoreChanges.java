package dev.countersign.gate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.git.IgnorePatterns;
import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.RepositoryPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;

/**
 * A pull request's changes to the {@code .sourceignore} files whose patterns reach a signed
 * directory: those in the directories above one (the repository root included). Flux's
 * source-controller reads every {@code .sourceignore} of the repository, each for the files below
 * its own directory, and leaves what they match out of the artifact Flux deploys; with {@code
 * prune: true} the cluster then deletes those objects. So such a file can take signed content out
 * of the cluster without the pull request deleting a signed file (which the gate would report) and
 * without anything under the signed directory changing.
 *
 * <p>A change (added, modified or deleted) after which Flux would leave out a signed file it
 * deployed before is an error ({@value #RULE}) naming the files; any other change is a warning, so
 * reviewers read the patterns (they decide what signed files added later are deployed). Both
 * commits are read from git objects, as Flux reads the commit, never through git's rendering in the
 * work tree. A {@code .sourceignore} under a signed directory is refused on its own ({@link
 * GitOpsFiles}).
 *
 * @param git the repository
 * @param baseCommit the commit the change targets
 * @param headCommit the change, as checked out
 */
record SourceIgnoreChanges(GitWorkspace git, String baseCommit, String headCommit) {

  static final String RULE = "countersign/sourceignore";
  static final String FILE_NAME = ".sourceignore";

  /** How many hidden signed files a finding names before it counts the rest. */
  private static final int NAMED = 5;

  /**
   * @param signedDirectories the signed directories, repository-relative
   * @param signedFiles the signed manifests of the change, repository-relative
   */
  List<GateFinding> check(Collection<Path> signedDirectories, Collection<Path> signedFiles) {
    // Shallower directories first: Flux's order, in which a deeper file's patterns win.
    TreeSet<String> above =
        new TreeSet<>(
            (a, b) -> a.length() != b.length() ? a.length() - b.length() : a.compareTo(b));
    for (Path directory : signedDirectories) {
      String slashed = RepositoryPaths.slashed(directory);
      above.add("");
      for (int slash = slashed.indexOf('/'); slash > 0; slash = slashed.indexOf('/', slash + 1)) {
        above.add(slashed.substring(0, slash));
      }
    }
    List<GateFinding> findings = new ArrayList<>();
    Map<String, byte[]> before = new LinkedHashMap<>();
    Map<String, byte[]> after = new LinkedHashMap<>();
    List<String> changed = new ArrayList<>();
    for (String directory : above) {
      String path = directory.isEmpty() ? FILE_NAME : directory + "/" + FILE_NAME;
      Optional<Ignored> base = read(baseCommit, path);
      Optional<Ignored> head = read(headCommit, path);
      base.flatMap(Ignored::bytes).ifPresent(bytes -> before.put(directory, bytes));
      head.flatMap(Ignored::bytes).ifPresent(bytes -> after.put(directory, bytes));
      if (base.equals(head)) {
        continue;
      }
      if (head.isPresent() && head.get().problem().isPresent()) {
        findings.add(finding(path, head.get().problem().get(), GateFinding.Severity.ERROR));
        continue;
      }
      changed.add(directory);
    }
    if (changed.isEmpty()) {
      return findings;
    }
    IgnorePatterns was = patterns(before);
    IgnorePatterns is = patterns(after);
    List<String> hidden =
        signedFiles.stream()
            .map(RepositoryPaths::slashed)
            .filter(file -> is.ignores(file) && !was.ignores(file))
            .sorted()
            .toList();
    for (String directory : changed) {
      String path = directory.isEmpty() ? FILE_NAME : directory + "/" + FILE_NAME;
      String what = after.containsKey(directory) ? "changes" : "deletes";
      if (!before.containsKey(directory) && after.containsKey(directory)) {
        what = "adds";
      }
      List<String> below =
          hidden.stream()
              .filter(file -> directory.isEmpty() || file.startsWith(directory + "/"))
              .toList();
      if (below.isEmpty()) {
        findings.add(
            finding(
                path,
                "this change "
                    + what
                    + " a "
                    + FILE_NAME
                    + " whose patterns reach the signed directory: Flux's source-controller leaves"
                    + " the files it matches out of what Flux deploys (with prune, the cluster"
                    + " deletes them); it hides no signed file now, but review its patterns",
                GateFinding.Severity.WARNING));
      } else {
        findings.add(
            finding(
                path,
                "with this change Flux's source-controller leaves "
                    + named(below)
                    + " out of what Flux deploys (with prune, the cluster deletes "
                    + (below.size() == 1 ? "it" : "them")
                    + ") while the signed directory still holds "
                    + (below.size() == 1 ? "it" : "them")
                    + ", perhaps you should delete signed files in a change of their own instead,"
                    + " so that it shows what leaves the cluster",
                GateFinding.Severity.ERROR));
      }
    }
    return findings;
  }

  /**
   * A {@code .sourceignore} in a commit: its bytes, or why the gate cannot read it as Flux does.
   *
   * @param content what tells two versions apart: the bytes, one char each, or the entry's kind and
   *     size when they were not read
   */
  private record Ignored(Optional<String> problem, String content) {

    /** The file's bytes, when the gate reads it as Flux does. */
    Optional<byte[]> bytes() {
      return problem.isPresent()
          ? Optional.empty()
          : Optional.of(content.getBytes(StandardCharsets.ISO_8859_1));
    }
  }

  private Optional<Ignored> read(String commit, String path) {
    Optional<GitWorkspace.TreeEntry> entry =
        git.entries(commit, path).stream().filter(e -> e.path().equals(path)).findFirst();
    if (entry.isEmpty()) {
      return Optional.empty();
    }
    if (entry.get().kind() != GitWorkspace.TreeEntry.Kind.FILE) {
      return Optional.of(
          new Ignored(
              Optional.of(
                  "is not a regular file (a symbolic link or submodule): Flux's source-controller"
                      + " reads what a link points to, which the gate does not judge, perhaps you"
                      + " should replace it with a plain file"),
              "kind:" + entry.get().kind()));
    }
    if (entry.get().size() > ConfigurationYaml.MAX_BYTES) {
      return Optional.of(
          new Ignored(
              Optional.of(
                  "is "
                      + entry.get().size()
                      + " bytes, more than the "
                      + ConfigurationYaml.MAX_BYTES
                      + " bytes the gate reads of a file that decides what Flux deploys"),
              "size:" + entry.get().size()));
    }
    byte[] bytes = git.readFile(commit, path).orElse(new byte[0]);
    String content = new String(bytes, StandardCharsets.ISO_8859_1);
    OptionalInt stop = IgnorePatterns.lineFluxStopsAt(bytes);
    if (stop.isPresent()) {
      // What the patterns after it would have kept, Flux leaves out: the gate does not guess.
      return Optional.of(
          new Ignored(
              Optional.of(
                  "line "
                      + stop.getAsInt()
                      + " does not fit in the 64 KiB Flux's source-controller reads of a line, so"
                      + " Flux reads no pattern from it or any line after it (a negation there"
                      + " keeps nothing), perhaps you should shorten the line"),
              content));
    }
    return Optional.of(new Ignored(Optional.empty(), content));
  }

  private static IgnorePatterns patterns(Map<String, byte[]> files) {
    IgnorePatterns patterns = new IgnorePatterns();
    files.forEach(patterns::add);
    return patterns;
  }

  private static String named(List<String> files) {
    List<String> shown = files.stream().limit(NAMED).map(ManifestTree::escaped).toList();
    String list = String.join(", ", shown);
    return files.size() > NAMED
        ? list + " and " + (files.size() - NAMED) + " more signed files"
        : list;
  }

  private static GateFinding finding(String path, String message, GateFinding.Severity severity) {
    return new GateFinding(
        ManifestTree.displayPath(path),
        0,
        GateFinding.Check.SIGNATURE,
        RULE,
        "",
        message,
        severity);
  }
}
