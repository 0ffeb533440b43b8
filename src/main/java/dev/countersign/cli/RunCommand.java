package dev.countersign.cli;

import dev.countersign.action.GitHubEvent;
import dev.countersign.action.ReconcileReport;
import dev.countersign.action.Reporter;
import dev.countersign.action.RunTrigger;
import dev.countersign.action.WorkspaceOwnership;
import dev.countersign.git.GitIdentity;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.pipeline.DirPair;
import dev.countersign.pipeline.ManifestSigningStep;
import dev.countersign.pipeline.ReconcileJob;
import dev.countersign.pipeline.ReconcileOptions;
import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.pipeline.SigningStep;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SignJob;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

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
final class RunCommand implements Callable<Integer> {

  @ParentCommand RootCommand root;
  @Mixin SignerOptions signer;
  @Mixin SignCommand.FormatOptions format;
  @Mixin GitOptions git;

  @Option(
      names = "--unsigned-dir",
      paramLabel = "DIR",
      description = "Directory of manifests to sign (default: unsigned).")
  String unsignedDir;

  @Option(
      names = "--signed-dir",
      paramLabel = "DIR",
      description = "Directory signed manifests move to (default: signed).")
  String signedDir;

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

  // 32: keyless signing is bounded by Rekor round trips (one per manifest); 32 in flight cut
  // 500 manifests at 150 ms latency from ~9.5 s to ~8 s on 2 cores (docs/performance.md).
  @Option(
      names = "--parallel",
      paramLabel = "N",
      defaultValue = "32",
      description = "Signatures in flight at once (default: ${DEFAULT-VALUE}).")
  int parallel;

  @Option(
      names = "--dry-run",
      description = "Print the plan and change nothing (nothing is signed).")
  boolean dryRun;

  @Option(names = "--no-push", description = "Commit locally but do not push.")
  boolean noPush;

  @Option(
      names = "--no-sign",
      description =
          "Move manifests without signing them. For testing pipelines only: nothing in signed/ will"
              + " verify.")
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

  @Option(
      names = "--publish-to",
      paramLabel = "REGISTRY/REPOSITORY[:TAG]",
      description =
          "After the signing commit is pushed, publish the (first) signed directory at that commit"
              + " as a signed OCI artifact (see `publish`), with the same signer.")
  String publishTo;

  @Mixin RegistryOptions registryOptions;

