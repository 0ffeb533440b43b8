package dev.countersign.cli;

import dev.countersign.action.GitHubEvent;
import dev.countersign.action.PromotionReport;
import dev.countersign.action.ReconcileReport;
import dev.countersign.action.Reporter;
import dev.countersign.action.RunTrigger;
import dev.countersign.gate.BaseCommit;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GeneratedManifestCheck;
import dev.countersign.gate.JudgedDirectories;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.github.GitHubApi;
import dev.countersign.github.GitHubPullRequestHost;
import dev.countersign.oci.CommitSource;
import dev.countersign.oci.OciReference;
import dev.countersign.oci.PublishJob;
import dev.countersign.pipeline.DirPair;
import dev.countersign.pipeline.ReconcileOptions;
import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.promotion.GeneratedContentGate;
import dev.countersign.promotion.PromotionBody;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.run.EarlySigning;
import dev.countersign.run.RunMode;
import dev.countersign.run.SigningRun;
import dev.countersign.signing.Parallelism;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.Memoized;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "run",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The merged-PR pipeline: sign the unsigned manifests, move them to the signed directory, push"
          + " one commit.",
      "Each file keeps its relative path. This is what the GitHub Action runs.",
      "Reads GITHUB_EVENT_NAME/GITHUB_EVENT_PATH when set: merged PRs, branch pushes, schedule and",
      "workflow_dispatch reconcile; other events are a no-op; pull_request_target is refused."
    })
final class RunCommand extends Subcommand {

  @Mixin SignerOptions signer;
  @Mixin SignCommand.FormatOptions format;
  @Mixin GitOptions git;

  @Mixin DirectoryOptions directories;

  @Option(
      names = "--dir",
      paramLabel = "FROM:TO",
      description =
          "A directory pair to reconcile (repeatable; replaces --unsigned-dir/--signed-dir).")
  List<String> dirs = new ArrayList<>();

  @Option(
      names = "--branch",
      paramLabel = "BRANCH",
      description =
          "Branch to reconcile and push to (default: from the event, else the checked-out branch).")
  String branch;

  @Option(
      names = "--push-attempts",
      paramLabel = "N",
      defaultValue = "3",
      description = "Push tries before giving up (default: ${DEFAULT-VALUE}).")
  int pushAttempts;

  @Option(names = "--signoff", description = "Add a Signed-off-by trailer for the author.")
  boolean signoff;

  @Option(
      names = "--commit-message",
      paramLabel = "SUBJECT",
      description = "First line of the commit message.")
  String commitMessage;

  @Mixin ParallelOption parallel;

  @Option(
      names = "--dry-run",
      description = "Print the plan and change nothing (nothing is signed).")
  boolean dryRun;

  @Option(names = "--no-push", description = "Commit locally but do not push.")
  boolean noPush;

  @Option(
      names = "--no-sign",
      description =
          "Move manifests as they are, without signing them. For testing pipelines only:"
              + " countersign signs nothing, so only a signature a file already carried (which"
              + " check refuses under unsigned/) could verify.")
  boolean noSign;

  @Option(
      names = "--mode",
      paramLabel = "MODE",
      defaultValue = "push",
      description = {
        "push (default): push the signing commit to the branch; when the remote refuses it (a"
            + " protected branch) it goes",
        "through a pull request instead. pull-request (or pr): always propose it through a pull"
            + " request. See docs/promotion.md."
      })
  String mode;

  @Option(
      names = "--from-worktree",
      description =
          "With --mode pull-request: sign the manifests an earlier step generated into the unsigned"
              + " directories of the work tree (uncommitted), only those whose content changed, and"
              + " propose the signed files (the scheduled refresh).")
  boolean fromWorktree;

  @Mixin PullRequestOptions pullRequest;

  @Mixin PolicyOption policy;

  @Option(
      names = "--publish-to",
      paramLabel = "REGISTRY/REPOSITORY[:TAG]",
      description =
          "After the signing commit is pushed, publish the (first) signed directory at that commit"
              + " as a signed OCI artifact (see `publish`), with the same signer.")
  String publishTo;

  @Mixin RegistryOptions registryOptions;

