package dev.countersign.gate;

import java.util.List;

/**
 * What the merge gate found, findings in {@link GateFinding#ORDER}, and how much it looked at. It
 * passes when no finding is an error.
 *
 * @param findings every finding
 * @param signedFiles manifest files found under the signed directories
 * @param signedDocuments documents in the readable signed files
 * @param verifiedDocuments signed documents that verified
 * @param unsignedFiles manifest files found under the unsigned directories
 * @param unsignedDocuments documents in the readable unsigned files
 * @param policiesApplied governance policies the unsigned manifests were checked against
 */
public record GateReport(
    List<GateFinding> findings,
    int signedFiles,
    int signedDocuments,
    int verifiedDocuments,
    int unsignedFiles,
    int unsignedDocuments,
    int policiesApplied) {

  public GateReport {
    findings = findings.stream().sorted(GateFinding.ORDER).toList();
  }

  public boolean passed() {
    return errors() == 0;
  }

  public long errors() {
    return findings.stream().filter(f -> f.severity() == GateFinding.Severity.ERROR).count();
  }

  public long warnings() {
    return findings.stream().filter(f -> f.severity() == GateFinding.Severity.WARNING).count();
  }
}
