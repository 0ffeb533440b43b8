package dev.countersign.promotion;

import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.PushOutcome;
import dev.countersign.pipeline.Progress;
import dev.countersign.support.problems.RemoteProblem;
import java.util.Optional;

/**
 * Create-or-update of one promotion pull request on a fixed bot branch. The callers
 * ({@link PromotionJob}, {@link RefreshJob}, the pipeline's pull-request mode) decide what the
 * branch should hold; this class puts it there and brings the pull request in line:
 *
 * <ul>
 *   <li>nothing differs from the base: an open pull request from the bot branch is closed (and
 *       the branch deleted when asked), result {@code closed}; without one, {@code noop};
 *   <li>a new commit: force-pushed to the bot branch with a lease on the tip the caller saw
 *       (absent: only if the branch still does not exist), so a push someone else made since is
 *       never overwritten; then the pull request is opened, or its title and body updated;
 *   <li>the bot branch already holds the content: the pull request is opened if missing, updated
 *       if its title, body or labels differ, else nothing at all is sent ({@code noop}).
 * </ul>
 */
public final class PullRequestPublisher {

  private final GitWorkspace workspace;
  private final PullRequestHost host;
  private final GitRemote remote;
  private final Progress progress;
  private final PromotionSettings settings;

  public PullRequestPublisher(
      GitWorkspace workspace, PullRequestHost host, GitRemote remote, Progress progress, PromotionSettings settings) {
    this.workspace = workspace;
    this.host = host;
    this.remote = remote;
    this.progress = progress;
    this.settings = settings;
  }

  public PromotionSettings settings() {
    return settings;
  }

  /** The bot branch's tip on the remote, fetched so its tree can be read; empty when it does not exist. */
  public Optional<String> botBranchTip() {
    return workspace.fetchIfExists(remote, settings.botBranch());
  }

  /**
   * @param plan what the pull request proposes relative to the base; empty means the base already
   *     has everything
   * @param newCommit a commit to put on the bot branch (HEAD of the workspace; its parent should be
   *     the base tip), or empty when the bot branch already holds {@code plan}
   * @param expectedTip the bot branch tip the caller computed against ({@link #botBranchTip()})
   */
  public PromotionResult publish(PromotionPlan plan, Optional<String> newCommit, Optional<String> expectedTip) {
    Optional<PullRequest> open = host.findOpen(settings.botBranch(), settings.base());
    if (plan.isEmpty()) {
      if (open.isEmpty()) {
        progress.info("No-op: " + settings.base() + " already has the content; no pull request to open");
        return new PromotionResult(PromotionResult.Outcome.NOOP, Optional.empty(), Optional.empty(), plan,
            settings.base() + " already has the content");
      }
      host.close(open.get());
      progress.info("Closed pull request #" + open.get().number() + ": " + settings.base() + " already has its content");
      if (settings.deleteBranch()) {
        host.deleteBranch(settings.botBranch());
        progress.info("Deleted branch " + settings.botBranch());
      }
      return new PromotionResult(PromotionResult.Outcome.CLOSED, open, Optional.empty(), plan,
          "closed #" + open.get().number() + ": " + settings.base() + " already has its content");
    }

    if (newCommit.isPresent()) {
      PushOutcome pushed = workspace.pushWithLease(remote, settings.botBranch(), expectedTip);
      if (!(pushed instanceof PushOutcome.Pushed)) {
        String why = pushed instanceof PushOutcome.Rejected r ? r.status() + " " + r.message()
            : ((PushOutcome.Refused) pushed).describe();
        throw new RemoteProblem(
            "The push to " + settings.botBranch() + " was rejected (" + why.strip() + "): it is no longer at "
                + expectedTip.map(PullRequestPublisher::abbreviate).orElse("\"absent\"")
                + ", so someone else pushed to it, while publishing the promotion pull request",
            "perhaps you should leave " + settings.botBranch() + " to countersign (or pass another --pr-branch)"
                + " and run again; nothing was overwritten");
      }
      progress.info("Pushed " + abbreviate(newCommit.get()) + " to " + settings.botBranch());
    }

    PullRequestDraft draft = settings.draftFor(PromotionBody.render(plan, settings.verifyDirectory()));
    if (open.isEmpty()) {
      PullRequest created = host.create(draft);
      progress.info("Opened pull request #" + created.number() + " " + created.url());
      return new PromotionResult(PromotionResult.Outcome.CREATED, Optional.of(created), newCommit, plan,
          "opened #" + created.number());
    }
    PullRequest current = open.get();
    boolean upToDate = current.title().equals(draft.title()) && current.body().equals(draft.body())
        && current.labels().containsAll(draft.labels());
    if (upToDate && newCommit.isEmpty()) {
      progress.info("No-op: pull request #" + current.number() + " is up to date");
      return new PromotionResult(PromotionResult.Outcome.NOOP, open, Optional.empty(), plan,
          "#" + current.number() + " is up to date");
    }
    PullRequest updated = upToDate ? current : host.update(current, draft);
    progress.info("Updated pull request #" + updated.number() + " " + updated.url());
    return new PromotionResult(PromotionResult.Outcome.UPDATED, Optional.of(updated), newCommit, plan,
        "updated #" + updated.number());
  }

  static String abbreviate(String commitId) {
    return commitId.length() > 12 ? commitId.substring(0, 12) : commitId;
  }
}
