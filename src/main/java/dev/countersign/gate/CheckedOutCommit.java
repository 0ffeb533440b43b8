package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.git.GitWorkspace.WorkTreeDifference;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * The gate reads the work tree; the signing workflow signs the merged commit's git objects. This
 * holds the two to the same bytes: under every signed and unsigned directory, the work tree must
 * hold exactly the checked-out commit's (HEAD's) manifests, each with its committed bytes.
 *
 * <p>actions/checkout writes the work tree with git, which applies the {@code .gitattributes} of
 * the tree it checks out, the pull request's own. An {@code ident} attribute alone turns {@code
 * role: '$Id:'}, then anything, then {@code '$'} on one line into {@code role: '$Id: <blob id> $'},
 * so the gate would judge a manifest without what the signing workflow later signs. Line-ending,
 * encoding and filter conversions, a sparse checkout and local edits are refused the same way: the
 * gate judges nothing but the committed bytes.
 *
 * @param git the repository whose HEAD is the checked-out commit
 * @param tree which entries are manifests and which are refused, as for {@code run}
 */
record CheckedOutCommit(GitWorkspace git, ManifestTree tree) {

  /**
   * Why the work tree's manifests under {@code directories} are not HEAD's, one problem per file;
   * none when they are.
   *
   * @param workTreeManifests the manifests the gate found in the work tree, repository-relative
   */
  List<InputProblem> differences(Collection<Path> directories, Collection<Path> workTreeManifests) {
    String head = git.headCommitId();
    List<InputProblem> problems = new ArrayList<>();
    TreeSet<String> paths = new TreeSet<>();
    workTreeManifests.forEach(p -> paths.add(RepositoryPaths.slashed(p)));
    CommitManifests committed = new CommitManifests(git, tree);
    for (Path directory : directories) {
      try {
        paths.addAll(committed.paths(head, RepositoryPaths.slashed(directory)));
      } catch (InputProblem refused) {
        // In the commit, not in the work tree: a submodule (an empty directory once checked
        // out) or a link written as a plain file. run refuses them; so does the gate.
        problems.addAll(refused.all());
      }
    }
    for (Map.Entry<String, WorkTreeDifference> difference :
        git.workTreeDifferences(head, paths).entrySet()) {
      problems.add(problem(difference.getKey(), difference.getValue(), head));
    }
    return problems;
  }

  private static InputProblem problem(String path, WorkTreeDifference difference, String head) {
    String commit = "the checked-out commit " + abbreviate(head);
    return switch (difference) {
      case CHANGED ->
          new InputProblem(
              ManifestTree.displayPath(path),
              0,
              "differs from "
                  + commit
                  + ": the signing workflow signs the committed bytes, and git wrote other bytes"
                  + " to the work tree (a .gitattributes conversion: eol, ident,"
                  + " working-tree-encoding or filter) or the file was edited since",
              "perhaps you should remove the .gitattributes lines that convert files under signed"
                  + " and unsigned directories, or commit the edit");
      case NOT_IN_WORK_TREE ->
          new InputProblem(
              ManifestTree.displayPath(path),
              0,
              "is in "
                  + commit
                  + " but not in the work tree (a sparse checkout, or deleted since), so the gate"
                  + " cannot judge what the signing workflow would sign",
              "perhaps you should check out the whole commit, or commit the deletion");
      case NOT_IN_COMMIT ->
          new InputProblem(
              ManifestTree.displayPath(path),
              0,
              "is in the work tree but not in "
                  + commit
                  + " (untracked or ignored); the signing workflow signs only committed files",
              "perhaps you should commit it or remove it");
    };
  }
}
