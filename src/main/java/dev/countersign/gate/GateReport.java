package dev.countersign.gate;

import dev.countersign.support.FindingReport;
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
    int policiesApplied)
    implements FindingReport<GateFinding> {

  public GateReport {
    findings = findings.stream().sorted(GateFinding.ORDER).toList();
  }
}
