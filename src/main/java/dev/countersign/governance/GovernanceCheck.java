package dev.countersign.governance;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.RepositoryFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Use case: apply the repository's ValidatingAdmissionPolicies (as configured in its trust policy
 * file) to manifests. Reads the policies once, in the constructor; {@link #check} has no side
 * effects and may be called repeatedly.
 */
public final class GovernanceCheck {

  private final AdmissionPolicyEvaluator evaluator;
  private final int policyCount;

  /**
   * @param repositoryRoot the root that the policy file's paths are relative to
   * @param policyFile the parsed trust policy file
   */
  public GovernanceCheck(Path repositoryRoot, PolicyFile policyFile) {
    this(RepositoryFiles.workTree(repositoryRoot), policyFile);
  }

  /**
   * @param files where the policy file's governance paths are read: the same version of the
   *     repository the policy file came from (the base commit, for a pull request)
   */
  public GovernanceCheck(RepositoryFiles files, PolicyFile policyFile) {
    AdmissionPolicyLoader loader = new AdmissionPolicyLoader();
    List<AdmissionPolicy> policies = loader.load(files, policyFile.governance().policies());
    Optional<Map<String, Object>> params =
        policyFile.governance().params().map(path -> loader.loadParams(files, path));
    this.evaluator = new AdmissionPolicyEvaluator(policies, params);
    this.policyCount = policies.size();
  }

  public GovernanceCheck(AdmissionPolicyEvaluator evaluator, int policyCount) {
    this.evaluator = evaluator;
    this.policyCount = policyCount;
  }

  /** Checks every document of every file; findings name each file by its display path. */
  public GovernanceReport check(List<ManifestFile> files) {
    List<PolicyFinding> findings = new ArrayList<>(evaluator.policyProblems());
    int documents = 0;
    for (ManifestFile file : files) {
      for (ManifestDocument document : file.documents()) {
        findings.addAll(evaluator.evaluate(file.displayPath(), document));
        documents++;
      }
    }
    return new GovernanceReport(findings, documents, policyCount);
  }
}
