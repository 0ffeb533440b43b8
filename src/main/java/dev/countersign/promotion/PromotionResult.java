package dev.countersign.promotion;

import dev.countersign.support.Records;
import dev.countersign.support.problems.CountersignException;
import java.util.Locale;
import java.util.Optional;

/**
 * What a promotion run did to its pull request.
 *
 * @param outcome see {@link Outcome}
 * @param pullRequest the pull request created, updated, left alone or closed; empty when there was
 *     none
 * @param commitId the commit pushed to the bot branch by this run, if any
 * @param plan the files the pull request proposes (empty for closed and for noop without one)
 * @param detail one line for logs and the job summary
 * @param headCommit the bot branch's tip after this run, when it holds the pull request's content
 *     (the commit pushed now, or the one already there)
 * @param failure with {@link Outcome#FAILED}: the problem to exit with once the outputs (which name
 *     what exists) are written
 */
public record PromotionResult(
    Outcome outcome,
    Optional<PullRequest> pullRequest,
    Optional<String> commitId,
    PromotionPlan plan,
    String detail,
    Optional<String> headCommit,
    Optional<CountersignException> failure) {

  public PromotionResult {
    Records.requireNonNull(
        PromotionResult.class, outcome, pullRequest, commitId, plan, detail, headCommit, failure);
    if (failure.isPresent() != (outcome == Outcome.FAILED)) {
      throw new IllegalArgumentException(
          "a failure goes with the FAILED outcome, and only with it");
    }
  }

  /** The {@code result} output values. */
  public enum Outcome {
    /** A pull request was opened. */
    CREATED,
    /**
     * The open pull request got a new commit, or a new title, body or labels; also when opening
     * found one already open (GitHub's 422) and brought that one up to date.
     */
    UPDATED,
    /** The base branch already has the content: the open pull request was closed. */
    CLOSED,
    /** Nothing to change: no difference and no pull request, or the pull request is current. */
    NOOP,
    /**
     * The pull request step failed after the bot branch was pushed (or while the pull request was
     * being updated); the outputs name what exists and the next run finishes the job.
     */
    FAILED,
    /**
     * The scheduled refresh: the base branch's rules refuse a generated manifest, so nothing was
     * signed or pushed and the pull request was left as it was.
     */
    REJECTED;

    /** The word used for the {@code result} output. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
