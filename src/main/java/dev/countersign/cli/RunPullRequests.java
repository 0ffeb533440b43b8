package dev.countersign.cli;

import dev.countersign.action.PromotionReport;
import dev.countersign.action.Reporter;
import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.pipeline.CommitManifests;
import dev.countersign.pipeline.DirPair;
import dev.countersign.pipeline.ReconcileOptions;
import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.pipeline.SigningStep;
import dev.countersign.promotion.CommitAuthorship;
import dev.countersign.promotion.FileChange;
import dev.countersign.promotion.PromotionPlan;
import dev.countersign.promotion.PromotionResult;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.promotion.PullRequestPublisher;
import dev.countersign.promotion.RefreshJob;
import dev.countersign.promotion.SignatureFacts;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InternalProblem;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The pull-request half of {@code countersign run}: proposing the signing commit through the bot
 * branch (pull-request mode, or a push the remote refused), and the scheduled refresh ({@code
 * --from-worktree}). Outputs as {@link PromotionReport} describes, plus {@code signed-files}.
 */
final class RunPullRequests {

  /** The parent of the signing commit: the branch tip it was made on. */
  private static final String PARENT = "HEAD~1";

  private final Runtime runtime;
  private final Reporter reporter;
  private final GitWorkspace workspace;
  private final ReconcileOptions options;
  private final PromotionSettings settings;
  private final Supplier<PullRequestHost> host;
  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final SignatureFacts facts;

  RunPullRequests(
      Runtime runtime,
      Reporter reporter,
      GitWorkspace workspace,
      ReconcileOptions options,
      PromotionSettings settings,
      Supplier<PullRequestHost> host,
      ManifestReader reader,
      SignedManifestFormat format,
      Supplier<List<PublicKey>> signingKeys) {
    this.runtime = runtime;
    this.reporter = reporter;
    this.workspace = workspace;
    this.options = options;
    this.settings = settings;
    this.host = host;
    this.reader = reader;
    this.format = format;
    this.facts = new SignatureFacts(reader, format, signingKeys);
  }

  /**
   * After the reconcile job: put its commit (if any) on the bot branch and open or update the pull
   * request.
   */
  int propose(ReconcileResult reconciled) {
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
      reporter.warning(
          "The remote refused the push to "
              + options.branch()
              + ": "
              + reconciled.detail().lines().findFirst().orElse("")
              + "; proposing the signing commit through a pull request from "
              + settings.botBranch()
              + " instead");
    }
    PullRequestPublisher publisher =
        new PullRequestPublisher(workspace, pullRequests, options.remote(), reporter, settings);
    PromotionResult result;
    switch (reconciled.outcome()) {
      case NOOP ->
          result =
              publisher.publish(new PromotionPlan(List.of()), Optional.empty(), Optional.empty());
      case COMMITTED, REFUSED -> {
        String commit =
            reconciled
                .commitId()
                .orElseThrow(
                    () ->
                        new InternalProblem("The reconcile job reported a commit but gave no id"));
        Optional<String> tip = publisher.botBranchTip();
        // The proposed signatures were reused when the content is unchanged, so the new commit
        // then holds what the bot branch already has: push nothing, leave the pull request be.
        Optional<String> newCommit =
            tip.filter(t -> workspace.sameTree(t, commit)).isPresent()
                ? Optional.empty()
                : Optional.of(commit);
        result = publisher.publish(plan(commit, reconciled), newCommit, tip);
      }
      default ->
          throw new InternalProblem(
              "No pull request to propose for a " + reconciled.outcome() + " result");
    }
    return report(result, reconciled.signedFiles());
  }

  /**
   * The scheduled refresh: sign what changed in the work tree's unsigned directories and propose
   * it.
   */
  int refresh(SigningStep step, SignatureReuse reuse) {
    PullRequestPublisher publisher =
        new PullRequestPublisher(workspace, host.get(), options.remote(), reporter, settings);
    PromotionResult result =
        new RefreshJob(
                workspace,
                publisher,
                step,
                reader,
                format,
                facts,
                reuse,
                new CommitAuthorship(
                    options.author(), options.committer(), options.runId(), options.signoff()),
                reporter)
            .run(options.dirs(), options.remote());
    return report(result, result.plan().changes().stream().map(FileChange::path).toList());
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

  private int report(PromotionResult result, List<String> signedFiles) {
    PromotionReport.publish(reporter, result, settings);
    reporter.output("signed-files", String.join("\n", signedFiles));
    runtime.out().println("result: " + result.outcome().word() + " (" + result.detail() + ")");
    result
        .failure()
        .ifPresent(
            failure -> {
              throw failure;
            });
    return ExitCode.OK.code();
  }
}
