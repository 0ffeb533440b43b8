package dev.countersign.run;

import dev.countersign.git.CommitMessage;
import dev.countersign.git.GitWorkspace;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.pipeline.ManifestSigningStep;
import dev.countersign.pipeline.Progress;
import dev.countersign.pipeline.ReconcileJob;
import dev.countersign.pipeline.ReconcileOptions;
import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.pipeline.SigningStep;
import dev.countersign.promotion.FileChange;
import dev.countersign.promotion.GeneratedContentGate;
import dev.countersign.promotion.PromotionResult;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.promotion.SignatureFacts;
import dev.countersign.promotion.SigningProposal;
import dev.countersign.signing.Parallelism;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignReport;
import dev.countersign.support.Memoized;
import dev.countersign.support.Records;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.CountersignException;
import java.security.PublicKey;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.random.RandomGenerator;

/**
 * The use case behind {@code countersign run}: decides once ({@link #delivery}) whether the signing
 * commit stays local, is pushed (a refusal then becomes a proposal) or is proposed through the bot
 * branch's pull request, then runs the {@link ReconcileJob} or the refresh and proposes as decided.
 * The command maps its options to a {@link Request} and reports the {@link Result}.
 *
 * @param workspace the checkout
 * @param publishing the workspace pushes go through ({@code workspace}, or one that makes commits
 *     through GitHub's API); asked only when something may be pushed
 * @param host GitHub's pull requests, built on first use (may throw when GitHub is unknown)
 * @param parallel signatures in flight at once (a number chosen, or the signer's suggestion)
 * @param refreshGate judges the refresh's generated manifests by the base commit's rules before it
 *     signs any
 */
