package dev.countersign.governance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.governance.PolicyFinding.Severity;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportFormatsTest {

  private static final PolicyFinding INGRESS =
      new PolicyFinding(Path.of("signed/net/allow-all.yaml"), 12, "deny-allow-all-ingress", 0,
          "NetworkPolicy/shop/allow-all", "a NetworkPolicy must not allow ingress from everywhere", Severity.ERROR);
  private static final PolicyFinding LABEL =
      new PolicyFinding(Path.of("signed/api.yaml"), 1, "require-team-label", 0,
          "Deployment/api", "every Deployment needs a team label | owner", Severity.ERROR);
  private static final PolicyFinding LABEL_WARNING =
      new PolicyFinding(Path.of("signed/api.yaml"), 1, "no-nodeport", 1,
          "Service/api", "expression 'x' resulted in error:\nno such key", Severity.WARNING);
  private static final PolicyFinding BROKEN =
      new PolicyFinding(Path.of("policies/broken.yaml"), 0, "broken", PolicyFinding.WHOLE_POLICY,
          "", "matchCondition 'a' does not compile", Severity.ERROR);

  private static final GovernanceReport REPORT =
      new GovernanceReport(List.of(INGRESS, LABEL, LABEL_WARNING), 4, 3);

  @Test
  void json_report_hasStableFieldOrderAndSortedFindings() {
    assertThat(ReportFormats.json(new GovernanceReport(List.of(INGRESS, BROKEN), 2, 2)))
        .isEqualTo(
            """
            {
              "tool" : "countersign",
              "passed" : false,
              "summary" : {
                "errors" : 2,
                "warnings" : 0,
                "documents" : 2,
                "policies" : 2
              },
              "findings" : [ {
                "file" : "policies/broken.yaml",
                "line" : 0,
                "severity" : "error",
                "rule" : "broken",
                "policy" : "broken",
                "validation" : null,
                "object" : "",
                "message" : "matchCondition 'a' does not compile"
              }, {
                "file" : "signed/net/allow-all.yaml",
                "line" : 12,
                "severity" : "error",
                "rule" : "deny-allow-all-ingress/validations/0",
                "policy" : "deny-allow-all-ingress",
                "validation" : 0,
                "object" : "NetworkPolicy/shop/allow-all",
                "message" : "a NetworkPolicy must not allow ingress from everywhere"
              } ]
            }
            """);
  }

  @Test
  void json_noFindings_passes() throws Exception {
    JsonNode json = new ObjectMapper().readTree(ReportFormats.json(new GovernanceReport(List.of(LABEL_WARNING), 1, 1)));

    assertThat(json.get("passed").asBoolean()).isTrue();
    assertThat(json.get("summary").get("warnings").asInt()).isEqualTo(1);
  }

  @Test
  void sarif_report_isSarif210WithRulesAndLocatedResults() throws Exception {
    JsonNode sarif = new ObjectMapper().readTree(ReportFormats.sarif(REPORT, "0.1.0"));

    assertThat(sarif.get("version").asText()).isEqualTo("2.1.0");
    assertThat(sarif.get("$schema").asText()).isEqualTo("https://json.schemastore.org/sarif-2.1.0.json");
    JsonNode run = sarif.get("runs").get(0);
    JsonNode driver = run.get("tool").get("driver");
    assertThat(driver.get("name").asText()).isEqualTo("countersign");
    assertThat(driver.get("version").asText()).isEqualTo("0.1.0");
    assertThat(driver.get("rules").findValuesAsText("id"))
        .containsExactly("no-nodeport/validations/1", "require-team-label/validations/0", "deny-allow-all-ingress/validations/0");
    JsonNode results = run.get("results");
    assertThat(results).hasSize(3);
    JsonNode last = results.get(2);
    assertThat(last.get("ruleId").asText()).isEqualTo("deny-allow-all-ingress/validations/0");
    assertThat(last.get("ruleIndex").asInt()).isEqualTo(2);
    assertThat(last.get("level").asText()).isEqualTo("error");
    assertThat(last.get("message").get("text").asText())
        .isEqualTo("NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow ingress from everywhere");
    JsonNode location = last.get("locations").get(0).get("physicalLocation");
    assertThat(location.get("artifactLocation").get("uri").asText()).isEqualTo("signed/net/allow-all.yaml");
    assertThat(location.get("region").get("startLine").asInt()).isEqualTo(12);
    assertThat(results.get(0).get("level").asText()).isEqualTo("warning");
  }

  @Test
  void sarif_findingWithoutLine_hasNoRegion() throws Exception {
    JsonNode sarif = new ObjectMapper().readTree(ReportFormats.sarif(new GovernanceReport(List.of(BROKEN), 0, 1), "0.1.0"));

    JsonNode location = sarif.get("runs").get(0).get("results").get(0).get("locations").get(0).get("physicalLocation");
    assertThat(location.has("region")).isFalse();
    assertThat(sarif.get("runs").get(0).get("tool").get("driver").get("rules").get(0).get("shortDescription").get("text").asText())
        .isEqualTo("ValidatingAdmissionPolicy broken");
  }

  @Test
  void sarif_sameReport_sameBytes() {
    assertThat(ReportFormats.sarif(REPORT, "1")).isEqualTo(ReportFormats.sarif(new GovernanceReport(List.of(LABEL_WARNING, INGRESS, LABEL), 4, 3), "1"));
  }

  @Test
  void markdown_report_isATableWithEscapedCells() {
    assertThat(ReportFormats.markdown(REPORT))
        .isEqualTo(
            """
            ### countersign governance check

            **Failed**: 2 errors, 1 warning in 4 documents checked against 3 policies.

            | Severity | File | Line | Object | Rule | Message |
            |---|---|---|---|---|---|
            | warning | `signed/api.yaml` | 1 | Service/api | no-nodeport/validations/1 | expression 'x' resulted in error:<br>no such key |
            | error | `signed/api.yaml` | 1 | Deployment/api | require-team-label/validations/0 | every Deployment needs a team label \\| owner |
            | error | `signed/net/allow-all.yaml` | 12 | NetworkPolicy/shop/allow-all | deny-allow-all-ingress/validations/0 | a NetworkPolicy must not allow ingress from everywhere |
            """);
  }

  @Test
  void markdown_clean_isOneVerdictLine() {
    assertThat(ReportFormats.markdown(new GovernanceReport(List.of(), 1, 1)))
        .isEqualTo("### countersign governance check\n\n**Passed**: 0 errors, 0 warnings in 1 document checked against 1 policy.\n");
  }
}
