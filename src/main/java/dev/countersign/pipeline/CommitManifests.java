package dev.countersign.pipeline;

import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;

/**
 * The manifests of a directory in a commit, as {@link ManifestTree} decides: links, submodules,
 * unusable names and oversized files anywhere under the directory (or in place of it) are refused
 * with an {@link dev.countersign.support.problems.InputProblem} before any file is loaded, so a
 * huge blob is never read into memory. Used by {@code run}, the refresh and {@code promote}, so
 * they see the same files as {@code check} sees in the work tree.
 *
 * @param workspace where the commits are read
 * @param tree which entries are manifests, and the size limit
 */
public record CommitManifests(GitWorkspace workspace, ManifestTree tree) {

  /** The manifest paths under {@code directory} in {@code commit}, repository-relative, sorted. */
  public List<String> paths(String commit, String directory) {
    return tree
        .manifests(
            workspace.entries(commit, directory).stream().map(CommitManifests::entry).toList())
        .stream()
        .map(ManifestTree.Entry::path)
        .toList();
  }

  /**
   * Why files cannot be written in {@code commit} at the targets under {@code directory} ({@link
   * ManifestTree#unwritableTarget}), one problem per target; none when all can. Judges the targets'
   * parents as {@link #paths} lists them, so ask it only once {@link #paths} of {@code directory}
   * found no link or submodule there.
   *
   * @param made what each target is of its source, for the message ("the signed file")
   * @param sources the manifest each target is made from, by target
   */
  public List<InputProblem> unwritableTargets(
      String commit, String directory, String made, Map<String, String> sources) {
    List<InputProblem> problems = new ArrayList<>();
    if (sources.isEmpty()) {
      return problems;
    }
    Map<String, ManifestTree.Type> listed = new HashMap<>();
    for (GitWorkspace.TreeEntry entry : workspace.entries(commit, directory)) {
      listed.put(entry.path(), entry(entry).type());
    }
    for (Map.Entry<String, String> target : sources.entrySet()) {
      ManifestTree.unwritableTarget(
              target.getKey(),
              made,
              target.getValue(),
              path ->
                  Optional.ofNullable(listed.get(path))
                      .or(
                          // The directory and its parents are entered, not listed, when they are
                          // trees; when they are not there, nothing below them is listed either.
                          () ->
                              path.equals(directory) || directory.startsWith(path + "/")
                                  ? Optional.of(ManifestTree.Type.DIRECTORY)
                                  : Optional.empty()))
          .ifPresent(problems::add);
    }
    return problems;
  }

  /** {@link #paths} with their bytes, loaded after every size was checked. */
  public SortedMap<String, byte[]> read(String commit, String directory) {
    return listedFiles(commit, paths(commit, directory));
  }

  /**
   * The bytes of {@code paths}, which {@link #paths} listed in {@code commit}, in one walk of the
   * tree.
   *
   * @throws InternalProblem when the tree does not hold one of them after all
   */
  public SortedMap<String, byte[]> listedFiles(String commit, Collection<String> paths) {
    SortedMap<String, byte[]> files = workspace.readFiles(commit, paths);
    for (String path : paths) {
      if (!files.containsKey(path)) {
        throw missing(commit, path);
      }
    }
    return files;
  }

  private static InternalProblem missing(String commit, String path) {
    return new InternalProblem(
        "The tree of " + commit + " listed " + path + " but holds no such file");
  }

  private static ManifestTree.Entry entry(GitWorkspace.TreeEntry entry) {
    ManifestTree.Type type =
        switch (entry.kind()) {
          case FILE -> ManifestTree.Type.FILE;
          case DIRECTORY -> ManifestTree.Type.DIRECTORY;
          case LINK -> ManifestTree.Type.LINK;
          case OTHER -> ManifestTree.Type.OTHER;
        };
    return new ManifestTree.Entry(entry.path(), type, entry.size());
  }
}
