package dev.countersign.run;

import dev.countersign.support.problems.UsageProblem;
import java.util.Locale;

/** What {@code countersign run} was asked to do with the signing commit. */
public enum RunMode {
  /** Push it to the branch; a push the remote refuses (a protected branch) becomes a proposal. */
  PUSH,
  /** Always propose it through the bot branch's pull request. */
  PULL_REQUEST,
  /**
   * The scheduled refresh: sign what an earlier step generated into the work tree's unsigned
   * directories and propose the signed files through the bot branch's pull request.
   */
  REFRESH;

  /**
   * The mode for the {@code --mode} word and {@code --from-worktree}, refusing combinations that
   * cannot mean anything.
   */
  public static RunMode of(
      String mode, boolean fromWorktree, boolean dryRun, boolean noPush, boolean noSign) {
    boolean pullRequest =
        switch (mode.strip().toLowerCase(Locale.ROOT)) {
          case "push" -> false;
          case "pull-request", "pull_request", "pr" -> true;
          default ->
              throw new UsageProblem("Unknown --mode \"" + mode + "\"", "use push or pull-request");
        };
    if (!fromWorktree) {
      return pullRequest ? PULL_REQUEST : PUSH;
    }
    if (!pullRequest) {
      throw new UsageProblem(
          "--from-worktree needs --mode pull-request",
          "add --mode pull-request (Action input mode: pull-request)");
    }
    if (dryRun || noPush || noSign) {
      throw new UsageProblem(
          "--from-worktree cannot be combined with --dry-run, --no-push or --no-sign",
          "run the refresh without them; it changes nothing when the generated content is"
              + " unchanged");
    }
    return REFRESH;
  }
}