  @Override
  int call(Runtime runtime) {
    Env env = runtime.env();
    Reporter reporter = git.reporter(runtime);

    RunMode runMode = RunMode.of(mode, fromWorktree, dryRun, noPush, noSign);
    Parallelism inFlight = parallel.parallelism();
    Optional<OciReference> publishTarget = publishTarget(runMode);
    Optional<RunTrigger.Reconcile> trigger = trigger(env, reporter);
    if (trigger.isEmpty()) {
      return ExitCode.OK.code();
    }
    SignerOptions.Signing signing = signing(runtime, reporter);
    try (EarlySigning early =
            EarlySigning.start(
                signing.job(),
                signer.keyless(),
                runMode,
                noSign,
                dryRun,
                git.workTree(env),
                dirPairs());
        OwnedWorkspace owned = git.open(runtime)) {
      JGitWorkspace workspace = owned.git();
      // Before anything is planned or signed, in every mode: the checked-out commit's trust policy
      // must judge every pair this run signs from (see JudgedDirectories).
      JudgedDirectories.require(
          new BaseCommit(workspace, workspace.headCommitId()), policy.file, dirPairs());
      String target = targetBranch(trigger.get(), workspace);
      SigningRun.Result result =
          signingRun(runtime, reporter, workspace, signing, inFlight)
              .run(
                  new SigningRun.Request(
                      runMode,
                      noSign,
                      options(env, workspace, target),
                      proposal(runMode, target),
                      env.get("GITHUB_REPOSITORY").isPresent(),
                      env.get("GITHUB_API_URL").isPresent()
                          && env.get("GITHUB_REPOSITORY").isPresent()));
      return result instanceof SigningRun.Proposed proposed
          ? reportProposal(runtime, reporter, proposal(runMode, target), proposed)
          : reportReconciled(
              runtime,
              reporter,
              workspace,
              target,
              (SigningRun.Reconciled) result,
              publishTarget.isPresent() ? Optional.of(signing) : Optional.empty());
    }
  }

  /** The run's signing, with the --no-sign warning when it moves manifests unsigned. */
  private SignerOptions.Signing signing(Runtime runtime, Reporter reporter) {
    SignerOptions.Signing signing =
        signer.signing(runtime, reporter, format, ProgressReporters.insidePipeline(runtime));
    if (noSign) {
      reporter.warning(
          "--no-sign: manifests are moved as they are, WITHOUT countersign's signature; what"
              + " they move to the signed directory verifies only if it already carried a"
              + " signature");
    }
    return signing;
  }

  private SigningRun signingRun(
      Runtime runtime,
      Reporter reporter,
      JGitWorkspace workspace,
      SignerOptions.Signing signing,
      Parallelism inFlight) {
    Supplier<GitHubApi> api =
        Memoized.of(() -> PullRequestOptions.api(runtime, reporter, git.pushToken(runtime.env())));
    return new SigningRun(
        workspace,
        () -> git.publishing(workspace, api),
        () -> new GitHubPullRequestHost(api.get()),
        signing.job(),
        signing.reuse(),
        refreshGate(reporter),
        inFlight,
        format.reader(),
        format.format(),
        () -> signer.signingPublicKeys(runtime),
        reporter,
        runtime.clock(),
        runtime.sleeper(),
        new SecureRandom());
  }

  /**
   * The refresh's gate: the base commit's trust policy must name the run's pairs, as the
   * checked-out commit's must ({@link JudgedDirectories}), and names the governance policies; its
   * findings are reported as {@code check} reports them.
   */
  private GeneratedContentGate refreshGate(Reporter reporter) {
    return (git, baseCommit, generated) -> {
      BaseCommit base = new BaseCommit(git, baseCommit);
      // The content is signed for the base branch, whose tip may have dropped a pair since the
      // checkout: check verifies nothing there on the refresh's pull request or after it.
      JudgedDirectories.require(base, policy.file, dirPairs());
      GateReport report =
          new GeneratedManifestCheck(base.files(), policy.file, format.format(), format.reader())
              .check(generated);
      FindingOutput.annotate(reporter, report);
      return report.passed();
    };
  }

  /**
   * Outputs and summary of a run that did not end in a pull request; with {@code publishWith} (the
   * run's signing, for --publish-to) the pushed signing commit is published; a refused push with
   * nowhere to propose it is an environment problem.
   */
  private int reportReconciled(
      Runtime runtime,
      Reporter reporter,
      JGitWorkspace workspace,
      String target,
      SigningRun.Reconciled reconciled,
      Optional<SignerOptions.Signing> publishWith) {
    ReconcileResult result = reconciled.result();
    ReconcileReport.publish(reporter, result, reconciled.details());
    runtime
        .out()
        .println(
            "result: "
                + ReconcileReport.name(result.outcome())
                + " ("
                + result.detail().lines().findFirst().orElse("")
                + ")");
    int published =
        publishWith.isEmpty()
            ? ExitCode.OK.code()
            : publishArtifact(runtime, reporter, workspace, result, publishWith.get());
    if (result.outcome() == ReconcileResult.Outcome.REFUSED) {
      throw new EnvironmentProblem(
          "The remote refused the push to " + target + ": " + result.detail(),
          "the branch is protected; sign through a pull request instead, or allow the token to"
              + " push");
    }
    return published;
  }

  /** {@code --publish-to}, refused where what it would publish is not a pushed signing commit. */
  private Optional<OciReference> publishTarget(RunMode runMode) {
    if (publishTo == null) {
      return Optional.empty();
    }
    OciReference reference = OciReference.parse(publishTo, "--publish-to");
    if (noSign || runMode != RunMode.PUSH || reference.digest().isPresent()) {
      throw new UsageProblem(
          "--publish-to cannot be combined with --no-sign, --from-worktree, --mode pull-request"
              + " or a digest",
          "publish what a pushed signing commit holds: run in push mode, or use `countersign"
              + " publish` after the merge");
    }
    return Optional.of(reference);
  }