  @Override
  public Integer call() {
    Runtime runtime = root.runtime();
    Env env = runtime.env();
    Reporter reporter = Reporter.forEnvironment(env, runtime.out(), runtime.err());
    // Secrets first: nothing may be printed before the runner knows to hide them. The Action
    // entry point has masked its inputs already; a --token typed on the command line is new.
    git.maskToken(env, reporter);

    Path workTree = git.workTree(env);
    boolean pullRequestMode = pullRequestMode();
    if (fromWorktree && !pullRequestMode) {
      throw new UsageProblem(
          "--from-worktree needs --mode pull-request",
          "add --mode pull-request (Action input mode: pull-request)");
    }
    if (fromWorktree && (dryRun || noPush || noSign)) {
      throw new UsageProblem(
          "--from-worktree cannot be combined with --dry-run, --no-push or --no-sign",
          "run the refresh without them; it changes nothing when the generated content is"
              + " unchanged");
    }
    dev.countersign.oci.OciReference publishTarget = null;
    if (publishTo != null) {
      publishTarget = dev.countersign.oci.OciReference.parse(publishTo, "--publish-to");
      if (noSign || fromWorktree || pullRequestMode || publishTarget.digest().isPresent()) {
        throw new UsageProblem(
            "--publish-to cannot be combined with --no-sign, --from-worktree, --mode pull-request"
                + " or a digest",
            "publish what a pushed signing commit holds: run in push mode, or use `countersign"
                + " publish` after the merge");
      }
    }
    Optional<RunTrigger.Reconcile> trigger = trigger(env, reporter);
    if (trigger.isEmpty()) {
      return ExitCode.OK.code();
    }
    WorkspaceOwnership ownership = WorkspaceOwnership.forProcess(workTree.toAbsolutePath());
    // Closed last: files are handed back on every way out (success, failure, SIGTERM).
    try (WorkspaceOwnership.HandBack handBack =
            ownership.handBackOnExit(workTree.toAbsolutePath(), runtime.err()::println);
        JGitWorkspace workspace =
            JGitWorkspace.open(workTree, runtime.clock(), ownership, pullRequest.receivePack)) {
      String target =
          trigger.get().branch().isEmpty()
              ? workspace
                  .currentBranch()
                  .orElseThrow(
                      () ->
                          new UsageProblem(
                              "No branch to reconcile: HEAD is detached and no --branch was given",
                              "pass --branch BRANCH"))
              : trigger.get().branch();
      PullRequests pullRequests = new PullRequests(runtime, reporter, git.pushToken(env));
      // GitHub already knows whether the push would be refused: then go straight to the pull
      // request instead of making a push that cannot succeed on every run.
      boolean proposeOnly =
          pullRequestMode
              || !dryRun
                  && !noPush
                  && mayHaveWork(workspace)
                  && protectedOnGitHub(env, pullRequests, target, reporter);
      ReconcileOptions options = options(env, workspace, target, proposeOnly);
      // One signer for the run: the artifact signature of --publish-to reuses its certificate.
      Supplier<MessageSigner> runSigner = memoized(signer.signerFactory(runtime, reporter::mask));
      SignJob signJob =
          new SignJob(
              format.reader(),
              format.format(),
              runSigner,
              ProgressReporters.insidePipeline(runtime));
      SignatureReuse reuse =
          new SignatureReuse(
              format.reader(),
              format.format(),
              signJob::signerIdentity,
              memoized(signer.verificationRoot()));
      ManifestSigningStep signingStep =
          new ManifestSigningStep(
              format.reader(),
              format.format(),
              signJob,
              Math.max(1, parallel),
              proposedSignatures(env, workspace, options, target, proposeOnly),
              reuse);
      // Nothing is pushed on a dry run or with --no-push, so nothing needs GitHub's API then.
      GitWorkspace publishing =
          dryRun || noPush ? workspace : git.publishing(workspace, pullRequests::api);
      SigningStep step = noSign ? SigningStep.moveOnly() : signingStep;
      if (noSign) {
        reporter.warning(
            "--no-sign: manifests are moved WITHOUT signatures; nothing in the signed directory"
                + " will verify");
      }
      if (fromWorktree) {
        return pullRequests(runtime, reporter, publishing, target, options, pullRequests)
            .refresh(step, reuse);
      }
      ReconcileResult result =
          new ReconcileJob(
                  publishing,
                  step,
                  reporter,
                  runtime.clock(),
                  runtime.sleeper(),
                  new SecureRandom(),
                  options,
                  dev.countersign.manifest.ManifestTree.of(format.reader()))
              .run();
      boolean propose =
          !noPush
              && !dryRun
              && (result.outcome() == ReconcileResult.Outcome.REFUSED
                  || proposeOnly && result.outcome() != ReconcileResult.Outcome.DRY_RUN);
      if (propose) {
        return pullRequests(runtime, reporter, publishing, target, options, pullRequests)
            .propose(result);
      }
      ReconcileReport.publish(reporter, result, noSign ? Map.of() : signingStep.entries());
      runtime
          .out()
          .println(
              "result: "
                  + ReconcileReport.name(result.outcome())
                  + " ("
                  + result.detail().lines().findFirst().orElse("")
                  + ")");
      int published =
          publishTo == null
              ? ExitCode.OK.code()
              : publishArtifact(runtime, reporter, workspace, options, result, runSigner, reuse);
      if (result.outcome() == ReconcileResult.Outcome.REFUSED) {
        throw new EnvironmentProblem(
            "The remote refused the push to " + target + ": " + result.detail(),
            "the branch is protected; sign through a pull request instead, or allow the token to"
                + " push");
      }
      return published;
    }
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
      ReconcileOptions options,
      ReconcileResult result,
      java.util.function.Supplier<dev.countersign.signing.MessageSigner> runSigner,
      SignatureReuse reuse) {
    if (result.outcome() != ReconcileResult.Outcome.PUSHED || result.commitId().isEmpty()) {
      reporter.info(
          "Nothing published: the run pushed no signing commit ("
              + ReconcileReport.name(result.outcome())
              + ")");
      return ExitCode.OK.code();
    }
    dev.countersign.oci.OciReference target =
        dev.countersign.oci.OciReference.parse(publishTo, "--publish-to");
    String commit = result.commitId().get();
    // Every published file verifies exactly for this run's signer (what it signed, or kept only
    // after that same check): the artifact is signed only over bytes verified here.
    dev.countersign.oci.CommitSource.Contents contents =
        dev.countersign.oci.CommitSource.read(
            workspace,
            workspace.directory().resolve(options.dirs().get(0).to()),
            commit,
            Optional.empty(),
            runtime.env(),
            format.reader(),
            reuse.verifier());
    if (!contents.verified()) {
      return PublishCommand.rejected(runtime, reporter, contents);
    }
    dev.countersign.oci.PublishJob.Result published =
        new dev.countersign.oci.PublishJob(
                registryOptions.registry(runtime, reporter, target),
                Optional.of(runSigner),
                PublishCommand.trustedRoot(signer),
                () -> signer.signingPublicKeys(runtime))
            .publish(target, contents.files(), contents.provenance());
    PublishCommand.report(runtime, reporter, published, contents);
    return ExitCode.OK.code();
  }

