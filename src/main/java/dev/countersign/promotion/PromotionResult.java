package dev.countersign.promotion;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * What a promotion run did to its pull request.
 *
 * @param outcome see {@link Outcome}
 * @param pullRequest the pull request created, updated, left alone or closed; empty when there
 *     was none
 * @param commitId the commit pushed to the bot branch by this run, if any
 * @param plan the files the pull request proposes (empty for closed and for noop without one)
 * @param detail one line for logs and the job summary
 */
public record PromotionResult(
    Outcome outcome, Optional<PullRequest> pullRequest, Optional<String> commitId, PromotionPlan plan, String detail) {

  public PromotionResult {
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(pullRequest, "pullRequest");
    Objects.requireNonNull(commitId, "commitId");
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(detail, "detail");
  }

  /** The {@code result} output values. */
  public enum Outcome {
    /** A pull request was opened. */
    CREATED,
    /** The open pull request got a new commit, or a new title, body or labels. */
    UPDATED,
    /** The base branch already has the content: the open pull request was closed. */
    CLOSED,
    /** Nothing to change: no difference and no pull request, or the pull request is current. */
    NOOP;

    /** The word used for the {@code result} output. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }
}
