package dev.countersign.governance;

import dev.countersign.support.FindingReport;
import dev.countersign.support.Records;
import dev.countersign.support.RepositoryPaths;
import java.nio.file.Path;
import java.util.Comparator;

/**
 * One governance result worth reporting: a validation that said no, an expression that failed at
 * run time, or a policy expression that does not compile.
 *
 * @param file the manifest (or, for a policy that does not compile, the policy file), relative to
 *     the repository
 * @param line 1-based line of the document (or expression); 0 when unknown
 * @param policy the ValidatingAdmissionPolicy's {@code metadata.name}
 * @param validationIndex index into {@code spec.validations}, or {@link #WHOLE_POLICY} when the
 *     finding is about the policy rather than one validation
 * @param object the Kubernetes object, "Kind/namespace/name", or empty for policy problems
 * @param message what the user reads
 * @param severity whether it fails the check
 */
public record PolicyFinding(
    Path file,
    int line,
    String policy,
    int validationIndex,
    String object,
    String message,
    Severity severity)
    implements FindingReport.Finding {

  public static final int WHOLE_POLICY = -1;

  /** Report order: by file, line, policy, validation. */
  public static final Comparator<PolicyFinding> ORDER =
      Comparator.comparing((PolicyFinding f) -> RepositoryPaths.slashed(f.file()))
          .thenComparingInt(PolicyFinding::line)
          .thenComparing(PolicyFinding::policy)
          .thenComparingInt(PolicyFinding::validationIndex)
          .thenComparing(PolicyFinding::message);

  public PolicyFinding {
    Records.requireNonNull(
        PolicyFinding.class, file, line, policy, validationIndex, object, message, severity);
  }

  /** Whether a finding fails the check (ERROR) or is only shown (WARNING). */
  public enum Severity {
    ERROR,
    WARNING
  }

  /**
   * Stable id of the rule that produced this finding: {@code policy/validations/N} or {@code
   * policy}.
   */
  public String ruleId() {
    return validationIndex == WHOLE_POLICY ? policy : policy + "/validations/" + validationIndex;
  }

  @Override
  public boolean isError() {
    return severity == Severity.ERROR;
  }
}
