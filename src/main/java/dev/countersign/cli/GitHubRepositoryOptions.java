package dev.countersign.cli;

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
}
