package dev.countersign.promotion;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitAuthorship;
import dev.countersign.git.CommitIds;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.pipeline.DirPair;
import dev.countersign.pipeline.Progress;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.pipeline.SigningStep;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The scheduled refresh ({@code countersign run --mode pull-request --from-worktree}): an earlier
 * workflow step regenerated manifests into the unsigned directories of the work tree (an egress
 * allowlist, say) without committing them; this job proposes their signed form through the bot
 * branch's pull request.
 *
 * <p>Content, not bytes, decides: a generated manifest that the base branch's signed file covers is
 * no change; one that the bot branch's file covers reuses that file as it is (nothing is signed).
 * "Covers" is {@link SignatureReuse}: the file verifies for this run's signer and its documents are
 * exactly the generated content, so a file planted on either branch is signed over, never kept. So
 * an unchanged allowlist signs nothing, pushes nothing and leaves the pull request alone ({@code
 * noop}); a changed one adds exactly one commit (base + the new signed files) to the bot branch and
 * updates the body; one reverted to what the base has closes it. Whether the bot branch already
 * holds the proposal is {@link PullRequestPublisher}'s whole-tree check, so anything else on it
 * (files outside the signed directories included) is dropped by rebuilding it.
 *
 * <p>The base commit's rules judge first ({@link GeneratedContentGate}): every generated manifest
 * the base's signed file does not cover, so would be signed or proposed, meets the rules {@code
 * check} applies to an unsigned manifest, read from the fetched base commit (the generator could
 * have rewritten the work tree's). Refused content ends the refresh {@link
 * PromotionResult.Outcome#REJECTED}: nothing signed, no log entry, nothing pushed, the pull request
 * left as it was.
 *
 * <p>Only the signed files are committed; the generated unsigned files are read from the work tree
 * and never committed. HEAD moves to the base tip before committing ({@link GitWorkspace#resetTo}:
 * only the paths that differ change, so the generated files stay); the commit stays local when the
 * bot branch already holds it. Uncommitted work that the move or the commit would overwrite stops
 * the refresh before anything is signed.
 *
 * @param workspace where the work tree is read and the refresh committed (the publisher's)
 * @param signer signs what changed
 * @param reuse decides whether a signed file on the base or the bot branch still covers the content
 * @param gate judges what the refresh would sign or propose by the base commit's rules first
 * @param facts the signature facts shown in the pull request table
 * @param authorship who commits the refresh
 */
public record RefreshJob(
    GitWorkspace workspace,
    PullRequestPublisher publisher,
    SigningStep signer,
    ManifestReader reader,
    SignedManifestFormat format,
    SignatureFacts facts,
    SignatureReuse reuse,
    GeneratedContentGate gate,
    CommitAuthorship authorship,
    Progress progress) {

  /**
   * @param dirs unsigned-to-signed pairs; the unsigned side is read from the work tree
   * @param remote where the base branch is fetched from and the bot branch pushed to
   */
  public PromotionResult run(List<DirPair> dirs, GitRemote remote) {
    SortedMap<String, ManifestFile> generated = new TreeMap<>();
    Map<String, String> targetOf = new TreeMap<>();
    Map<DirPair, Map<String, String>> sourceByTarget = new LinkedHashMap<>();
    for (DirPair pair : dirs) {
      Map<String, String> sources = sourceByTarget.computeIfAbsent(pair, p -> new TreeMap<>());
      for (Map.Entry<String, ManifestFile> file : readWorkTree(pair.from()).entrySet()) {
        generated.put(file.getKey(), file.getValue());
        targetOf.put(file.getKey(), pair.targetOf(file.getKey()));
        sources.put(pair.targetOf(file.getKey()), file.getKey());
      }
    }
    String base = publisher.settings().base();
    String baseCommit = workspace.fetch(remote, base);
    refuseUnwritableTargets(baseCommit, sourceByTarget);
    Optional<String> botTip = publisher.botBranchTip();
    progress.info(
        "Refreshing "
            + generated.size()
            + " generated manifest(s) against "
            + base
            + " at "
            + CommitIds.abbreviate(baseCommit)
            + botTip
                .map(
                    t ->
                        " and "
                            + publisher.settings().botBranch()
                            + " at "
                            + CommitIds.abbreviate(t))
                .orElse(""));

    SortedMap<String, byte[]> writes = new TreeMap<>();
    List<SigningStep.Input> toSign = new ArrayList<>();
    List<ManifestFile> proposing = new ArrayList<>();
    for (Map.Entry<String, ManifestFile> file : generated.entrySet()) {
      String target = targetOf.get(file.getKey());
      byte[] message = format.message(file.getValue().documents());
      Optional<byte[]> onBase = workspace.readFile(baseCommit, target);
      if (onBase.filter(b -> reuse.covers(target, b, message)).isPresent()) {
        progress.info("unchanged from " + base + ": " + target);
        continue;
      }
      Optional<byte[]> onBranch = botTip.flatMap(t -> workspace.readFile(t, target));
      if (onBranch.filter(b -> reuse.covers(target, b, message)).isPresent()) {
        progress.info("already proposed: " + target);
        writes.put(target, onBranch.get());
        proposing.add(file.getValue());
        continue;
      }
      proposing.add(file.getValue());
      toSign.add(
          new SigningStep.Input(file.getKey(), target, file.getValue().bytes(), Optional.empty()));
    }
    // What the base already has was judged when it was merged; everything else would reach the
    // pull request only signed, and a signature (a certificate and a log entry) is not taken back.
    if (!proposing.isEmpty() && !gate.admits(workspace, baseCommit, proposing)) {
      return rejected(proposing.size(), base);
    }
    if (!toSign.isEmpty()) {
      refuseToOverwriteUncommittedWork(baseCommit, writes, toSign);
      progress.group("Signing " + toSign.size() + " changed manifest(s)");
      try {
        for (SigningStep.Result result : signer.sign(toSign)) {
          if (!(result instanceof SigningStep.Signed signed)) {
            throw new InternalProblem(
                "The signing step kept " + result.targetPath() + " though it had no signed file");
          }
          progress.info("signed " + signed.targetPath());
          writes.put(signed.targetPath(), signed.bytes());
        }
      } finally {
        progress.endGroup();
      }
    }

    ProposedChanges proposed = new ProposedChanges(facts);
    writes.forEach(
        (path, bytes) ->
            proposed.write(path, bytes, workspace.readFile(baseCommit, path).isPresent()));
    PromotionPlan plan = proposed.plan();
    int files = plan.changes().size();
    return publisher.createOrUpdateBranch(
        plan,
        botTip,
        proposed.onBase(
            baseCommit,
            authorship,
            "countersign: refresh "
                + files
                + (files == 1 ? " signed manifest" : " signed manifests")));
  }

  /** Nothing signed, pushed or changed on the pull request: the base's rules refuse the content. */
  private static PromotionResult rejected(int judged, String base) {
    return new PromotionResult(
        PromotionResult.Outcome.REJECTED,
        Optional.empty(),
        Optional.empty(),
        new PromotionPlan(List.of()),
        "the rules of "
            + base
            + " refuse generated content ("
            + judged
            + " manifest(s) judged); nothing was signed, pushed or proposed",
        Optional.empty(),
        Optional.empty());
  }

  /**
   * Stops the refresh before anything is signed when the base tip cannot take a signed file where
   * it goes, as {@code run} judges its own commit ({@link CommitManifests}): a link, submodule,
   * unusable name or oversized file in a signed directory, or a file where a signed file needs a
   * directory or a directory where it goes ({@link ManifestTree#unwritableTarget}). The commit on
   * the base tip would fail on it only after signing had made its log entries, on every scheduled
   * refresh.
   *
   * @param sourceByTarget for each pair, the generated manifest signed into each target, by target
   */
  private void refuseUnwritableTargets(
      String baseCommit, Map<DirPair, Map<String, String>> sourceByTarget) {
    CommitManifests manifests = new CommitManifests(workspace, ManifestTree.of(reader));
    List<InputProblem> problems = new ArrayList<>();
    sourceByTarget.forEach(
        (pair, sources) -> {
          try {
            manifests.paths(baseCommit, pair.to());
          } catch (InputProblem problem) {
            problems.addAll(problem.all());
            return;
          }
          problems.addAll(
              manifests.unwritableTargets(baseCommit, pair.to(), "the signed file", sources));
        });
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
  }

  /**
   * Stops the refresh before anything is signed when committing its signed files on the base tip
   * would overwrite work a step before it left uncommitted ({@link
   * GitWorkspace#refuseToOverwriteUncommittedWork}): a signed file it replaces, or a path the move
   * to the base tip changes, that the step edited. The commit would refuse it too, but only after
   * signing had made its log entries. The signed bytes do not exist yet, so each file to sign is
   * asked about with its generated bytes standing in; the commit asks again with the real ones.
   */
  private void refuseToOverwriteUncommittedWork(
      String baseCommit, Map<String, byte[]> reused, List<SigningStep.Input> toSign) {
    ChangeSet.Builder planned = ChangeSet.builder();
    reused.forEach(planned::write);
    for (SigningStep.Input input : toSign) {
      planned.write(input.targetPath(), input.unsignedBytes());
    }
    workspace.refuseToOverwriteUncommittedWork(baseCommit, planned.build());
  }

  /**
   * The manifests under {@code directory} in the work tree (uncommitted content included), as
   * {@link ManifestTree} finds them: links and unusable names refused, sizes checked before
   * reading, and each file read without following links.
   */
  private SortedMap<String, ManifestFile> readWorkTree(String directory) {
    SortedMap<String, ManifestFile> files = new TreeMap<>();
    for (ManifestTree.Entry entry :
        ManifestTree.of(reader).walk(workspace.directory(), directory)) {
      Path relative = Path.of(entry.path());
      files.put(entry.path(), reader.read(workspace.directory().resolve(relative), relative));
    }
    return files;
  }
}
