package dev.countersign.cli;

import dev.countersign.git.JGitWorkspace;
import dev.countersign.init.GitHubRepository;
import dev.countersign.support.Env;
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
   * What a work tree's git checkout says: its origin URL and checked-out branch, both empty where
   * the directory is no git checkout.
   */
  record Checkout(Optional<String> originUrl, Optional<String> branch) {

    static Checkout of(Path workTree, Clock clock) {
      if (!Files.exists(workTree.resolve(".git"))) {
        return new Checkout(Optional.empty(), Optional.empty());
      }
      try (JGitWorkspace workspace = JGitWorkspace.open(workTree, clock)) {
        return new Checkout(workspace.remoteUrl("origin"), workspace.currentBranch());
      }
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
