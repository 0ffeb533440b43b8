package dev.countersign.promotion;

import dev.countersign.git.CommitAuthorship;
import dev.countersign.git.CommitIds;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.pipeline.Progress;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.DocumentVerdict;
import dev.countersign.verification.ManifestVerifier;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * {@code countersign promote}: proposes, through a pull request, that the signed manifests of one
 * environment directory become those of another ({@code envs/staging/signed} to {@code
 * envs/prod/signed}).
 *
 * <p>Works on the base branch as the remote has it (fetched), never on the work tree: the sources
 * and the trust that judges them ({@link #trustAt}) come from the same fetched commit. Every source
 * file is verified against that trust first; one that fails (tampered, unsigned, signed by someone
 * the policy does not name) stops the promotion before anything is written or pushed, and so does a
 * file or directory on the base where a copy is to be written ({@link
 * ManifestTree#unwritableTarget}). Files are copied byte for byte, so they verify under their new
 * path as they did under the old one; target files with no source are removed. The pull request is
 * then created or updated by {@link PullRequestPublisher}. The promotion commit is made in the
 * checkout, which is put back where it was afterwards (after a failure too); uncommitted changes
 * there, which making it would overwrite, stop the run first.
 *
 * @param workspace where the base branch is read and the promotion committed (the publisher's)
 * @param trustAt the trust of the fetched base commit, given its full id: the trust policy, its
 *     keys and annotation domain as that commit has them (or the signers given as flags), never the
 *     work tree's; asked once per run, after the fetch
 * @param authorship who commits the promotion
 */
public record PromotionJob(
    GitWorkspace workspace,
    PullRequestPublisher publisher,
    ManifestReader reader,
    Function<String, Trust> trustAt,
    CommitAuthorship authorship,
    Progress progress) {

  /** The manifests of commits in {@link #workspace}, as {@link #reader} limits them. */
  private CommitManifests manifests() {
    return new CommitManifests(workspace, ManifestTree.of(reader));
  }

  /**
   * What judges one promotion.
   *
   * @param verifier checks every source file against the trust policy
   * @param facts the signature facts shown in the pull request table
   * @param gatedSignedDirectories the signed directories of the trust policy, which {@code check}
   *     verifies pull requests in (repository-relative, {@code /}-separated); empty when the
   *     signers are given as flags, with no policy to ask
   */
  public record Trust(
      ManifestVerifier verifier,
      SignatureFacts facts,
      Optional<List<String>> gatedSignedDirectories) {
    public Trust {
      Objects.requireNonNull(verifier, "verifier");
      Objects.requireNonNull(facts, "facts");
      Objects.requireNonNull(gatedSignedDirectories, "gatedSignedDirectories");
    }
  }

  /** How a promotion ended. */
  public sealed interface Outcome {}

  /**
   * At least one source file did not verify; nothing was written or pushed.
   *
   * @param failures the documents that failed, in path order
   * @param checkedFiles how many source files were checked
   */
  public record Rejected(List<DocumentVerdict> failures, int checkedFiles) implements Outcome {
    public Rejected {
      failures = List.copyOf(failures);
    }
  }

  /** Every source verified; the pull request is as {@code result} says. */
  public record Published(PromotionResult result) implements Outcome {}

  /**
   * @param from source directory, repository-relative ({@code envs/staging/signed})
   * @param to target directory, repository-relative ({@code envs/prod/signed})
   * @param remote where the base branch is fetched from and the bot branch pushed to
   */
  public Outcome run(String from, String to, GitRemote remote) {
    String source = RepositoryPaths.directory(Objects.requireNonNull(from, "from"));
    String target = RepositoryPaths.directory(Objects.requireNonNull(to, "to"));
    if (source.isEmpty()
        || target.isEmpty()
        || source.equals(target)
        || source.startsWith(target + "/")
        || target.startsWith(source + "/")) {
      throw new UsageProblem(
          "--from " + from + " and --to " + to + " must be two separate directories",
          "perhaps you should pass e.g. --from envs/staging/signed --to envs/prod/signed");
    }
    String base = publisher.settings().base();
    String baseCommit = workspace.fetch(remote, base);
    progress.info(
        "Promoting "
            + source
            + "/ to "
            + target
            + "/ on "
            + base
            + " at "
            + CommitIds.abbreviate(baseCommit));
    // The base commit's trust, not the work tree's: the checkout may be older than the base or
    // carry an uncommitted edit of the policy.
    Trust trust = Objects.requireNonNull(trustAt.apply(baseCommit), "trust");
    // A target the policy names no pair for is one check never verifies a pull request in: what
    // lands there after this promotion is gated by review alone.
    trust
        .gatedSignedDirectories()
        .filter(gated -> !gated.contains(target))
        .ifPresent(
            gated ->
                progress.warning(
                    "--to "
                        + target
                        + "/ is not a signed directory of the trust policy on "
                        + base
                        + " ("
                        + String.join(", ", gated)
                        + "), so check verifies no pull request that changes it; perhaps you"
                        + " should add a directory pair for it to the policy"));

    SortedMap<String, byte[]> sources = manifests().read(baseCommit, source);
    if (sources.isEmpty()) {
      throw new UsageProblem(
          "No manifests under " + source + "/ on " + base + " while promoting to " + target,
          "perhaps you should check --from (a repository-relative directory of signed manifests)"
              + " and --base");
    }
    List<DocumentVerdict> failures = verify(sources, trust.verifier());
    if (!failures.isEmpty()) {
      return new Rejected(failures, sources.size());
    }
    progress.info("All " + sources.size() + " source file(s) verified");

    SortedMap<String, byte[]> desired = new TreeMap<>();
    Map<String, String> sourceByTarget = new TreeMap<>();
    sources.forEach(
        (path, bytes) -> {
          desired.put(target + path.substring(source.length()), bytes);
          sourceByTarget.put(target + path.substring(source.length()), path);
        });
    SortedMap<String, byte[]> current = manifests().read(baseCommit, target);
    // Before the checkout moves: writing the copies would find what is in the way only then.
    List<InputProblem> unwritable =
        manifests().unwritableTargets(baseCommit, target, "the copy", sourceByTarget);
    if (!unwritable.isEmpty()) {
      throw InputProblem.combine(unwritable);
    }

    ProposedChanges proposed = new ProposedChanges(trust.facts());
    for (Map.Entry<String, byte[]> file : desired.entrySet()) {
      byte[] now = current.get(file.getKey());
      if (now == null || !Arrays.equals(now, file.getValue())) {
        proposed.write(file.getKey(), file.getValue(), now != null);
      }
    }
    for (String stale : current.keySet()) {
      if (!desired.containsKey(stale)) {
        proposed.delete(stale);
      }
    }
    PromotionPlan plan = proposed.plan();
    if (plan.isEmpty()) {
      return new Published(
          publisher.createOrUpdateBranch(
              plan, Optional.empty(), new PullRequestPublisher.Nothing()));
    }
    // The promotion commit is made in the checkout (reset to the base, written, committed), so
    // uncommitted edits there would be overwritten, and the checkout is put back afterwards.
    refuseUncommittedChanges(source, target);
    GitWorkspace.Checkout start = workspace.checkout();
    Published published =
        GitWorkspace.restoringOnThrow(
            workspace,
            start,
            () ->
                new Published(
                    publisher.createOrUpdateBranch(
                        plan,
                        publisher.botBranchTip(),
                        proposed.onBase(
                            baseCommit,
                            authorship,
                            "countersign: promote " + source + " to " + target))));
    workspace.restore(start);
    return published;
  }

  private void refuseUncommittedChanges(String source, String target) {
    List<String> changed = workspace.uncommittedChanges();
    if (changed.isEmpty()) {
      return;
    }
    int shown = Math.min(changed.size(), 5);
    throw new UsageProblem(
        "The checkout has uncommitted changes to "
            + changed.size()
            + " tracked file(s) ("
            + String.join(", ", changed.subList(0, shown))
            + (changed.size() > shown ? ", ..." : "")
            + ") that making the promotion commit would overwrite, while promoting "
            + source
            + " to "
            + target,
        "perhaps you should commit or stash them and run again; promote puts the checkout back"
            + " where it was when it is done");
  }

  private List<DocumentVerdict> verify(
      SortedMap<String, byte[]> sources, ManifestVerifier verifier) {
    List<DocumentVerdict> failures = new ArrayList<>();
    progress.group("Verifying " + sources.size() + " source file(s)");
    try {
      for (Map.Entry<String, byte[]> file : sources.entrySet()) {
        Path path = Path.of(file.getKey());
        ManifestFile manifest =
            new ManifestFile(path, path, reader.parse(file.getValue(), path), file.getValue());
        for (DocumentVerdict verdict : verifier.verify(manifest)) {
          progress.info(
              (verdict.passed() ? "PASS " : "FAIL ")
                  + verdict.file()
                  + " "
                  + verdict.description()
                  + ": "
                  + verdict.reason());
          if (!verdict.passed()) {
            failures.add(verdict);
          }
        }
      }
    } finally {
      progress.endGroup();
    }
    return failures;
  }
}
