package dev.countersign.gate;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.LogSafeJson;
import dev.countersign.support.MarkdownText;
import dev.countersign.support.problems.InternalProblem;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Renders a {@link GateReport}: text lines for a terminal, JSON, SARIF 2.1.0 for GitHub code
 * scanning, and Markdown for the job summary. Pure: the same report gives the same text.
 */
public final class GateReportFormats {

  public static final String TOOL_NAME = "countersign";
  public static final String SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
  public static final String INFORMATION_URI = "https://github.com/countersign/countersign";

  private static final ObjectMapper JSON = LogSafeJson.mapper();

  private GateReportFormats() {}

  /** One line per finding: {@code error file:line [check] object: message (rule)}. */
  public static List<String> findingLines(GateReport report) {
    return report.findings().stream()
        .map(
            f ->
                f.severity().label()
                    + " "
                    + f.location()
                    + " ["
                    + f.check().label()
                    + "] "
                    + f.text()
                    + " ("
                    + f.rule()
                    + ")")
        .toList();
  }

  /** The closing lines: what was looked at, then the verdict. */
  public static List<String> summaryLines(GateReport report) {
    return List.of(
        "signed:   "
            + plural(report.signedFiles(), "file")
            + ", "
            + report.verifiedDocuments()
            + " of "
            + plural(report.signedDocuments(), "document")
            + " verified",
        "unsigned: "
            + plural(report.unsignedFiles(), "file")
            + ", "
            + plural(report.unsignedDocuments(), "document")
            + ", "
            + plural(report.policiesApplied(), "governance policy", "governance policies")
            + " applied",
        (report.passed() ? "check passed: " : "check failed: ")
            + plural(report.errors(), "error")
            + ", "
            + plural(report.warnings(), "warning"));
  }

  /**
   * {@code {tool, passed, summary{...}, findings[{file,line,severity,check,rule,object,message}]}}.
   */
  public static String json(GateReport report) {
    return write(
        new JsonReport(
            TOOL_NAME,
            report.passed(),
            new JsonSummary(
                report.errors(),
                report.warnings(),
                report.signedFiles(),
                report.signedDocuments(),
                report.verifiedDocuments(),
                report.unsignedFiles(),
                report.unsignedDocuments(),
                report.policiesApplied()),
            report.findings().stream()
                .map(
                    f ->
                        new JsonFinding(
                            f.uri(),
                            f.line(),
                            f.severity().label(),
                            f.check().label(),
                            f.rule(),
                            f.object(),
                            f.message()))
                .toList()));
  }

  /** The JSON report; Jackson writes a record's fields in declaration order. */
  private record JsonReport(
      String tool, boolean passed, JsonSummary summary, List<JsonFinding> findings) {}

  private record JsonSummary(
      long errors,
      long warnings,
      int signedFiles,
      int signedDocuments,
      int verifiedDocuments,
      int unsignedFiles,
      int unsignedDocuments,
      int policies) {}

  private record JsonFinding(
      String file,
      int line,
      String severity,
      String check,
      String rule,
      String object,
      String message) {}

