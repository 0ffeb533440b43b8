package dev.countersign.promotion;

import dev.countersign.support.Records;
import dev.countersign.support.problems.UsageProblem;
import java.util.List;

/**
 * How a promotion pull request is published.
 *
 * @param base the branch the pull request merges into
 * @param botBranch the branch countersign owns and force-pushes (with a lease) for it, e.g. {@code
 *     countersign/promote-prod}; nobody else should push to it
 * @param title the pull request title
 * @param labels labels to add (ones people added by hand stay)
 * @param reviewers user logins to request reviews from
 * @param teamReviewers team slugs to request reviews from
 * @param draft open as a draft (only at creation; GitHub cannot change it later)
 * @param deleteBranch delete the bot branch when its pull request is closed as no longer needed
 * @param verifyDirectory the directory the body's "verify locally" command checks
 * @param assignees user logins to assign the pull request to
 * @param bodyPreamble the user's text placed above the generated table ({@code --body}); blank for
 *     none
 * @param purpose what the body says the pull request does
 */
public record PromotionSettings(
    String base,
    String botBranch,
    String title,
    List<String> labels,
    List<String> reviewers,
    List<String> teamReviewers,
    boolean draft,
    boolean deleteBranch,
    String verifyDirectory,
    List<String> assignees,
    String bodyPreamble,
    PromotionBody.Purpose purpose) {

  public PromotionSettings {
    labels = List.copyOf(labels);
    reviewers = List.copyOf(reviewers);
    teamReviewers = List.copyOf(teamReviewers);
    assignees = List.copyOf(assignees);
    bodyPreamble = bodyPreamble == null ? "" : bodyPreamble;
    Records.requireNonNull(
        PromotionSettings.class,
        base,
        botBranch,
        title,
        labels,
        reviewers,
        teamReviewers,
        draft,
        deleteBranch,
        verifyDirectory,
        assignees,
        bodyPreamble,
        purpose);
    if (base.equals(botBranch)) {
      throw new UsageProblem(
          "The pull request branch " + botBranch + " is the base branch itself",
          "perhaps you should choose another --pr-branch");
    }
  }

  /**
   * {@code countersign/promote-<target>}: the target directory with {@code /} kept as path
   * separators.
   */
  public static String promoteBranch(String targetDirectory) {
    return "countersign/promote-" + slug(targetDirectory);
  }

  /** {@code countersign/sign-<base>}, the merged-PR pipeline's pull request branch. */
  public static String signBranch(String base) {
    return "countersign/sign-" + slug(base);
  }

  /** A branch-name-safe form of a directory or branch name. */
  static String slug(String name) {
    String s =
        name.replace('\\', '/')
            .replaceAll("[^A-Za-z0-9._/-]+", "-")
            .replaceAll("/+", "/")
            .replaceAll("^[/.-]+|[/.-]+$", "")
            .replace("..", "-");
    return s.isEmpty() ? "default" : s;
  }

  /** The draft for {@code body}. */
  PullRequestDraft draftFor(PromotionPlan plan) {
    return new PullRequestDraft(
        title,
        PromotionBody.render(plan, verifyDirectory, purpose, bodyPreamble),
        botBranch,
        base,
        labels,
        reviewers,
        teamReviewers,
        draft,
        assignees);
  }
}
