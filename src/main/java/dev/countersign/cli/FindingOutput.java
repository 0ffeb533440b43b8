package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.gate.GateFinding;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GateReportFormats;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code check} and {@code doctor} share when reporting findings: annotations, outputs, the
 * SARIF file.
 */
final class FindingOutput {

  private FindingOutput() {}

  /**
   * One annotation per finding, the job summary under {@code title}, and the result/errors/warnings
   * outputs.
   */
  static void annotate(Reporter reporter, GateReport report, String title) {
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
    reporter.summary(GateReportFormats.markdown(report, title));
    reporter.output("result", report.passed() ? "passed" : "failed");
    reporter.output("errors", Long.toString(report.errors()));
    reporter.output("warnings", Long.toString(report.warnings()));
  }

  static void writeSarif(Path sarifFile, GateReport report, String what) {
    try {
      Path parent = sarifFile.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      Files.writeString(
          sarifFile, GateReportFormats.sarif(report, version()), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write the SARIF file " + sarifFile + " while reporting the " + what,
          "perhaps you should check that its directory is writable",
          e);
    }
  }

  static String version() {
    try {
      return new RootCommand.Version().getVersion()[0].replaceFirst("^countersign ", "");
    } catch (IOException e) {
      return "unknown";
    }
  }
}
