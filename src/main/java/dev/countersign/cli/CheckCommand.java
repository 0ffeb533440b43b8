package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.action.WorkspaceOwnership;
import dev.countersign.gate.GateFinding;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GateReportFormats;
import dev.countersign.gate.MergeGate;
import dev.countersign.governance.PolicyFile;
import dev.countersign.governance.PolicyFileLoader;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.TrustedRoot;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

@Command(name = "check", mixinStandardHelpOptions = true, sortOptions = false,
    description = {"The merge gate: verify every signed manifest, validate every unsigned one, and apply the governance policies,",
        "as the trust policy describes them. Run it on the pull request's merge result.",
        "Exit 0 when everything passes, 1 when anything fails."})
final class CheckCommand implements Callable<Integer> {

  enum Output { text, json, sarif }

  @ParentCommand RootCommand root;

  @Option(names = "--repo", paramLabel = "DIR",
      description = "The checked-out work tree; finding paths are relative to it (default: GITHUB_WORKSPACE, else the current directory).")
  Path repo;

  @Option(names = "--policy", paramLabel = "FILE", defaultValue = ".countersign/policy.yaml",
      description = "The trust policy, relative to the repository (default: ${DEFAULT-VALUE}).")
  Path policy;

  @Option(names = "--trusted-root", paramLabel = "FILE",
      description = "Sigstore trusted_root.json for keyless signers (default: the public-good root via TUF, fetched only when needed).")
  Path trustedRoot;

  @Option(names = "--output", paramLabel = "FORMAT", defaultValue = "text",
      description = "text, json or sarif (default: ${DEFAULT-VALUE}).")
  Output output;

  @Option(names = "--sarif-file", paramLabel = "PATH",
      description = "Also write the findings as SARIF 2.1.0 here, for GitHub code scanning.")
  Path sarifFile;

  @Override
  public Integer call() {
    Runtime runtime = root.runtime();
    Path repository = repo != null ? repo : runtime.env().get("GITHUB_WORKSPACE").map(Path::of).orElse(Path.of("."));
    if (!Files.isDirectory(repository)) {
      throw new UsageProblem("The repository directory " + repository + " does not exist while starting countersign check",
          "perhaps you should pass --repo DIR, the checked-out work tree");
    }
    if (!Files.isRegularFile(repository.resolve(policy))) {
      throw new UsageProblem("No trust policy found at " + policy + " in " + repository + " while starting countersign check",
          "perhaps you should run \"countersign init\" and commit its files, or pass --policy FILE");
    }
    PolicyFile policyFile = new PolicyFileLoader().load(repository, policy);
    Supplier<TrustedRoot> roots =
        () -> trustedRoot != null ? TrustedRoot.fromFile(trustedRoot) : TrustedRoot.fromPublicGoodTuf(null);
    GateReport report = new MergeGate(repository, policyFile, new ManifestReader(), roots).check();

    PrintWriter out = runtime.out();
    boolean actions = runtime.env().inGitHubActions();
    if (actions) {
      // Workflow commands are read from stderr too; keep stdout machine-readable for json and sarif.
      annotate(Reporter.forEnvironment(runtime.env(), output == Output.text ? out : runtime.err(), runtime.err()), report);
    }
    switch (output) {
      case text -> {
        if (!actions) {
          GateReportFormats.findingLines(report).forEach(out::println);
        }
        GateReportFormats.summaryLines(report).forEach(out::println);
      }
      case json -> out.print(GateReportFormats.json(report));
      case sarif -> out.print(GateReportFormats.sarif(report, version()));
    }
    out.flush();
    if (sarifFile != null) {
      // In the Action the SARIF file lands in the workspace; the runner user must own it.
      Path workTree = repository.toAbsolutePath();
      try (WorkspaceOwnership.HandBack handBack =
          WorkspaceOwnership.forProcess(workTree).handBackOnExit(workTree, runtime.err()::println)) {
        writeSarif(report);
      }
    }
    return report.passed() ? ExitCode.OK.code() : ExitCode.REJECTED.code();
  }

  private static void annotate(Reporter reporter, GateReport report) {
    for (GateFinding finding : report.findings()) {
      Annotation at = (finding.line() > 0 ? Annotation.at(finding.uri(), finding.line()) : Annotation.at(finding.uri()))
          .withTitle("countersign " + finding.check().label());
      String message = finding.text() + " (" + finding.rule() + ")";
      if (finding.severity() == GateFinding.Severity.ERROR) {
        reporter.error(message, at);
      } else {
        reporter.warning(message, at);
      }
    }
    reporter.summary(GateReportFormats.markdown(report));
    reporter.output("result", report.passed() ? "passed" : "failed");
    reporter.output("errors", Long.toString(report.errors()));
    reporter.output("warnings", Long.toString(report.warnings()));
  }

  private void writeSarif(GateReport report) {
    try {
      Path parent = sarifFile.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(sarifFile, GateReportFormats.sarif(report, version()), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new EnvironmentProblem("Could not write the SARIF file " + sarifFile + " while reporting the check",
          "perhaps you should check that its directory is writable", e);
    }
  }

  private static String version() {
    try {
      return new RootCommand.Version().getVersion()[0].replaceFirst("^countersign ", "");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
