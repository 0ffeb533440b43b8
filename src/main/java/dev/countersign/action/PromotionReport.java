package dev.countersign.action;

import dev.countersign.promotion.PromotionBody;
import dev.countersign.promotion.PromotionResult;
import dev.countersign.promotion.PullRequest;

/**
 * Turns a {@link PromotionResult} into step outputs and the job summary.
 *
 * <p>Outputs: {@code result} is one of {@code created|updated|closed|noop};
 * {@code pull-request-number} and {@code pull-request-url} name the pull request created, updated,
 * left as it was or closed (empty when there is none); {@code commit-sha} is the commit pushed to
 * the bot branch by this run (empty when none).
 */
public final class PromotionReport {

  private PromotionReport() {}

  /**
   * @param verifyDirectory the directory the summary's table is about, for its verify hint
   */
  public static void publish(Reporter reporter, PromotionResult result, String verifyDirectory) {
    reporter.output("result", result.outcome().word());
    reporter.output("pull-request-number", result.pullRequest().map(pr -> Integer.toString(pr.number())).orElse(""));
    reporter.output("pull-request-url", result.pullRequest().map(PullRequest::url).orElse(""));
    reporter.output("commit-sha", result.commitId().orElse(""));
    StringBuilder md = new StringBuilder("### countersign: pull request ").append(result.outcome().word()).append("\n\n");
    md.append(result.detail()).append('\n');
    result.pullRequest().ifPresent(pr -> md.append("\nPull request: ").append(pr.url()).append('\n'));
    if (!result.plan().isEmpty()) {
      // The same table the pull request shows, without its hidden marker.
      md.append('\n').append(PromotionBody.render(result.plan(), verifyDirectory).substring(PromotionBody.MARKER.length() + 1));
    }
    reporter.summary(md.toString());
  }
}
