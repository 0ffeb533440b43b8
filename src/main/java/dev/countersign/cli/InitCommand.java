package dev.countersign.cli;

import dev.countersign.init.InitOptions;
import dev.countersign.init.RepositoryInitializer;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

@Command(name = "init", sortOptions = false,
    description = {"Write the signing and merge-gate workflows, the trust policy, a Kyverno ClusterPolicy and an Argo CD Application.",
        "Refuses to overwrite existing files unless --force."})
final class InitCommand implements Callable<Integer> {

  @ParentCommand RootCommand root;

  @Option(names = "--owner", paramLabel = "OWNER",
      description = "GitHub owner (user or organisation) of the repository (default: from GITHUB_REPOSITORY).")
  String owner;

  @Option(names = "--repo", paramLabel = "REPO",
      description = "GitHub repository name (default: from GITHUB_REPOSITORY).")
  String repository;

  @Option(names = "--branch", paramLabel = "BRANCH", defaultValue = "main",
      description = "The branch pull requests merge into and the signer runs on (default: ${DEFAULT-VALUE}).")
  String branch;

  @Option(names = "--promotion", description = "Also write the promotion workflow.")
  boolean promotion;

  @Option(names = "--force", description = "Overwrite files that already exist.")
  boolean force;

  @Option(names = "--dir", paramLabel = "DIR", defaultValue = ".",
      description = "The repository's work tree to write into (default: the current directory).")
  Path dir;

  @Override
  public Integer call() {
    Runtime runtime = root.runtime();
    Optional<String[]> fromEnv = runtime.env().get("GITHUB_REPOSITORY")
        .map(value -> value.split("/", 2))
        .filter(parts -> parts.length == 2);
    String ownerName = owner != null ? owner : fromEnv.map(parts -> parts[0]).orElse(null);
    String repositoryName = repository != null ? repository : fromEnv.map(parts -> parts[1]).orElse(null);
    if (ownerName == null || repositoryName == null) {
      throw new UsageProblem("The GitHub " + (ownerName == null ? "owner" : "repository") + " is missing while preparing countersign init",
          "perhaps you should pass --owner OWNER --repo REPO (the signer identity names them)");
    }
    InitOptions options = InitOptions.of(ownerName, repositoryName, branch).withPromotion(promotion).withForce(force);
    List<Path> written = new RepositoryInitializer().write(dir, options);
    for (Path file : written) {
      runtime.out().println("wrote " + file.toString().replace('\\', '/'));
    }
    runtime.out().println("signer: " + options.signerSubject());
    runtime.out().println("next: commit these files, then require the check-on-pr status check on " + options.branch());
    return ExitCode.OK.code();
  }
}
