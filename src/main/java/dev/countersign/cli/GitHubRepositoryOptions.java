package dev.countersign.cli;

import dev.countersign.git.JGitWorkspace;
import dev.countersign.init.GitHubRepository;
import dev.countersign.support.Env;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --owner} and {@code --name}: the GitHub repository whose signing identities a command
 * writes or checks, when the origin URL does not say (init and doctor).
 */
final class GitHubRepositoryOptions {

  @Option(
      names = "--owner",
      paramLabel = "OWNER",
      description =
          "GitHub owner (user or organisation) (default: from the origin URL, else"
              + " GITHUB_REPOSITORY).")
  String owner;

  @Option(
      names = "--name",
      paramLabel = "NAME",
      description =
          "GitHub repository name (default: from the origin URL, else GITHUB_REPOSITORY).")
  String name;

  /**
   * What a work tree's git checkout says: its origin URL, checked-out branch and origin's default
   * branch, each empty where the checkout does not say (or the directory is no git checkout).
   */
  record Checkout(
      Optional<String> originUrl, Optional<String> branch, Optional<String> originDefaultBranch) {

    static Checkout of(Path workTree, Clock clock) {
      if (!Files.exists(workTree.resolve(".git"))) {
        return new Checkout(Optional.empty(), Optional.empty(), Optional.empty());
      }
      try (JGitWorkspace workspace = JGitWorkspace.open(workTree, clock)) {
        return new Checkout(
            workspace.remoteUrl("origin"),
            workspace.currentBranch(),
            workspace.remoteDefaultBranch("origin"));
      }
    }

    /**
     * The branch pull requests merge into, which the generated workflows sign on and the trust
     * policy trusts: origin's default branch; else the checked-out branch when it is main or
     * master; else main outside a git checkout.
     *
     * @throws UsageProblem when only some other checked-out branch could say: a working branch (the
     *     one adoption is prepared on, say) would then be signed on every push, unreviewed, and
     *     trusted
     */
    String mergeBranch(String command) {
      if (originDefaultBranch.isPresent()) {
        return originDefaultBranch.get();
      }
      if (branch.isEmpty() || branch.get().equals("main") || branch.get().equals("master")) {
        return branch.orElse("main");
      }
      throw new UsageProblem(
          "Cannot tell which branch pull requests merge into while starting countersign "
              + command
              + ": origin's default branch is not recorded (no refs/remotes/origin/HEAD) and the"
              + " checked-out branch is "
              + branch.get()
              + "; trusting signing on a working branch would sign every push to it unreviewed",
          "perhaps you should pass --branch BRANCH, the protected branch pull requests merge into"
              + " (or run git remote set-head origin --auto)");
    }

    /** The origin, for a message saying why it named no GitHub repository. */
    String describeOrigin() {
      return originUrl.map(u -> "\"" + u + "\", not a github.com URL").orElse("not set");
    }
  }

  /**
   * The repository: {@code --owner} and {@code --name} where given ({@code fallbackName} standing
   * in for an absent {@code --name}), the rest from the checkout's origin URL, else from {@code
   * GITHUB_REPOSITORY}; an owner or name nothing gives is empty.
   */
  GitHubRepository repository(Checkout checkout, Env env, Optional<String> fallbackName) {
    Optional<GitHubRepository> detected =
        checkout
            .originUrl()
            .flatMap(GitHubRepository::fromRemoteUrl)
            .or(() -> env.get("GITHUB_REPOSITORY").flatMap(GitHubRepository::fromSlug));
    return new GitHubRepository(
        Optional.ofNullable(owner).or(() -> detected.map(GitHubRepository::owner)).orElse(""),
        Optional.ofNullable(name)
            .or(() -> fallbackName)
            .or(() -> detected.map(GitHubRepository::name))
            .orElse(""));
  }
}
