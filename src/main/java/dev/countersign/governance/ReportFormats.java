package dev.countersign.governance;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.countersign.support.problems.InternalProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Renders a {@link GovernanceReport} as JSON, SARIF 2.1.0 (for GitHub code scanning) or a
 * Markdown table (for the job summary). Pure functions: the same report gives the same bytes,
 * with fields in a fixed order and findings in {@link PolicyFinding#ORDER}.
 */
public final class ReportFormats {

  public static final String TOOL_NAME = "countersign";
  public static final String SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json";
  public static final String INFORMATION_URI = "https://github.com/countersign/countersign";

  private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private ReportFormats() {}

  /** {@code {tool, passed, summary{errors,warnings,documents,policies}, findings[...]}}. */
  public static String json(GovernanceReport report) {
    Map<String, Object> root = new LinkedHashMap<>();
    root.put("tool", TOOL_NAME);
    root.put("passed", report.passed());
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("errors", report.errors());
    summary.put("warnings", report.warnings());
    summary.put("documents", report.documentsChecked());
    summary.put("policies", report.policiesApplied());
    root.put("summary", summary);
    List<Map<String, Object>> findings = new ArrayList<>();
    for (PolicyFinding finding : report.findings()) {
      Map<String, Object> item = new LinkedHashMap<>();
      item.put("file", uri(finding.file()));
      item.put("line", finding.line());
      item.put("severity", level(finding));
      item.put("rule", finding.ruleId());
      item.put("policy", finding.policy());
      item.put("validation", finding.validationIndex() == PolicyFinding.WHOLE_POLICY ? null : finding.validationIndex());
      item.put("object", finding.object());
      item.put("message", finding.message());
      findings.add(item);
    }
    root.put("findings", findings);
    return write(root);
  }

  /**
   * SARIF 2.1.0 with one run; one rule per policy validation that has findings, one result per
   * finding located by the file's repository-relative path and start line.
   */
  public static String sarif(GovernanceReport report, String toolVersion) {
    Map<String, Integer> ruleIndex = new LinkedHashMap<>();
    List<Map<String, Object>> rules = new ArrayList<>();
    List<Map<String, Object>> results = new ArrayList<>();
    for (PolicyFinding finding : report.findings()) {
      String id = finding.ruleId();
      if (!ruleIndex.containsKey(id)) {
        ruleIndex.put(id, rules.size());
        Map<String, Object> rule = new LinkedHashMap<>();
        rule.put("id", id);
        rule.put("shortDescription", Map.of("text", describeRule(finding)));
        rule.put("defaultConfiguration", Map.of("level", "error"));
        rules.add(rule);
      }
      Map<String, Object> physical = new LinkedHashMap<>();
      physical.put("artifactLocation", Map.of("uri", uri(finding.file())));
      if (finding.line() > 0) {
        physical.put("region", Map.of("startLine", finding.line()));
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("ruleId", id);
      result.put("ruleIndex", ruleIndex.get(id));
      result.put("level", level(finding));
      result.put("message", Map.of("text", finding.object().isEmpty() ? finding.message() : finding.object() + ": " + finding.message()));
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

  /** A heading, a one-line verdict and, when there are findings, a table of them. */
  public static String markdown(GovernanceReport report) {
    StringBuilder out = new StringBuilder("### countersign governance check\n\n");
    out.append(report.passed() ? "**Passed**" : "**Failed**")
        .append(": ")
        .append(plural(report.errors(), "error"))
        .append(", ")
        .append(plural(report.warnings(), "warning"))
        .append(" in ")
        .append(plural(report.documentsChecked(), "document"))
        .append(" checked against ")
        .append(plural(report.policiesApplied(), "policy", "policies"))
        .append(".\n");
    if (report.findings().isEmpty()) {
      return out.toString();
    }
    out.append("\n| Severity | File | Line | Object | Rule | Message |\n")
        .append("|---|---|---|---|---|---|\n");
    for (PolicyFinding finding : report.findings()) {
      out.append("| ").append(level(finding))
          .append(" | `").append(cell(uri(finding.file()))).append('`')
          .append(" | ").append(finding.line() > 0 ? String.valueOf(finding.line()) : "")
          .append(" | ").append(cell(finding.object()))
          .append(" | ").append(cell(finding.ruleId()))
          .append(" | ").append(cell(finding.message()))
          .append(" |\n");
    }
    return out.toString();
  }

  private static String describeRule(PolicyFinding finding) {
    return finding.validationIndex() == PolicyFinding.WHOLE_POLICY
        ? "ValidatingAdmissionPolicy " + finding.policy()
        : "ValidatingAdmissionPolicy " + finding.policy() + ", validation " + finding.validationIndex();
  }

  private static String level(PolicyFinding finding) {
    return finding.severity().name().toLowerCase(Locale.ROOT);
  }

  /** Repository-relative, forward slashes on every platform. */
  private static String uri(Path file) {
    return file.toString().replace('\\', '/');
  }

  /** Table cells cannot hold pipes or line breaks. */
  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\r", "").replace("\n", "<br>");
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
      throw new InternalProblem("Could not serialise the report while rendering it", null, e);
    }
  }
}