  private static <T> Supplier<T> memoized(Supplier<T> factory) {
    return new Supplier<>() {
      private T value;

      @Override
      public synchronized T get() {
        if (value == null) {
          value = factory.get();
        }
        return value;
      }
    };
  }

  /**
   * Signed files already proposed on the pull request branch, when this run may end in a pull
   * request (pull-request mode, or a push refused on a GitHub repository): reusing them when they
   * cover the same content for this run's signer ({@link SignatureReuse}) keeps a pending pull
   * request from being re-signed and updated on every run.
   */
  private java.util.function.Function<String, Optional<byte[]>> proposedSignatures(
      Env env,
      JGitWorkspace workspace,
      ReconcileOptions options,
      String target,
      boolean pullRequestMode) {
    boolean mayProposeAPullRequest =
        !dryRun
            && !noPush
            && !noSign
            && !fromWorktree
            && (pullRequestMode || env.get("GITHUB_REPOSITORY").isPresent());
    if (!mayProposeAPullRequest) {
      return path -> Optional.empty();
    }
    String botBranch =
        pullRequest
            .settings(
                target,
                dev.countersign.promotion.PromotionSettings.signBranch(target),
                "-",
                "-",
                dev.countersign.promotion.PromotionBody.Purpose.SIGN)
            .botBranch();
    // Looked up on first use only: a run with nothing to sign never asks the remote.
    Supplier<Optional<String>> tip =
        memoized(() -> workspace.fetchIfExists(options.remote(), botBranch));
    return path -> tip.get().flatMap(commit -> workspace.readFile(commit, path));
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

  private boolean pullRequestMode() {
    return switch (mode.strip().toLowerCase(java.util.Locale.ROOT)) {
      case "push" -> false;
      case "pull-request", "pull_request", "pr" -> true;
      default ->
          throw new UsageProblem("Unknown --mode \"" + mode + "\"", "use push or pull-request");
    };
  }

  /**
   * False when HEAD certainly leaves nothing to push (it is countersign's own commit, or no
   * unsigned directory holds a manifest), so a run with nothing to sign asks GitHub nothing. A
   * wrong "true" only costs the lookup.
   */
  private boolean mayHaveWork(JGitWorkspace workspace) {
    String head = workspace.headCommitId();
    if (dev.countersign.git.CommitMessage.trailer(
            workspace.lastCommitMessage(head), dev.countersign.git.CommitMessage.MARKER_TRAILER)
        .isPresent()) {
      return false;
    }
    // Entries only (names and sizes from object headers): no blob is loaded here.
    return dirPairs().stream()
        .anyMatch(
            pair ->
                workspace.entries(head, pair.from()).stream()
                    .anyMatch(
                        entry ->
                            dev.countersign.manifest.ManifestTree.isManifestName(entry.path())));
  }

  /**
   * True when GitHub says {@code target} is protected. Asked only where GitHub's API is known
   * ({@code GITHUB_API_URL}, set in every Actions job) with a repository and a token; any doubt (no
   * answer, an error) keeps the direct push, whose refusal still becomes a pull request.
   */
  private boolean protectedOnGitHub(
      Env env, PullRequests pullRequests, String target, Reporter reporter) {
    if (fromWorktree
        || env.get("GITHUB_API_URL").isEmpty()
        || env.get("GITHUB_REPOSITORY").isEmpty()) {
      return false;
    }
    try {
      if (pullRequests.host().isProtected(target).orElse(false)) {
        reporter.info(
            "GitHub says "
                + target
                + " is protected: proposing the signing commit through a pull request"
                + " instead of pushing it");
        return true;
      }
    } catch (dev.countersign.support.problems.CountersignException noAnswer) {
      // No token or repository: the push path decides, as without the lookup.
    }
    return false;
  }

  /**
   * The GitHub API and pull request host, built on first use and shared by every step of the run.
   */
  static final class PullRequests {
    private final Runtime runtime;
    private final Reporter reporter;
    private final Optional<String> token;
    private dev.countersign.github.GitHubApi api;

    PullRequests(Runtime runtime, Reporter reporter, Optional<String> token) {
      this.runtime = runtime;
      this.reporter = reporter;
      this.token = token;
    }

    dev.countersign.github.GitHubApi api() {
      if (api == null) {
        api = PullRequestOptions.api(runtime, reporter, token);
      }
      return api;
    }

    dev.countersign.promotion.PullRequestHost host() {
      return new dev.countersign.github.GitHubPullRequestHost(api());
    }
  }

  private RunPullRequests pullRequests(
      Runtime runtime,
      Reporter reporter,
      GitWorkspace workspace,
      String target,
      ReconcileOptions options,
      PullRequests pullRequests) {
    String signedDirectory = options.dirs().get(0).to();
    return new RunPullRequests(
        runtime,
        reporter,
        workspace,
        options,
        pullRequest.settings(
            target,
            dev.countersign.promotion.PromotionSettings.signBranch(target),
            fromWorktree
                ? "countersign: refresh signed manifests on " + target
                : "countersign: sign manifests on " + target,
            signedDirectory,
            dev.countersign.promotion.PromotionBody.Purpose.SIGN),
        pullRequests::host,
        format.reader(),
        format.format(),
        () -> signer.signingPublicKeys(runtime));
  }

  private ReconcileOptions options(
      Env env, JGitWorkspace workspace, String target, boolean pullRequestMode) {
    GitRemote gitRemote = git.remote(env, workspace);
    GitIdentity authorIdentity = git.author(env);
    GitIdentity committerIdentity = git.committer();
    return ReconcileOptions.builder(target, gitRemote)
        .dirs(dirPairs())
        .pushAttempts(pushAttempts)
        .author(authorIdentity)
        .committer(committerIdentity)
        .signoff(signoff)
        .commitSubject(commitMessage)
        .runId(env.getOrDefault("GITHUB_RUN_ID", "local"))
        .dryRun(dryRun)
        // In pull-request mode the commit goes to the pull request branch, never to the branch.
        .push(!noPush && !pullRequestMode)
        // A pull_request run may have checked out a merge ref that is not on the branch: start
        // from the branch itself so nothing else is pushed with the signing commit.
        .startFromRemote(
            env.get("GITHUB_EVENT_NAME").filter(e -> e.startsWith("pull_request")).isPresent())
        .backoff(Duration.ofSeconds(1))
        .build();
  }

  private List<DirPair> dirPairs() {
    if (!dirs.isEmpty()) {
      if (unsignedDir != null || signedDir != null) {
        throw new UsageProblem(
            "--dir cannot be combined with --unsigned-dir/--signed-dir", "use one or the other");
      }
      return dirs.stream().map(DirPair::parse).toList();
    }
    return List.of(
        DirPair.parse(
            Optional.ofNullable(unsignedDir).orElse("unsigned")
                + ":"
                + Optional.ofNullable(signedDir).orElse("signed")));
  }
}
