package dev.countersign.action;

import dev.countersign.promotion.PromotionBody;
import dev.countersign.promotion.PromotionResult;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.promotion.PullRequest;
import dev.countersign.support.MarkdownText;

/**
 * Turns a {@link PromotionResult} into step outputs and the job summary.
 *
 * <p>Outputs, written for whatever exists even when the run fails afterwards: {@code result} is one
 * of {@code created|updated|closed|noop|failed|rejected}; {@code pull-request-number} and {@code
 * pull-request-url} name the pull request created, updated, left as it was or closed (empty when
 * there is none); {@code commit-sha} is the commit pushed to the bot branch by this run (empty when
 * none); {@code pull-request-branch} and {@code pull-request-head-sha} name the bot branch and its
 * tip when it holds the pull request's content (empty otherwise).
 */
public final class PromotionReport {

  private PromotionReport() {}

  public static void publish(
      Reporter reporter, PromotionResult result, PromotionSettings settings) {
    reporter.output("result", result.outcome().word());
    reporter.output(
        "pull-request-number",
        result.pullRequest().map(pr -> Integer.toString(pr.number())).orElse(""));
    reporter.output("pull-request-url", result.pullRequest().map(PullRequest::url).orElse(""));
    reporter.output("commit-sha", result.commitId().orElse(""));
    boolean branchInUse = result.pullRequest().isPresent() || result.headCommit().isPresent();
    reporter.output("pull-request-branch", branchInUse ? settings.botBranch() : "");
    reporter.output("pull-request-head-sha", result.headCommit().orElse(""));
    StringBuilder md =
        new StringBuilder("### countersign: pull request ")
            .append(result.outcome().word())
            .append("\n\n");
    md.append(MarkdownText.cell(result.detail())).append('\n');
    result
        .pullRequest()
        .ifPresent(pr -> md.append("\nPull request: ").append(pr.url()).append('\n'));
    if (!result.plan().isEmpty()) {
      // The same table the pull request shows, without its hidden marker and preamble.
      md.append('\n')
          .append(
              PromotionBody.render(
                      result.plan(), settings.verifyDirectory(), settings.purpose(), "")
                  .substring(PromotionBody.MARKER.length() + 1));
    }
    reporter.summary(md.toString());
  }
}
