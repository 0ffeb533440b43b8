package dev.countersign.gate;

import dev.countersign.governance.GovernanceCheck;
import dev.countersign.governance.GovernanceReport;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Judges manifests that are signed before any pull request shows them under an unsigned directory
 * (the scheduled refresh's generated content) as {@link MergeGate} judges an unsigned manifest:
 * {@link UnsignedManifestRules} and the governance policies ({@link GovernanceCheck}), with the
 * same findings. The trust policy and its governance policies are read from {@code rules}, the
 * commit the content will be proposed to, never from the work tree the generator wrote (it could
 * have rewritten them). Without a trust policy there are no governance policies to apply.
 */
public final class GeneratedManifestCheck {

  private final RepositoryFiles rules;
  private final Path policyFile;
  private final SignedManifestFormat format;
  private final long maxBytes;

  /**
   * @param rules where the trust policy and the governance policies it names are read: the base
   *     commit's files
   * @param policyFile the trust policy's path in {@code rules}
   * @param format the format the content will be signed in
   * @param maxBytes the manifest size limit the signed file must stay under
   */
  public GeneratedManifestCheck(
      RepositoryFiles rules, Path policyFile, SignedManifestFormat format, long maxBytes) {
    this.rules = rules;
    this.policyFile = policyFile;
    this.format = format;
    this.maxBytes = maxBytes;
  }

  /** Every rule over every document of {@code files}; findings name each by its display path. */
  public GateReport check(List<ManifestFile> files) {
    UnsignedManifestRules manifestRules = new UnsignedManifestRules(format, maxBytes);
    List<GateFinding> findings = new ArrayList<>();
    int documents = 0;
    for (ManifestFile file : files) {
      documents += file.documents().size();
      findings.addAll(manifestRules.check(file));
    }
    int policies = 0;
    if (rules.read(policyFile).isPresent()) {
      PolicyFile policy = new PolicyFileLoader().load(rules, policyFile);
      if (!policy.governance().policies().isEmpty()) {
        GovernanceReport governance = new GovernanceCheck(rules, policy).check(files);
        policies = governance.policiesApplied();
        governance.findings().stream().map(GateFinding::governance).forEach(findings::add);
      }
    }
    return new GateReport(findings, 0, 0, 0, files.size(), documents, policies);
  }
}
