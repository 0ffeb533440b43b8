package dev.countersign.gate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.git.IgnorePatterns;
import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.RepositoryPaths;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * A pull request's changes to the {@code .sourceignore} files that decide which signed files Flux
 * deploys. Flux's source-controller reads every {@code .sourceignore} of the repository, each for
 * the files below its own directory, and leaves what they match out of the artifact Flux deploys;
 * while none of them holds a pattern it leaves out its default list instead ({@code .github/},
 * {@code cloudbuild.yaml}, {@code **}{@code /.sops.yaml}, ...: {@link
 * IgnorePatterns#fluxArtifact}), so one in any directory can switch that list on. With {@code
 * prune: true} the cluster then deletes those objects. So such a file can take signed content out
 * of the cluster without the pull request deleting a signed file (which the gate would report) and
 * without anything under the signed directory changing. The {@code GitRepository} is taken to have
 * no {@code spec.ignore}, as docs/security.md requires.
 *
 * <p>A change (added, modified or deleted) after which Flux would leave out a signed file it
 * deployed before is an error ({@value #RULE}) naming the files; any other change to one in a
 * directory above a signed directory (the repository root included) is a warning, so reviewers read
 * the patterns (they decide what signed files added later are deployed). A signed file the change
 * adds or modifies that Flux left out already gets a warning: it verifies, but the cluster never
 * gets it. Both commits are read from git objects, as Flux reads the commit, never through git's
 * rendering in the work tree. A {@code .sourceignore} under a signed directory is refused on its
 * own ({@link GitOpsFiles}).
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
    Set<String> above = new HashSet<>();
    for (Path directory : signedDirectories) {
      String slashed = RepositoryPaths.slashed(directory);
      above.add("");
      for (int slash = slashed.indexOf('/'); slash > 0; slash = slashed.indexOf('/', slash + 1)) {
        above.add(slashed.substring(0, slash));
      }
    }
    // Every .sourceignore of both commits: one anywhere decides whether Flux applies its default
    // list. Shallower directories first, Flux's order, in which a deeper file's patterns win.
    Map<String, GitWorkspace.TreeEntry> baseFiles = byDirectory(baseCommit);
    Map<String, GitWorkspace.TreeEntry> headFiles = byDirectory(headCommit);
    TreeSet<String> directories =
        new TreeSet<>(
            (a, b) -> a.length() != b.length() ? a.length() - b.length() : a.compareTo(b));
    directories.addAll(baseFiles.keySet());
    directories.addAll(headFiles.keySet());

    List<GateFinding> findings = new ArrayList<>();
    IgnorePatterns was = new IgnorePatterns();
    IgnorePatterns is = new IgnorePatterns();
    Set<String> before = new HashSet<>();
    Set<String> after = new HashSet<>();
    List<String> changed = new ArrayList<>();
    List<String> emptied = new ArrayList<>();
    for (String directory : directories) {
      Optional<Ignored> base =
          Optional.ofNullable(baseFiles.get(directory)).map(entry -> read(baseCommit, entry));
      Optional<Ignored> head =
          Optional.ofNullable(headFiles.get(directory)).map(entry -> read(headCommit, entry));
      boolean same = base.equals(head);
      // A file the gate cannot read as Flux does adds no pattern. Changed, it counts as holding
      // one in the base and none in the head: the side that leaves out the most signed files.
      // Patterns of a directory neither above nor under a signed one match no signed file: they
      // only count, so a pull request's many such files are not all held at once.
      boolean matchesSigned = above.contains(directory) || under(directory, signedDirectories);
      base.ifPresent(file -> file.loadInto(was, directory, matchesSigned, !same));
      head.ifPresent(file -> file.loadInto(is, directory, matchesSigned, false));
      base.ifPresent(file -> before.add(directory));
      head.ifPresent(file -> after.add(directory));
      if (same) {
        continue;
      }
      if (above.contains(directory) && head.isPresent() && head.get().problem().isPresent()) {
        findings.add(
            finding(pathIn(directory), head.get().problem().get(), GateFinding.Severity.ERROR));
        continue;
      }
      changed.add(directory);
      if (base.isPresent()
          && base.get().holdsAPattern(true)
          && !(head.isPresent() && head.get().holdsAPattern(false))) {
        emptied.add(directory);
      }
    }

    // Each signed file is matched once against each side: what Flux leaves out after the change,
    // and of that, what it deployed before.
    IgnorePatterns isLeftOut = is.fluxArtifact();
    List<String> leftOut =
        signedFiles.stream()
            .map(RepositoryPaths::slashed)
            .filter(isLeftOut::ignores)
            .sorted()
            .toList();
    IgnorePatterns wasLeftOut = was.fluxArtifact();
    Map<Boolean, List<String>> deployedBefore =
        leftOut.stream().collect(Collectors.partitioningBy(file -> !wasLeftOut.ignores(file)));
    List<String> hidden = deployedBefore.get(true);
    // With no pattern left anywhere, every file newly left out is the default list's doing, and
    // so the doing of each change that took a file's last pattern away.
    boolean defaultsNow = was.holdsAPattern() && !is.holdsAPattern();
    for (String directory : changed) {
      String path = pathIn(directory);
      List<String> below =
          defaultsNow
              ? emptied.contains(directory) ? hidden : List.of()
              : hidden.stream()
                  .filter(file -> directory.isEmpty() || file.startsWith(directory + "/"))
                  .toList();
      if (!below.isEmpty()) {
        findings.add(
            finding(
                path,
                "with this change "
                    + (defaultsNow
                        ? "no "
                            + FILE_NAME
                            + " of the repository holds a pattern, so Flux's source-controller"
                            + " applies its default ignore list (among others .github/,"
                            + " cloudbuild.yaml, .travis.yml, **/.sops.yaml, **/.flux.yaml), which"
                            + " leaves "
                        : "Flux's source-controller leaves ")
                    + named(below)
                    + " out of what Flux deploys (with prune, the cluster deletes "
                    + (below.size() == 1 ? "it" : "them")
                    + ") while the signed directory still holds "
                    + (below.size() == 1 ? "it" : "them")
                    + (defaultsNow
                        ? ", perhaps you should keep a pattern in a " + FILE_NAME + ", or"
                        : ", perhaps you should")
                    + " delete signed files in a change of their own instead, so that it shows"
                    + " what leaves the cluster",
                GateFinding.Severity.ERROR));
      } else if (above.contains(directory)) {
        String what =
            !after.contains(directory)
                ? "deletes"
                : before.contains(directory) ? "changes" : "adds";
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
      }
    }
    findings.addAll(notDeployed(deployedBefore.get(false), is));
    return findings;
  }

  /**
   * A warning for each signed file the change adds or modifies that Flux leaves out all the same
   * (its default list, or a pattern the base already had): it verifies, but the cluster never gets
   * it, which reviewers should know; it takes nothing out of the cluster.
   *
   * @param leftOut the signed files Flux leaves out after the change and left out before it
   * @param is the patterns after the change
   */
  private List<GateFinding> notDeployed(List<String> leftOut, IgnorePatterns is) {
    if (leftOut.isEmpty()) {
      return List.of();
    }
    Map<String, byte[]> base = git.readFiles(baseCommit, leftOut);
    Map<String, byte[]> head = git.readFiles(headCommit, leftOut);
    List<GateFinding> findings = new ArrayList<>();
    for (String file : leftOut) {
      if (base.containsKey(file) && Arrays.equals(base.get(file), head.get(file))) {
        continue;
      }
      findings.add(
          new GateFinding(
              ManifestTree.displayPath(file),
              0,
              GateFinding.Check.SIGNATURE,
              RULE,
              "",
              "Flux's source-controller leaves this signed file out of what Flux deploys ("
                  + (is.holdsAPattern()
                      ? "a pattern matches it"
                      : "its default ignore list matches it, which applies while no "
                          + FILE_NAME
                          + " of the repository holds a pattern")
                  + "), so the cluster never gets it, whatever its signature; perhaps you should"
                  + " rename it",
              GateFinding.Severity.WARNING));
    }
    return findings;
  }

  private Map<String, GitWorkspace.TreeEntry> byDirectory(String commit) {
    Map<String, GitWorkspace.TreeEntry> files = new HashMap<>();
    for (GitWorkspace.TreeEntry entry : git.entriesNamed(commit, FILE_NAME)) {
      String path = entry.path();
      files.put(
          path.equals(FILE_NAME) ? "" : path.substring(0, path.length() - FILE_NAME.length() - 1),
          entry);
    }
    return files;
  }

  private static boolean under(String directory, Collection<Path> signedDirectories) {
    return signedDirectories.stream()
        .map(RepositoryPaths::slashed)
        .anyMatch(signed -> directory.equals(signed) || directory.startsWith(signed + "/"));
  }

  private static String pathIn(String directory) {
    return directory.isEmpty() ? FILE_NAME : directory + "/" + FILE_NAME;
  }

  /**
   * A {@code .sourceignore} in a commit: its bytes, or why the gate cannot read it as Flux does.
   *
   * @param content what tells two versions apart: the bytes, one char each, or the entry's kind and
   *     size when they were not read
   * @param read whether {@code content} is the file's bytes
   */
  private record Ignored(Optional<String> problem, String content, boolean read) {

    /**
     * Adds the patterns Flux reads from this file (up to a line it stops at), or only counts them
     * when they cannot match a signed file ({@code matchesSigned} false). One the gate did not read
     * adds none, and counts as holding one when {@code unreadHoldsAPattern}.
     */
    void loadInto(
        IgnorePatterns patterns,
        String directory,
        boolean matchesSigned,
        boolean unreadHoldsAPattern) {
      if (read && matchesSigned) {
        patterns.add(directory, content.getBytes(StandardCharsets.ISO_8859_1));
      } else if (holdsAPattern(unreadHoldsAPattern)) {
        patterns.countPatternNotAdded();
      }
    }

    /** Whether Flux loads a pattern from this file, as {@link #loadInto} counts it. */
    boolean holdsAPattern(boolean unreadHoldsAPattern) {
      return read
          ? new IgnorePatterns()
              .add("", content.getBytes(StandardCharsets.ISO_8859_1))
              .holdsAPattern()
          : unreadHoldsAPattern;
    }
  }

  private Ignored read(String commit, GitWorkspace.TreeEntry entry) {
    String path = entry.path();
    if (entry.kind() != GitWorkspace.TreeEntry.Kind.FILE) {
      return new Ignored(
          Optional.of(
              "is not a regular file (a symbolic link or submodule): Flux's source-controller"
                  + " reads what a link points to, which the gate does not judge, perhaps you"
                  + " should replace it with a plain file"),
          "kind:" + entry.kind(),
          false);
    }
    if (entry.size() > ConfigurationYaml.MAX_BYTES) {
      return new Ignored(
          Optional.of(
              "is "
                  + entry.size()
                  + " bytes, more than the "
                  + ConfigurationYaml.MAX_BYTES
                  + " bytes the gate reads of a file that decides what Flux deploys"),
          "size:" + entry.size(),
          false);
    }
    Optional<byte[]> bytes = git.readFile(commit, path);
    if (bytes.isEmpty()) {
      // Listed but not found again by its decoded name: a directory name that is not UTF-8.
      return new Ignored(
          Optional.of("has a directory name the gate cannot read, perhaps you should rename it"),
          "unnamed:" + entry.size(),
          false);
    }
    String content = new String(bytes.get(), StandardCharsets.ISO_8859_1);
    OptionalInt stop = IgnorePatterns.lineFluxStopsAt(bytes.get());
    if (stop.isPresent()) {
      // What the patterns after it would have kept, Flux leaves out: the gate does not guess.
      return new Ignored(
          Optional.of(
              "line "
                  + stop.getAsInt()
                  + " does not fit in the 64 KiB Flux's source-controller reads of a line, so"
                  + " Flux reads no pattern from it or any line after it (a negation there"
                  + " keeps nothing), perhaps you should shorten the line"),
          content,
          true);
    }
    return new Ignored(Optional.empty(), content, true);
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