public record SigningRun(
    GitWorkspace workspace,
    Supplier<GitWorkspace> publishing,
    Supplier<PullRequestHost> host,
    SignJob signJob,
    SignatureReuse reuse,
    GeneratedContentGate refreshGate,
    Parallelism parallel,
    ManifestReader reader,
    SignedManifestFormat format,
    Supplier<List<PublicKey>> signingKeys,
    Progress progress,
    Clock clock,
    Sleeper sleeper,
    RandomGenerator random) {

  public SigningRun {
    host = Memoized.of(host);
  }

  /** How the signing commit leaves this machine. */
  public enum Delivery {
    /** Dry run or {@code --no-push}: nothing leaves. */
    LOCAL,
    /** Pushed to the branch; a refused push is proposed through the pull request instead. */
    PUSH,
    /** Proposed through the bot branch's pull request, never pushed to the branch. */
    PROPOSE
  }

  /**
   * What to run.
   *
   * @param mode what the user asked for
   * @param noSign move manifests without signing them ({@code --no-sign})
   * @param options the reconcile job's options as the user gave them ({@code push} false for {@code
   *     --no-push}); the delivery decides the push, so they are built here
   * @param proposal the bot branch and its pull request
   * @param gitHubRepository the run knows its GitHub repository, so a refused push can become a
   *     pull request
   * @param gitHubApi GitHub's API and the repository are known, so GitHub can be asked whether the
   *     branch is protected
   */
  public record Request(
      RunMode mode,
      boolean noSign,
      ReconcileOptions.Builder options,
      PromotionSettings proposal,
      boolean gitHubRepository,
      boolean gitHubApi) {
    public Request {
      Records.requireNonNull(
          Request.class, mode, noSign, options, proposal, gitHubRepository, gitHubApi);
    }
  }

  /** How the run ended. */
  public sealed interface Result {}

  /**
   * The reconcile job's result, kept local or pushed (or refused with nowhere to propose it).
   *
   * @param details what the signing step recorded per written file, for the job summary
   */
  public record Reconciled(ReconcileResult result, Map<String, SignReport.Entry> details)
      implements Result {}

  /**
   * The signing commit (or the refresh) went to the bot branch's pull request.
   *
   * @param signedFiles the signed files the run wrote
   */
  public record Proposed(PromotionResult result, List<String> signedFiles) implements Result {}

  /**
   * Runs as {@link #delivery} decides. A run that fails (a problem thrown, a refused push with
   * nowhere to propose it, a pull request step that failed) puts the checkout back where it found
   * it ({@link GitWorkspace#restore}): HEAD on its branch at its commit, {@code unsigned/} as it
   * was, and no unpushed signing commit left at HEAD that the loop guard would take for a finished
   * run when the job runs countersign again. A run that pushed leaves HEAD, the branch it started
   * on and the remote-tracking ref at the pushed commit ({@link GitWorkspace#recordPush}), when the
   * checkout has it: a commit GitHub made through its API that a shallow fetch could not bring is
   * left to the remote, and HEAD keeps the local commit of the same change.
   */
  public Result run(Request request) {
    GitWorkspace.Checkout start = workspace.checkout();
    Result result = GitWorkspace.restoringOnThrow(workspace, start, () -> deliver(request));
    if (failed(result)) {
      workspace.restore(start);
    } else if (result instanceof Reconciled reconciled
        && reconciled.result().outcome() == ReconcileResult.Outcome.PUSHED
        && reconciled.result().commitId().orElseThrow().equals(workspace.headCommitId())) {
      // After a lost race the branch still holds the first attempt's commit, which was never
      // pushed, and HEAD is detached at the one that was: both are set to what the remote has.
      // Not when GitHub made the pushed commit (sign_commits) and the fetch could not bring it
      // (a push landed on top of it, one commit deep): HEAD keeps the local commit of that change.
      ReconcileOptions options = request.options().build();
      workspace.recordPush(
          start, options.remote(), options.branch(), reconciled.result().commitId().orElseThrow());
    }
    return result;
  }

  /** True for a result the command reports as a failure (a non-zero exit). */
  private static boolean failed(Result result) {
    return result instanceof Reconciled reconciled
            && reconciled.result().outcome() == ReconcileResult.Outcome.REFUSED
        || result instanceof Proposed proposed
            && (proposed.result().outcome() == PromotionResult.Outcome.FAILED
                || proposed.result().outcome() == PromotionResult.Outcome.REJECTED);
  }

  private Result deliver(Request request) {
    ReconcileOptions asked = request.options().build();
    Delivery delivery = delivery(request.mode(), asked, request.gitHubApi());
    ReconcileOptions options = request.options().push(delivery == Delivery.PUSH).build();
    // Nothing is pushed on a dry run or with --no-push, so nothing needs GitHub's API then.
    GitWorkspace target = delivery == Delivery.LOCAL ? workspace : publishing.get();
    ManifestSigningStep signingStep =
        new ManifestSigningStep(
            reader, signJob, parallel, proposedSignatures(request, delivery, options), reuse);
    SigningStep step = request.noSign() ? SigningStep.moveOnly() : signingStep;
    SigningProposal proposal =
        new SigningProposal(
            target,
            options,
            request.proposal(),
            host,
            reader,
            format,
            new SignatureFacts(reader, format, signingKeys),
            progress);
    if (request.mode() == RunMode.REFRESH) {
      PromotionResult result = proposal.refresh(step, reuse, refreshGate);
      return new Proposed(result, result.plan().changes().stream().map(FileChange::path).toList());
    }
    ReconcileResult result =
        new ReconcileJob(target, step, progress, clock, sleeper, random, options, tree()).run();
    boolean propose =
        delivery == Delivery.PROPOSE
            || delivery == Delivery.PUSH && result.outcome() == ReconcileResult.Outcome.REFUSED;
    if (propose) {
      return new Proposed(proposal.propose(result), result.signedFiles());
    }
    return new Reconciled(result, request.noSign() ? Map.of() : signingStep.entries());
  }

  /**
   * The one place that decides push or proposal. GitHub already knows whether the push would be
   * refused: then the run goes straight to the pull request instead of making a push that cannot
   * succeed on every run.
   */
  private Delivery delivery(RunMode mode, ReconcileOptions asked, boolean gitHubApi) {
    if (asked.dryRun() || !asked.push()) {
      return Delivery.LOCAL;
    }
    if (mode != RunMode.PUSH) {
      return Delivery.PROPOSE;
    }
    return gitHubApi && mayHaveWork(asked) && protectedOnGitHub(asked.branch())
        ? Delivery.PROPOSE
        : Delivery.PUSH;
  }

  /**
   * Signed files already proposed on the bot branch, when this run may end in a pull request:
   * reusing them when they cover the same content for this run's signer ({@link SignatureReuse})
   * keeps a pending pull request from being re-signed and updated on every run.
   */
  private Function<String, Optional<byte[]>> proposedSignatures(
      Request request, Delivery delivery, ReconcileOptions options) {
    boolean mayPropose =
        delivery == Delivery.PROPOSE || delivery == Delivery.PUSH && request.gitHubRepository();
    if (request.noSign() || request.mode() == RunMode.REFRESH || !mayPropose) {
      return path -> Optional.empty();
    }
    String botBranch = request.proposal().botBranch();
    // Looked up on first use only: a run with nothing to sign never asks the remote.
    Supplier<Optional<String>> tip =
        Memoized.of(() -> workspace.fetchIfExists(options.remote(), botBranch));
    return path -> tip.get().flatMap(commit -> workspace.readFile(commit, path));
  }

  /**
   * False when HEAD certainly leaves nothing to push (it is countersign's own commit, or no
   * unsigned directory holds a manifest), so a run with nothing to sign asks GitHub nothing. A
   * wrong "true" only costs the lookup. A wrong "false" (a pull request author can end a squash
   * merge's message with the marker trailer; only {@link ReconcileJob} checks the committer and the
   * changes too) only skips it: the run still signs, and a protected branch is then found by the
   * push's refusal, which leads to the same pull request.
   */
  private boolean mayHaveWork(ReconcileOptions options) {
    String head = workspace.headCommitId();
    if (CommitMessage.trailer(workspace.lastCommitMessage(head), CommitMessage.MARKER_TRAILER)
        .isPresent()) {
      return false;
    }
    // Entries only (names and sizes from object headers): no blob is loaded here.
    return options.dirs().stream()
        .anyMatch(
            pair ->
                workspace.entries(head, pair.from()).stream()
                    .anyMatch(entry -> ManifestTree.isManifestName(entry.path())));
  }

  /**
   * True when GitHub says {@code branch} is protected; any doubt (no answer, an error) keeps the
   * direct push, whose refusal still becomes a pull request.
   */
  private boolean protectedOnGitHub(String branch) {
    try {
      if (host.get().isProtected(branch).orElse(false)) {
        progress.info(
            "GitHub says "
                + branch
                + " is protected: proposing the signing commit through a pull request"
                + " instead of pushing it");
        return true;
      }
    } catch (CountersignException noAnswer) {
      // No token or repository: the push path decides, as without the lookup.
    }
    return false;
  }

  private ManifestTree tree() {
    return ManifestTree.of(reader);
  }
}
