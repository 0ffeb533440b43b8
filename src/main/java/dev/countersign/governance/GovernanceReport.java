package dev.countersign.governance;

import dev.countersign.support.FindingReport;
import java.util.List;

/**
 * The outcome of a governance check: every finding, in {@link PolicyFinding#ORDER}, and how many
 * documents were looked at. A check passes when no finding is an error.
 */
public record GovernanceReport(
    List<PolicyFinding> findings, int documentsChecked, int policiesApplied)
    implements FindingReport<PolicyFinding> {

  public GovernanceReport {
    findings = findings.stream().sorted(PolicyFinding.ORDER).toList();
  }
}
