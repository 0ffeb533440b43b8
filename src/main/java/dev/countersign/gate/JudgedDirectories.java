package dev.countersign.gate;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.GitWorkspace;
import dev.countersign.pipeline.DirPair;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The directory pairs a signing run may sign from: those {@code check} judges. check judges pull
 * requests only under the pairs of the trust policy ({@link PolicyFile#judges}), so a run that
 * signs from another pair gives the trusted signature to content no gate judged, and writes it
 * where no gate verifies a later change. The run's pairs come from its own options (the signing
 * workflow), the policy's from the repository: this is where the two must agree.
 */
public final class JudgedDirectories {

  private JudgedDirectories() {}

  /**
   * Refuses {@code dirs} unless the trust policy {@code policyFile} of {@code commit} judges each;
   * a commit without that file judges nothing and refuses nothing (there is no gate to agree with).
   * The policy is read from the commit's git objects, never from the work tree, which an earlier
   * step of the job could have edited.
   *
   * @throws UsageProblem naming the pairs the policy does not judge, the policy file, the commit
   *     and the policy's own pairs; or when the commit holds something other than a file there, or
   *     a parent of it that is not a directory (a link: check finds no policy behind it)
   * @throws dev.countersign.support.problems.InputProblem when the policy cannot be read
   */
  public static void require(BaseCommit commit, Path policyFile, List<DirPair> dirs) {
    String path = RepositoryPaths.slashed(RepositoryFiles.insideRepository(policyFile));
    List<GitWorkspace.TreeEntry> at = commit.git().entries(commit.commitId(), path);
    boolean present = at.stream().anyMatch(entry -> entry.path().equals(path));
    if (!present && !at.isEmpty()) {
      // A parent that is a link or a file: the commit holds no readable policy there, and check
      // finds none either (it fails closed), so this is not "no gate", it is a broken one.
      throw new UsageProblem(
          "No trust policy found at "
              + path
              + " in commit "
              + abbreviate(commit.commitId())
              + ": "
              + at.get(0).path()
              + " is not a directory",
          "perhaps you should make " + at.get(0).path() + " a plain directory again");
    }
    if (!present) {
      return;
    }
    // A link or submodule there is no policy the loader reads, and no reason to sign ungated.
    PolicyFile policy = new PolicyFileLoader().load(commit.files(), policyFile);
    List<DirPair> ungated =
        dirs.stream().filter(pair -> !policy.judges(pair.from(), pair.to())).toList();
    if (ungated.isEmpty()) {
      return;
    }
    String policyPairs =
        policy.directories().stream()
            .map(PolicyFile.DirectoryPair::spelled)
            .collect(Collectors.joining(", "));
    throw new UsageProblem(
        ungated.stream().map(DirPair::toString).collect(Collectors.joining(", "))
            + (ungated.size() == 1 ? " is not a directory pair" : " are not directory pairs")
            + " of the trust policy "
            + path
            + " in commit "
            + abbreviate(commit.commitId())
            + " ("
            + policyPairs
            + "), so check judges no pull request that changes "
            + (ungated.size() == 1 ? "it" : "them")
            + ", and countersign run signs nothing from "
            + (ungated.size() == 1 ? "it" : "them"),
        "perhaps you should sign from the policy's pairs (the Action's dirs, or unsigned_dir and"
            + " signed_dir; run's --dir, --unsigned-dir and --signed-dir), or add "
            + ungated.stream()
                .map(
                    pair ->
                        "\"- unsigned: " + pair.from() + "\" with \"signed: " + pair.to() + "\"")
                .collect(Collectors.joining(" and "))
            + " under directories in "
            + path
            + " through a reviewed pull request first");
  }
}
