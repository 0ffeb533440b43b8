package dev.countersign.cli;

import dev.countersign.doctor.ChainDoctor;
import dev.countersign.gate.GateReport;
import dev.countersign.init.GitHubRepository;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "doctor",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Check the chain from merged pull request to object admitted by Kyverno, joint by joint.",
      "Signing workflows' identities in the trust policy and every Kyverno policy, Kyverno coverage"
          + " of every kind and",
      "namespace, dry-run against server defaults, workflow permissions, action pinning, and the"
          + " signers of signed files.",
      "Exit 0 when it holds (warnings allowed), 1 when a finding is an error."
    })
final class DoctorCommand extends Subcommand {

  @Mixin RepoOption repo;

  @Mixin PolicyOption policy;

  @Mixin GitHubRepositoryOptions gitHub;

  @Option(
      names = "--branch",
      paramLabel = "BRANCH",
      description =
          "The branch scheduled and dispatched runs sign on (default: a pull request's base, the"
              + " pushed branch, else origin's default branch, else a checked-out main or master).")
  String branch;

  @Mixin FindingOutput output;

  @Override
  int call(Runtime runtime) {
    Path repository = repo.existingDirectory(runtime.env(), "doctor");
    if (!Files.isRegularFile(repository.resolve(policy.file))) {
      throw new UsageProblem(
          "No trust policy found at "
              + policy.file
              + " in "
              + repository
              + " while starting countersign doctor",
          "perhaps you should run \"countersign init\" first, or pass --policy FILE");
    }
    GitHubRepositoryOptions.Checkout checkout =
        GitHubRepositoryOptions.Checkout.of(repository, runtime.clock());
    GitHubRepository github = gitHub.repository(checkout, runtime.env(), Optional.empty());
    if (github.owner().isEmpty() || github.name().isEmpty()) {
      throw new UsageProblem(
          "The GitHub repository is unknown while starting countersign doctor: origin is "
              + checkout.describeOrigin(),
          "perhaps you should pass --owner OWNER --name NAME (signing identities name them)");
    }
    String defaultBranch =
        branch != null
            ? branch
            : runtime
                .env()
                .get("GITHUB_BASE_REF")
                .filter(r -> !r.isBlank())
                .or(
                    () ->
                        runtime
                            .env()
                            .get("GITHUB_REF")
                            .filter(r -> r.startsWith("refs/heads/"))
                            .map(r -> r.substring("refs/heads/".length())))
                .orElseGet(() -> checkout.mergeBranch("doctor"));

    GateReport report =
        new ChainDoctor(
                repository, policy.file, Optional.of(github), defaultBranch, new ManifestReader())
            .examine();

    return output.print(
        runtime,
        repository.toAbsolutePath(),
        report,
        "doctor",
        List.of(
            (report.passed() ? "doctor: the chain holds: " : "doctor: the chain is broken: ")
                + report.errors()
                + (report.errors() == 1 ? " finding" : " findings")
                + ", "
                + report.policiesApplied()
                + " Kyverno manifests rule"
                + (report.policiesApplied() == 1 ? "" : "s")
                + " read"));
  }
}
