package dev.countersign.gate;

import dev.countersign.governance.GovernanceCheck;
import dev.countersign.governance.GovernanceReport;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Judges manifests that are signed before any pull request shows them under an unsigned directory
 * (the scheduled refresh's generated content) as {@link MergeGate} judges an unsigned manifest:
 * {@link UnsignedManifestRules}, what Argo CD or Flux would leave out once it is signed ({@link
 * GitOpsFiles#toBeSigned}, and {@link GitOpsAnnotations} against the base's signed file it
 * replaces), the governance policies ({@link GovernanceCheck}) and, for those under an unsigned
 * directory of the trust policy, one object per signed directory once they are signed over their
 * targets ({@link DuplicateObjects}, the base's own duplicates a warning), with the same findings.
 * The trust policy and its governance policies are read from {@code rules}, the commit the content
 * will be proposed to, never from the work tree the generator wrote (it could have rewritten them).
 * Without a trust policy there are no governance policies to apply.
 */
public final class GeneratedManifestCheck {

  private final RepositoryFiles rules;
  private final Path policyFile;
  private final SignedManifestFormat format;
  private final ManifestReader reader;

  /**
   * @param rules where the trust policy and the governance policies it names are read: the base
   *     commit's files
   * @param policyFile the trust policy's path in {@code rules}
   * @param format the format the content will be signed in
   * @param reader reads the base's manifests; its size limit is the one the signed file must stay
   *     under
   */
  public GeneratedManifestCheck(
      RepositoryFiles rules, Path policyFile, SignedManifestFormat format, ManifestReader reader) {
    this.rules = rules;
    this.policyFile = policyFile;
    this.format = format;
    this.reader = reader;
  }

  /** Every rule over every document of {@code files}; findings name each by its display path. */
  public GateReport check(List<ManifestFile> files) {
    UnsignedManifestRules manifestRules = new UnsignedManifestRules(format, reader.maxBytes());
    List<GateFinding> findings = new ArrayList<>();
    int documents = 0;
    for (ManifestFile file : files) {
      documents += file.documents().size();
      findings.addAll(manifestRules.check(file));
      findings.addAll(GitOpsFiles.toBeSigned(file, format));
    }
    int policies = 0;
    if (rules.read(policyFile).isPresent()) {
      PolicyFile policy = new PolicyFileLoader().load(rules, policyFile);
      DuplicateObjects.AfterMerge base =
          DuplicateObjects.AfterMerge.of(rules, policy.directories(), reader);
      DuplicateObjects.AfterMerge refreshed = base.copy();
      for (ManifestFile file : files) {
        Optional<PolicyFile.DirectoryPair> pair = refreshed.pairOfUnsigned(file.displayPath());
        pair.ifPresent(p -> refreshed.unsigned(p, file.displayPath(), file.documents()));
        // Against what the base deploys from the signed file the content will replace.
        Path target = pair.map(p -> p.signedFileOf(file.displayPath())).orElse(file.displayPath());
        findings.addAll(GitOpsAnnotations.toBeSigned(file, target, rules, reader));
      }
      findings.addAll(DuplicateObjects.check(refreshed, () -> Optional.of(base)));
      if (!policy.governance().policies().isEmpty()) {
        GovernanceReport governance = new GovernanceCheck(rules, policy).check(files);
        policies = governance.policiesApplied();
        governance.findings().stream().map(GateFinding::governance).forEach(findings::add);
      }
    } else {
      // No pair to map the content to a signed file: what it would deploy is judged on its own.
      for (ManifestFile file : files) {
        findings.addAll(GitOpsAnnotations.toBeSigned(file, file.displayPath(), rules, reader));
      }
    }
    return new GateReport(findings, 0, 0, 0, files.size(), documents, policies);
  }
}
