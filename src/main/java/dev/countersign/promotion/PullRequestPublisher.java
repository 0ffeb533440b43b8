package dev.countersign.promotion;

import static dev.countersign.git.CommitIds.abbreviate;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitIds;
import dev.countersign.git.CommitRequest;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.PushOutcome;
import dev.countersign.pipeline.Progress;
import dev.countersign.promotion.PromotionResult.Outcome;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.util.Objects;
import java.util.Optional;

/**
 * Create-or-update of one promotion pull request on a fixed bot branch. The callers ({@link
 * PromotionJob}, {@link RefreshJob}, the pipeline's pull-request mode) decide what the branch
 * should hold; {@link #createOrUpdateBranch} (their one entry point) puts it there and brings the
 * pull request in line:
 *
 * <ul>
 *   <li>nothing differs from the base: an open pull request from the bot branch is closed (and the
 *       branch deleted when asked), result {@code closed}; without one, {@code noop}, and a bot
 *       branch whose pull request a person merged is deleted when asked;
 *   <li>a new commit: force-pushed to the bot branch with a lease on the tip the caller saw
 *       (absent: only if the branch still does not exist), so a push someone else made since is
 *       never overwritten; then the pull request is opened ({@code created}), or its title and body
 *       updated ({@code updated}, also when opening found one already open);
 *   <li>the bot branch already holds the content (its tip has the base tip as its parent and
 *       exactly the tree of the new commit, files outside the signed directories included): the
 *       pull request is opened if missing, updated if its title, body or labels differ, else
 *       nothing at all is sent ({@code noop}).
 * </ul>
 *
 * <p>Order: everything is read and computed first (the open pull request included), so a failing
 * API stops the run before anything changed; then the branch is pushed; then the pull request is
 * written. If that last step fails, the result is {@code failed}: it names the branch and pull
 * request as they were left, and carries the problem for the caller to exit with after writing the
 * outputs. The next run heals it (it finds the branch holding the content and opens or updates the
 * pull request).
 *
 * @param workspace where the bot branch's commit is made and pushed from
 * @param host the pull request API
 * @param remote where the bot branch is pushed
 * @param settings the bot branch, base and pull request as configured
 */
