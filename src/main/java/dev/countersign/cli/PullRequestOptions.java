package dev.countersign.cli;

import dev.countersign.action.PromotionReport;
import dev.countersign.action.Reporter;
import dev.countersign.github.GitHubApi;
import dev.countersign.github.GitHubPullRequestHost;
import dev.countersign.pipeline.Progress;
import dev.countersign.promotion.PromotionBody;
import dev.countersign.promotion.PromotionResult;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.promotion.PullRequestHost;
import dev.countersign.support.ExitCode;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * How a promotion pull request looks. Shared by {@code run --mode pull-request} and {@code
 * promote}.
 */
final class PullRequestOptions {

  @Option(
      names = "--pr-branch",
      paramLabel = "BRANCH",
      description =
          "The branch countersign owns for the pull request and force-pushes with a lease (default:"
              + " countersign/sign-<branch> for run, countersign/promote-<to> for promote).")
  String prBranch;

  @Option(names = "--title", paramLabel = "TEXT", description = "Pull request title.")
  String title;

  @Option(
      names = "--label",
      paramLabel = "LABEL",
      split = ",",
      description = "Label to add (repeatable, or comma-separated).")
  List<String> labels = new ArrayList<>();

  @Option(
      names = "--reviewer",
      paramLabel = "LOGIN",
      split = ",",
      description = "User to request a review from (repeatable).")
  List<String> reviewers = new ArrayList<>();

  @Option(
      names = "--team-reviewer",
      paramLabel = "SLUG",
      split = ",",
      description = "Team to request a review from (repeatable).")
  List<String> teamReviewers = new ArrayList<>();

  @Option(
      names = "--assignee",
      paramLabel = "LOGIN",
      split = ",",
      description = "User to assign the pull request to (repeatable).")
  List<String> assignees = new ArrayList<>();

  @Option(
      names = "--body",
      paramLabel = "TEXT",
      description =
          "Text to put above the generated table in the pull request body (the table always"
              + " stays).")
  String body;

  @Option(names = "--draft", description = "Open the pull request as a draft.")
  boolean draft;

  @Option(
      names = "--delete-branch",
      description =
          "Delete the pull request branch when its pull request is closed because the base already"
              + " has the content.")
  boolean deleteBranch;

  PromotionSettings settings(
      String base,
      String defaultBranch,
      String defaultTitle,
      String verifyDirectory,
      PromotionBody.Purpose purpose) {
    return new PromotionSettings(
        base,
        Optional.ofNullable(prBranch).filter(b -> !b.isBlank()).orElse(defaultBranch),
        Optional.ofNullable(title).filter(t -> !t.isBlank()).orElse(defaultTitle),
        clean(labels),
        clean(reviewers),
        clean(teamReviewers),
        draft,
        deleteBranch,
        verifyDirectory,
        clean(assignees),
        Optional.ofNullable(body).orElse(""),
        purpose);
  }

  /**
   * GitHub at GITHUB_API_URL, repository GITHUB_REPOSITORY, with {@code token}; retries and waits
   * are reported to {@code progress}.
   *
   * @throws dev.countersign.support.problems.EnvironmentProblem without a token or repository
   */
  static GitHubApi api(Runtime runtime, Progress progress, Optional<String> token) {
    return GitHubApi.fromEnvironment(
        runtime.env(),
        token.orElse(null),
        runtime.clock(),
        new SecureRandom(),
        runtime.sleeper(),
        progress::info);
  }

  /** The pull request host on {@link #api}. */
  static PullRequestHost host(Runtime runtime, Progress progress, Optional<String> token) {
    return new GitHubPullRequestHost(api(runtime, progress, token));
  }

  /**
   * Reports a pull request result (outputs as {@link PromotionReport} describes, and a {@code
   * result:} line), then exits with its failure, if any, once the outputs name what exists.
   */
  static int report(
      Runtime runtime, Reporter reporter, PromotionResult result, PromotionSettings settings) {
    PromotionReport.publish(reporter, result, settings);
    runtime.out().println("result: " + result.outcome().word() + " (" + result.detail() + ")");
    result
        .failure()
        .ifPresent(
            failure -> {
              throw failure;
            });
    return result.outcome() == PromotionResult.Outcome.REJECTED
        ? ExitCode.REJECTED.code()
        : ExitCode.OK.code();
  }

  private static List<String> clean(List<String> values) {
    return values.stream()
        .flatMap(v -> Arrays.stream(v.split("\\R")))
        .map(String::strip)
        .filter(v -> !v.isEmpty())
        .toList();
  }
}
