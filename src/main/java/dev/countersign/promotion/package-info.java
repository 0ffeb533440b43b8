/**
 * Promotion pull requests: proposing signed manifests through a pull request on a branch
 * countersign owns, instead of pushing them.
 *
 * <p>{@link dev.countersign.promotion.PullRequestPublisher} is the shared create-or-update step
 * (leased force-push of the bot branch; open, update or close the pull request). The use cases
 * decide what the branch should hold: {@link dev.countersign.promotion.PromotionJob} (verify and
 * copy one environment directory to another) and {@link dev.countersign.promotion.RefreshJob}
 * (re-sign generated manifests whose content changed). The pipeline's pull-request mode lives in
 * {@link dev.countersign.promotion.SigningProposal}, used by {@code run.SigningRun}. The host is a
 * port ({@link dev.countersign.promotion.PullRequestHost}); the GitHub adapter is in {@code
 * dev.countersign.github}. See {@code docs/promotion.md}.
 */
package dev.countersign.promotion;