public record PullRequestPublisher(
    GitWorkspace workspace,
    PullRequestHost host,
    GitRemote remote,
    Progress progress,
    PromotionSettings settings) {

  /**
   * The bot branch's tip on the remote, fetched so its tree can be read; empty when it does not
   * exist.
   */
  public Optional<String> botBranchTip() {
    return workspace.fetchIfExists(remote, settings.botBranch());
  }

  /** What the bot branch should hold on top of the base tip. */
  public sealed interface BranchContent {}

  /**
   * Nothing: the base already has everything (the plan is empty); an open pull request is closed.
   */
  public record Nothing() implements BranchContent {}

  /**
   * The base tip plus {@code changes}, committed in the workspace (reset, apply, commit; nothing
   * pushed yet) so the bot branch can be compared with it.
   */
  public record Changes(String baseCommit, ChangeSet changes, CommitRequest request)
      implements BranchContent {
    public Changes {
      Objects.requireNonNull(baseCommit, "baseCommit");
      Objects.requireNonNull(changes, "changes");
      Objects.requireNonNull(request, "request");
    }
  }

  /** A commit the caller made already on the base tip (the pipeline's signing commit at HEAD). */
  public record Commit(String commitId) implements BranchContent {
    public Commit {
      Objects.requireNonNull(commitId, "commitId");
    }
  }

  /**
   * The one way a bot branch is published (as create-pull-request's {@code createOrUpdateBranch}):
   * {@code content} is committed on the base tip and, unless the bot branch already holds that
   * commit's change ({@link #holds}), force-pushed with a lease on {@code botTip}; then the pull
   * request is opened, updated, closed or left alone as the class comment says.
   *
   * @param plan what the pull request proposes relative to the base; empty means the base already
   *     has everything (then {@code content} and {@code botTip} are not looked at)
   * @param botTip the bot branch tip the caller read ({@link #botBranchTip()}); the push is leased
   *     on it
   */
  public PromotionResult createOrUpdateBranch(
      PromotionPlan plan, Optional<String> botTip, BranchContent content) {
    if (plan.isEmpty()) {
      return publish(plan, Optional.empty(), Optional.empty());
    }
    String commit;
    if (content instanceof Changes changes) {
      workspace.resetTo(changes.baseCommit());
      commit = workspace.commit(changes.changes(), changes.request());
    } else if (content instanceof Commit made) {
      commit = made.commitId();
    } else {
      throw new IllegalArgumentException("A plan with changes needs content to publish");
    }
    return publish(plan, holds(botTip, commit) ? Optional.empty() : Optional.of(commit), botTip);
  }

  /**
   * The one test of "the bot branch already holds it": its tip makes the same change as {@code
   * commit}, the commit this run would push (same parent, the base tip, and the same whole tree,
   * not only the signed or target directories). Signatures that still cover the content are reused,
   * so an untouched bot branch passes and nothing is pushed; a commit anyone else added (a file
   * anywhere, an edit, history that a later commit undid) fails it, and the branch is rebuilt from
   * the base and force-pushed with the lease.
   */
  private boolean holds(Optional<String> botTip, String commit) {
    if (botTip.filter(tip -> workspace.sameChange(tip, commit)).isEmpty()) {
      return false;
    }
    progress.info(settings.botBranch() + " already holds this change");
    return true;
  }

  /**
   * @param plan what the pull request proposes relative to the base; empty means the base already
   *     has everything
   * @param newCommit a commit to put on the bot branch (HEAD of the workspace; its parent should be
   *     the base tip), or empty when the bot branch already holds {@code plan}
   * @param expectedTip the bot branch tip the caller computed against ({@link #botBranchTip()})
   */
  PromotionResult publish(
      PromotionPlan plan, Optional<String> newCommit, Optional<String> expectedTip) {
    Optional<PullRequest> open = host.findOpen(settings.botBranch(), settings.base());
    if (plan.isEmpty()) {
      BranchState nothingPushed = new BranchState(plan, Optional.empty(), Optional.empty());
      if (open.isEmpty()) {
        String deleted = settings.deleteBranch() ? deleteMergedBranch() : "";
        progress.info(
            "No-op: "
                + settings.base()
                + " already has the content; no pull request to open"
                + deleted);
        return nothingPushed.result(
            Outcome.NOOP, Optional.empty(), settings.base() + " already has the content" + deleted);
      }
      host.close(open.get());
      progress.info(
          "Closed pull request #"
              + open.get().number()
              + ": "
              + settings.base()
              + " already has its content");
      if (settings.deleteBranch()) {
        host.deleteBranch(settings.botBranch());
        progress.info("Deleted branch " + settings.botBranch());
      }
      return nothingPushed.result(
          Outcome.CLOSED,
          open,
          "closed #" + open.get().number() + ": " + settings.base() + " already has its content");
    }
    PullRequestDraft draft = settings.draftFor(plan);

    Optional<String> pushed = Optional.empty();
    if (newCommit.isPresent()) {
      PushOutcome outcome = workspace.pushWithLease(remote, settings.botBranch(), expectedTip);
      if (!(outcome instanceof PushOutcome.Pushed done)) {
        String why =
            outcome instanceof PushOutcome.Rejected r
                ? r.status() + " " + r.message()
                : ((PushOutcome.Refused) outcome).describe();
        throw new RemoteProblem(
            "The push to "
                + settings.botBranch()
                + " was rejected ("
                + why.strip()
                + "): it is no longer at "
                + expectedTip.map(CommitIds::abbreviate).orElse("\"absent\"")
                + ", so someone else pushed to it, while publishing the promotion pull request",
            "perhaps you should leave "
                + settings.botBranch()
                + " to countersign (or pass another --pr-branch)"
                + " and run again; nothing was overwritten");
      }
      // With API-made commits (sign_commits) the pushed commit is GitHub's, not the local one.
      pushed = Optional.of(done.commitId());
      progress.info("Pushed " + abbreviate(done.commitId()) + " to " + settings.botBranch());
    }

    BranchState branch = new BranchState(plan, pushed, pushed.or(() -> expectedTip));
    try {
      if (open.isEmpty()) {
        PullRequest created = host.create(draft);
        warn(created);
        if (created.adopted()) {
          progress.info(
              "Updated pull request #"
                  + created.number()
                  + " "
                  + created.url()
                  + " (it was already open)");
          return branch.result(
              Outcome.UPDATED,
              Optional.of(created),
              "updated #" + created.number() + ", which was already open");
        }
        progress.info("Opened pull request #" + created.number() + " " + created.url());
        return branch.result(Outcome.CREATED, Optional.of(created), "opened #" + created.number());
      }
      PullRequest current = open.get();
      boolean upToDate =
          current.title().equals(draft.title())
              && current.body().equals(draft.body())
              && current.labels().containsAll(draft.labels());
      if (upToDate && pushed.isEmpty()) {
        progress.info("No-op: pull request #" + current.number() + " is up to date");
        return branch.result(Outcome.NOOP, open, "#" + current.number() + " is up to date");
      }
      PullRequest updated = upToDate ? current : host.update(current, draft);
      warn(updated);
      progress.info("Updated pull request #" + updated.number() + " " + updated.url());
      return branch.result(Outcome.UPDATED, Optional.of(updated), "updated #" + updated.number());
    } catch (CountersignException failed) {
      String state =
          (pushed
                  .map(c -> settings.botBranch() + " now holds " + abbreviate(c))
                  .orElse(settings.botBranch() + " already held this content"))
              + open.map(
                      pr ->
                          " and pull request #"
                              + pr.number()
                              + " still describes what it held before")
                  .orElse(" but no pull request is open for it")
              + "; the next run "
              + (open.isPresent() ? "updates" : "opens")
              + " the pull request without signing again";
      return branch.failed(
          open, "the pull request step failed: " + state, withState(failed, state));
    }
  }

  /**
   * What this run left on the bot branch, shared by every result it returns.
   *
   * @param pushed the commit this run pushed, if any
   * @param head the bot branch tip after this run, if it exists
   */
  private record BranchState(PromotionPlan plan, Optional<String> pushed, Optional<String> head) {
    PromotionResult result(Outcome outcome, Optional<PullRequest> pullRequest, String detail) {
      return new PromotionResult(
          outcome, pullRequest, pushed, plan, detail, head, Optional.empty());
    }

    PromotionResult failed(
        Optional<PullRequest> pullRequest, String detail, CountersignException failure) {
      return new PromotionResult(
          Outcome.FAILED, pullRequest, pushed, plan, detail, head, Optional.of(failure));
    }
  }

  /** When a person merged the bot branch's pull request, the branch has served its purpose. */
  private String deleteMergedBranch() {
    Optional<String> tip = workspace.fetchIfExists(remote, settings.botBranch());
    if (tip.isEmpty() || !host.mergedAt(settings.botBranch(), settings.base(), tip.get())) {
      return "";
    }
    host.deleteBranch(settings.botBranch());
    progress.info("Deleted branch " + settings.botBranch() + ": its pull request was merged");
    return "; deleted " + settings.botBranch() + ", whose pull request was merged";
  }

  private void warn(PullRequest pullRequest) {
    pullRequest.warnings().forEach(progress::warning);
  }

  /** The same kind of problem, its message extended by what was left behind. */
  private static CountersignException withState(CountersignException failure, String state) {
    String message = failure.getMessage() + ". State left: " + state;
    if (failure instanceof RemoteProblem) {
      return new RemoteProblem(message, failure.hint().orElse(null), failure);
    }
    if (failure instanceof EnvironmentProblem) {
      return new EnvironmentProblem(message, failure.hint().orElse(null), failure);
    }
    return failure;
  }
}
