package dev.countersign.cli;

import dev.countersign.action.Reporter;
import dev.countersign.doctor.ChainDoctor;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GateReportFormats;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.init.GitHubRepository;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

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
      "Exit 0 when it holds, 1 on findings."
    })
final class DoctorCommand implements Callable<Integer> {

  @ParentCommand RootCommand root;

  @Mixin RepoOption repo;

  @Mixin PolicyOption policy;

  @Mixin GitHubRepositoryOptions gitHub;

  @Option(
      names = "--branch",
      paramLabel = "BRANCH",
      description =
          "The branch scheduled and dispatched runs sign on (default: a pull request's base, the"
              + " pushed or checked-out branch, else main).")
  String branch;

  @Option(
      names = "--output",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text, json or sarif (default: ${DEFAULT-VALUE}).")
  CheckCommand.Output output;

  @Option(
      names = "--sarif-file",
      paramLabel = "PATH",
      description = "Also write the findings as SARIF 2.1.0 here.")
  Path sarifFile;

  @Override
  public Integer call() {
    Runtime runtime = root.runtime();
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
    Optional<String> originUrl = Optional.empty();
    Optional<String> headBranch = Optional.empty();
    if (Files.exists(repository.resolve(".git"))) {
      try (JGitWorkspace workspace = JGitWorkspace.open(repository, runtime.clock())) {
        originUrl = workspace.remoteUrl("origin");
        headBranch = workspace.currentBranch();
      }
    }
    Optional<GitHubRepository> detected =
        originUrl
            .flatMap(GitHubRepository::fromRemoteUrl)
            .or(() -> runtime.env().get("GITHUB_REPOSITORY").flatMap(GitHubRepository::fromSlug));
    Optional<GitHubRepository> github =
        gitHub.owner != null || gitHub.name != null
            ? Optional.of(
                new GitHubRepository(
                    gitHub.owner != null
                        ? gitHub.owner
                        : detected.map(GitHubRepository::owner).orElse(""),
                    gitHub.name != null
                        ? gitHub.name
                        : detected.map(GitHubRepository::name).orElse("")))
            : detected;
    if (github.isEmpty() || github.get().owner().isEmpty() || github.get().name().isEmpty()) {
      throw new UsageProblem(
          "The GitHub repository is unknown while starting countersign doctor: origin is "
              + originUrl.map(u -> "\"" + u + "\", not a github.com URL").orElse("not set"),
          "perhaps you should pass --owner OWNER --name NAME (signing identities name them)");
    }
    Optional<String> checkedOut = headBranch;
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
                .or(() -> checkedOut)
                .orElse("main");

    GateReport report =
        new ChainDoctor(repository, policy.file, github, defaultBranch, new ManifestReader())
            .examine();

    PrintWriter out = runtime.out();
    boolean actions = runtime.env().inGitHubActions();
    if (actions) {
      FindingOutput.annotate(
          Reporter.forEnvironment(
              runtime.env(),
              output == CheckCommand.Output.text ? out : runtime.err(),
              runtime.err()),
          report,
          "countersign doctor");
    }
    switch (output) {
      case text -> {
        if (!actions) {
          GateReportFormats.findingLines(report).forEach(out::println);
        }
        out.println(
            (report.passed() ? "doctor: the chain holds: " : "doctor: the chain is broken: ")
                + report.errors()
                + (report.errors() == 1 ? " finding" : " findings")
                + ", "
                + report.policiesApplied()
                + " Kyverno manifests rule"
                + (report.policiesApplied() == 1 ? "" : "s")
                + " read");
      }
      case json -> out.print(GateReportFormats.json(report));
      case sarif -> out.print(GateReportFormats.sarif(report, FindingOutput.version()));
    }
    out.flush();
    if (sarifFile != null) {
      FindingOutput.writeSarif(sarifFile, report, "doctor findings");
    }
    return report.passed() ? ExitCode.OK.code() : ExitCode.REJECTED.code();
  }
}