  /**
   * SARIF 2.1.0, one run, one rule per rule id that has findings, one result per finding located by
   * its repository-relative path (and start line when known).
   */
  public static String sarif(GateReport report, String toolVersion) {
    Map<String, Integer> ruleIndex = new LinkedHashMap<>();
    List<Map<String, Object>> rules = new ArrayList<>();
    List<Map<String, Object>> results = new ArrayList<>();
    for (GateFinding finding : report.findings()) {
      if (!ruleIndex.containsKey(finding.rule())) {
        ruleIndex.put(finding.rule(), rules.size());
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("id", finding.rule());
        rule.put("shortDescription", Map.of("text", describeRule(finding)));
        rule.put("defaultConfiguration", Map.of("level", "error"));
        rules.add(rule);
      }
      Map<String, Object> physical = new LinkedHashMap<>();
      physical.put("artifactLocation", Map.of("uri", finding.uri(), "uriBaseId", "%SRCROOT%"));
      if (finding.line() > 0) {
        physical.put("region", Map.of("startLine", finding.line()));
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("ruleId", finding.rule());
      result.put("ruleIndex", ruleIndex.get(finding.rule()));
      result.put("level", finding.severity().label());
      result.put("message", Map.of("text", finding.text()));
      result.put("locations", List.of(Map.of("physicalLocation", physical)));
      results.add(result);
    }
    Map<String, Object> driver = new LinkedHashMap<>();
    driver.put("name", TOOL_NAME);
    driver.put("version", toolVersion);
    driver.put("informationUri", INFORMATION_URI);
    driver.put("rules", rules);
    Map<String, Object> run = new LinkedHashMap<>();
    run.put("tool", Map.of("driver", driver));
    run.put("results", results);
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("$schema", SARIF_SCHEMA);
    root.put("version", "2.1.0");
    root.put("runs", List.of(run));
    return write(root);
  }

  /** A heading, the verdict and counts, and a table of findings when there are any. */
  public static String markdown(GateReport report) {
    return markdown(report, "countersign check");
  }

  /** {@link #markdown(GateReport)} under another heading, e.g. for {@code countersign doctor}. */
  public static String markdown(GateReport report, String title) {
    StringBuilder out = new StringBuilder("### " + title + "\n\n");
    out.append(report.passed() ? "**Passed**" : "**Failed**")
        .append(": ")
        .append(plural(report.errors(), "error"))
        .append(", ")
        .append(plural(report.warnings(), "warning"))
        .append(".\n\n")
        .append(row("Checked", "Files", "Documents", "Result"))
        .append("|---|---|---|---|\n")
        .append(
            row(
                "signed manifests",
                report.signedFiles(),
                report.signedDocuments(),
                report.verifiedDocuments() + " verified"))
        .append(
            row(
                "unsigned manifests",
                report.unsignedFiles(),
                report.unsignedDocuments(),
                plural(report.policiesApplied(), "governance policy", "governance policies")
                    + " applied"));
    if (report.findings().isEmpty()) {
      return out.toString();
    }
    out.append('\n')
        .append(row("Severity", "Check", "File", "Line", "Object", "Message"))
        .append("|---|---|---|---|---|---|\n");
    for (GateFinding f : report.findings()) {
      out.append(
          row(
              f.severity().label(),
              f.check().label(),
              f.uri(),
              f.line() > 0 ? String.valueOf(f.line()) : "",
              f.object(),
              f.message()));
    }
    return out.toString();
  }

  private static String describeRule(GateFinding finding) {
    return switch (finding.check()) {
      case SIGNATURE ->
          switch (finding.rule()) {
            case SignedChangeRules.RULE_ROLLBACK ->
                "A changed signed file is not older than the version it replaces";
            case SignedChangeRules.RULE_REPLAY ->
                "A changed signed file does not replay an earlier version of its path";
            case SignedChangeRules.RULE_PATH ->
                "A signed file holds only objects that belong at its path";
            case SignedChangeRules.RULE_DELETED -> "A signed file is deleted";
            default -> "Signed manifests must verify exactly against the trust policy";
          };
      case POLICY ->
          finding.rule().equals(RuleChanges.RULE_INVALID)
              ? "The gate's rules stay usable after the merge"
              : "Changes to the gate's rules take effect after the merge";
      case MANIFEST ->
          switch (finding.rule()) {
            case UnsignedManifestRules.RULE_NAME -> "Every object needs metadata.name";
            case UnsignedManifestRules.RULE_LIST -> "One Kubernetes object per YAML document";
            case UnsignedManifestRules.RULE_PRESET ->
                "Unsigned manifests carry no signature annotations";
            case UnsignedManifestRules.RULE_SIZE ->
                "The signed file's annotations fit Kubernetes' 256 KiB limit";
            case ServerDefaultingRule.RULE ->
                "Kyverno without dryRun rejects objects the API server defaults";
            default -> "Manifests must be readable Kubernetes YAML";
          };
      case GOVERNANCE -> "Governance rule " + finding.rule();
      case CHAIN ->
          "The signing chain (workflow, trust policy, Kyverno policy, manifests) must hold: "
              + finding.rule();
    };
  }

  /**
   * One Markdown table row of {@code cells}, each made inert ({@link MarkdownText#cell}): file
   * names, object names and messages come from the pull request under review.
   */
  private static String row(Object... cells) {
    return Arrays.stream(cells)
        .map(c -> MarkdownText.cell(String.valueOf(c)))
        .collect(Collectors.joining(" | ", "| ", " |\n"));
  }

  private static String plural(long count, String singular) {
    return plural(count, singular, singular + "s");
  }

  private static String plural(long count, String singular, String pluralForm) {
    return count + " " + (count == 1 ? singular : pluralForm);
  }

  private static String write(Object value) {
    try {
      return JSON.writeValueAsString(value).replace("\r\n", "\n") + "\n";
    } catch (JsonProcessingException e) {
      throw new InternalProblem("Could not serialise the check report while rendering it", null, e);
    }
  }
}