  private static String targetBranch(RunTrigger.Reconcile trigger, JGitWorkspace workspace) {
    if (!trigger.branch().isEmpty()) {
      return trigger.branch();
    }
    return workspace
        .currentBranch()
        .orElseThrow(
            () ->
                new UsageProblem(
                    "No branch to reconcile: HEAD is detached and no --branch was given",
                    "pass --branch BRANCH"));
  }

  /** The bot branch and its pull request for this run's proposals. */
  private PromotionSettings proposal(RunMode runMode, String target) {
    return pullRequest.settings(
        target,
        PromotionSettings.signBranch(target),
        runMode == RunMode.REFRESH
            ? "countersign: refresh signed manifests on " + target
            : "countersign: sign manifests on " + target,
        dirPairs().get(0).to(),
        PromotionBody.Purpose.SIGN);
  }

  /** Outputs as {@link PromotionReport} describes, plus {@code signed-files}. */
  private static int reportProposal(
      Runtime runtime,
      Reporter reporter,
      PromotionSettings settings,
      SigningRun.Proposed proposed) {
    reporter.output("signed-files", String.join("\n", proposed.signedFiles()));
    return PullRequestOptions.report(runtime, reporter, proposed.result(), settings);
  }

  /**
   * {@code --publish-to}: publishes the first signed directory as it is in the signing commit, only
   * once that commit is on the remote branch (content that was not pushed, or went to a pull
   * request, is not reviewed and gated yet, so it is not published).
   */
  private int publishArtifact(
      Runtime runtime,
      Reporter reporter,
      JGitWorkspace workspace,
      ReconcileResult result,
      SignerOptions.Signing signing) {
    if (result.outcome() != ReconcileResult.Outcome.PUSHED || result.commitId().isEmpty()) {
      reporter.info(
          "Nothing published: the run pushed no signing commit ("
              + ReconcileReport.name(result.outcome())
              + ")");
      return ExitCode.OK.code();
    }
    OciReference target = OciReference.parse(publishTo, "--publish-to");
    String commit = result.commitId().get();
    // Every published file verifies exactly for this run's signer (what it signed, or kept only
    // after that same check): the artifact is signed only over bytes verified here.
    CommitSource.Contents contents =
        CommitSource.read(
            workspace,
            workspace.directory().resolve(dirPairs().get(0).to()),
            commit,
            Optional.empty(),
            runtime.env(),
            format.reader(),
            signing.reuse().verifier());
    if (!contents.verified()) {
      return PublishCommand.rejected(runtime, reporter, contents);
    }
    PublishJob.Result published =
        new PublishJob(
                registryOptions.registry(runtime, reporter, target),
                Optional.of(signing.signer()),
                signer.verificationRoot(),
                () -> signer.signingPublicKeys(runtime))
            .publish(target, contents.files(), contents.provenance());
    PublishCommand.report(runtime, reporter, published, contents);
    return ExitCode.OK.code();
  }

  /** What the event says to do; empty (after reporting the reason) when it says nothing. */
  private Optional<RunTrigger.Reconcile> trigger(Env env, Reporter reporter) {
    if (env.get("GITHUB_EVENT_NAME").isEmpty()) {
      return Optional.of(
          new RunTrigger.Reconcile(Optional.ofNullable(branch).orElse(""), "run by hand"));
    }
    RunTrigger decision =
        RunTrigger.decide(GitHubEvent.read(env), env, Optional.ofNullable(branch));
    if (decision instanceof RunTrigger.Skip skip) {
      reporter.info("No-op: " + skip.reason());
      reporter.output("result", "noop");
      reporter.output("signed-files", "");
      reporter.output("commit-sha", "");
      return Optional.empty();
    }
    RunTrigger.Reconcile reconcile = (RunTrigger.Reconcile) decision;
    reporter.info("Reconciling " + reconcile.branch() + ": " + reconcile.reason());
    return Optional.of(reconcile);
  }

  /** The reconcile options as given: {@code push} is what the user allows, the run decides. */
  private ReconcileOptions.Builder options(Env env, JGitWorkspace workspace, String target) {
    return ReconcileOptions.builder(target, git.remote(env, workspace))
        .dirs(dirPairs())
        .pushAttempts(pushAttempts)
        .authorship(git.authorship(env, signoff))
        .commitSubject(commitMessage)
        .dryRun(dryRun)
        .push(!noPush)
        // A pull_request run may have checked out a merge ref that is not on the branch: start
        // from the branch itself so nothing else is pushed with the signing commit.
        .startFromRemote(
            env.get("GITHUB_EVENT_NAME").filter(e -> e.startsWith("pull_request")).isPresent())
        .backoff(Duration.ofSeconds(1));
  }

  private List<DirPair> dirPairs() {
    if (!dirs.isEmpty()) {
      if (directories.given()) {
        throw new UsageProblem(
            "--dir cannot be combined with --unsigned-dir/--signed-dir", "use one or the other");
      }
      return dirs.stream().map(DirPair::parse).toList();
    }
    return List.of(directories.pair());
  }
}
