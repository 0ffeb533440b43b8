package dev.countersign.promotion;

import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.pipeline.DirPair;
import dev.countersign.pipeline.Progress;
import dev.countersign.pipeline.ReconcileOptions;
import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.pipeline.SigningStep;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InternalProblem;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The pull-request half of {@code countersign run}: proposing the signing commit through the bot
 * branch (pull-request mode, or a push the remote refused), and the scheduled refresh ({@link
 * RefreshJob}). Both publish through {@link PullRequestPublisher#createOrUpdateBranch}.
 *
 * @param workspace the workspace pushes go through
 * @param host built on first use; may throw {@link EnvironmentProblem} when GitHub is unknown
 */
public record SigningProposal(
    GitWorkspace workspace,
    ReconcileOptions options,
    PromotionSettings settings,
    Supplier<PullRequestHost> host,
    ManifestReader reader,
    SignedManifestFormat format,
    SignatureFacts facts,
    Progress progress) {

  /** The parent of the signing commit: the branch tip it was made on. */
  private static final String PARENT = "HEAD~1";

  /**
   * After the reconcile job: put its commit (if any) on the bot branch and open or update the pull
   * request.
   */
  public PromotionResult propose(ReconcileResult reconciled) {
    boolean refused = reconciled.outcome() == ReconcileResult.Outcome.REFUSED;
    PullRequestHost pullRequests;
    try {
      pullRequests = host.get();
    } catch (EnvironmentProblem noHost) {
      if (refused) {
        throw new EnvironmentProblem(
            "The remote refused the push to "
                + options.branch()
                + " ("
                + reconciled.detail().lines().findFirst().orElse("")
                + ") and no pull request could be opened instead: "
                + noHost.getMessage(),
            "the branch is protected; give the job a token and GITHUB_REPOSITORY so countersign can"
                + " open a pull request, or allow the token to push",
            noHost);
      }
      throw noHost;
    }
    if (refused) {
      progress.warning(
          "The remote refused the push to "
              + options.branch()
              + ": "
              + reconciled.detail().lines().findFirst().orElse("")
              + "; proposing the signing commit through a pull request from "
              + settings.botBranch()
              + " instead");
    }
    PullRequestPublisher publisher = publisher(pullRequests);
    switch (reconciled.outcome()) {
      case NOOP:
        return publisher.createOrUpdateBranch(
            new PromotionPlan(List.of()), Optional.empty(), new PullRequestPublisher.Nothing());
      case COMMITTED:
      case REFUSED:
        String commit =
            reconciled
                .commitId()
                .orElseThrow(
                    () ->
                        new InternalProblem("The reconcile job reported a commit but gave no id"));
        return publisher.createOrUpdateBranch(
            plan(commit, reconciled),
            publisher.botBranchTip(),
            new PullRequestPublisher.Commit(commit));
      default:
        throw new InternalProblem(
            "No pull request to propose for a " + reconciled.outcome() + " result");
    }
  }

  /**
   * The scheduled refresh: sign what changed in the work tree's unsigned directories and propose
   * it.
   */
  public PromotionResult refresh(
      SigningStep step, SignatureReuse reuse, GeneratedContentGate gate) {
    return new RefreshJob(
            workspace,
            publisher(host.get()),
            step,
            reader,
            format,
            facts,
            reuse,
            gate,
            options.authorship(),
            progress)
        .run(options.dirs(), options.remote());
  }

  private PullRequestPublisher publisher(PullRequestHost pullRequests) {
    return new PullRequestPublisher(workspace, pullRequests, options.remote(), progress, settings);
  }

  /** Rows for the signing commit: signed files added or changed, unsigned sources removed. */
  private PromotionPlan plan(String commit, ReconcileResult reconciled) {
    List<FileChange> changes = new ArrayList<>();
    for (String signed : reconciled.signedFiles()) {
      byte[] bytes =
          workspace
              .readFile(commit, signed)
              .orElseThrow(() -> new InternalProblem("The signing commit has no " + signed));
      boolean existed = workspace.readFile(PARENT, signed).isPresent();
      changes.add(
          facts
              .of(signed, bytes)
              .as(signed, existed ? FileChange.Change.CHANGED : FileChange.Change.ADDED));
    }
    for (DirPair pair : options.dirs()) {
      for (String source :
          new CommitManifests(workspace, ManifestTree.of(reader)).paths(PARENT, pair.from())) {
        if (workspace.readFile(commit, source).isEmpty()) {
          changes.add(FileChange.removed(source));
        }
      }
    }
    return new PromotionPlan(changes);
  }
}
