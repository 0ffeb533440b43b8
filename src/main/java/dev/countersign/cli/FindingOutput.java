package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.action.WorkspaceOwnership;
import dev.countersign.gate.GateFinding;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GateReportFormats;
import dev.countersign.support.AtomicWrites;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * {@code --output} and {@code --sarif-file}, and how the commands that report findings ({@code
 * check}, {@code doctor}) print them: annotations, outputs, the printed report, the SARIF file.
 */
final class FindingOutput {

  enum Format {
    text,
    json,
    sarif
  }

  @Option(
      names = "--output",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text, json or sarif (default: ${DEFAULT-VALUE}).")
  Format format;

  @Option(
      names = "--sarif-file",
      paramLabel = "PATH",
      description = "Also write the findings as SARIF 2.1.0 here, for GitHub code scanning.")
  Path sarifFile;

  /**
   * Reports the findings of {@code command} (check, doctor). In GitHub Actions: one annotation per
   * finding, the job summary and the result/errors/warnings outputs, on stderr unless the text
   * report is asked for (stdout stays machine-readable for json and sarif). On stdout: the report
   * in the {@code --output} format, the text one ending with {@code summary}. Then the SARIF file,
   * handed to the owner of {@code workTree} (in the Action it lands in the workspace).
   *
   * @return 0 when the report passed, 1 on findings
   */
  int print(
      Runtime runtime, Path workTree, GateReport report, String command, List<String> summary) {
    PrintWriter out = runtime.out();
    boolean actions = runtime.env().inGitHubActions();
    if (actions) {
      annotate(
          Reporter.forEnvironment(
              runtime.env(), format == Format.text ? out : runtime.err(), runtime.err()),
          report,
          "countersign " + command);
    }
    switch (format) {
      case text -> {
        if (!actions) {
          GateReportFormats.findingLines(report).forEach(out::println);
        }
        summary.forEach(out::println);
      }
      case json -> out.print(GateReportFormats.json(report));
      case sarif -> out.print(GateReportFormats.sarif(report, version()));
    }
    out.flush();
    if (sarifFile != null) {
      try (WorkspaceOwnership.HandBack handBack =
          WorkspaceOwnership.forProcess(workTree)
              .handBackOnExit(workTree, runtime.err()::println)) {
        writeSarif(workTree, report, command);
      }
    }
    return report.passed() ? ExitCode.OK.code() : ExitCode.REJECTED.code();
  }

  /**
   * One annotation per finding, the job summary under {@code title}, and the result/errors/warnings
   * outputs.
   */
  private static void annotate(Reporter reporter, GateReport report, String title) {
    annotate(reporter, report);
    reporter.summary(GateReportFormats.markdown(report, title));
    reporter.output("result", report.passed() ? "passed" : "failed");
    reporter.output("errors", Long.toString(report.errors()));
    reporter.output("warnings", Long.toString(report.warnings()));
  }

  /**
   * One annotation per finding, titled by its check (outside GitHub Actions, a line prefixed with
   * its file and line).
   */
  static void annotate(Reporter reporter, GateReport report) {
    for (GateFinding finding : report.findings()) {
      Annotation at =
          (finding.line() > 0
                  ? Annotation.at(finding.uri(), finding.line())
                  : Annotation.at(finding.uri()))
              .withTitle("countersign " + finding.check().label());
      String message = finding.text() + " (" + finding.rule() + ")";
      if (finding.severity() == GateFinding.Severity.ERROR) {
        reporter.error(message, at);
      } else {
        reporter.warning(message, at);
      }
    }
  }

  /**
   * The SARIF file, written without following links: inside the checkout a link is the pull request
   * author's, and the step runs as root.
   */
  private void writeSarif(Path workTree, GateReport report, String command) {
    try {
      AtomicWrites.writeFile(
          workTree,
          sarifFile,
          GateReportFormats.sarif(report, version()).getBytes(StandardCharsets.UTF_8));
    } catch (EnvironmentProblem e) {
      throw new EnvironmentProblem(
          "Could not write the SARIF file "
              + sarifFile
              + " while reporting the "
              + command
              + " findings",
          "perhaps you should check that its directory is writable",
          e);
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
