package dev.countersign.governance;

import java.util.List;

/**
 * The outcome of a governance check: every finding, in {@link PolicyFinding#ORDER}, and how many
 * documents were looked at. A check passes when no finding is an error.
 */
public record GovernanceReport(
    List<PolicyFinding> findings, int documentsChecked, int policiesApplied) {

  public GovernanceReport {
    findings = findings.stream().sorted(PolicyFinding.ORDER).toList();
  }

  public boolean passed() {
    return errors() == 0;
  }

  public long errors() {
    return findings.stream().filter(f -> f.severity() == PolicyFinding.Severity.ERROR).count();
  }

  public long warnings() {
    return findings.stream().filter(f -> f.severity() == PolicyFinding.Severity.WARNING).count();
  }
}
