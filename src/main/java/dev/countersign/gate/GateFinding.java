package dev.countersign.gate;

import dev.countersign.governance.PolicyFinding;
import dev.countersign.support.FindingReport;
import dev.countersign.support.Records;
import dev.countersign.support.RepositoryPaths;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;

/**
 * One reason the merge gate says no (or warns).
 *
 * @param file the file, relative to the repository root
 * @param line 1-based line the finding is about; 0 when it concerns the whole file
 * @param check which of the gate's checks produced it
 * @param rule stable id of the rule: {@code countersign/...} for the gate's own rules, the
 *     governance rule id ({@code policy/validations/N}) for admission policies
 * @param object the Kubernetes object ({@code Kind/namespace/name}), or empty
 * @param message what the user reads: what is wrong and, where we know, how to fix it
 * @param severity whether it fails the gate
 */
public record GateFinding(
    Path file, int line, Check check, String rule, String object, String message, Severity severity)
    implements FindingReport.Finding {

  /** Report order: by file, line, rule, message. */
  public static final Comparator<GateFinding> ORDER =
      Comparator.comparing((GateFinding f) -> f.uri())
          .thenComparingInt(GateFinding::line)
          .thenComparing(GateFinding::rule)
          .thenComparing(GateFinding::message);

  public GateFinding {
    Records.requireNonNull(GateFinding.class, file, line, check, rule, object, message, severity);
    if (line < 0) {
      throw new IllegalArgumentException("line must be >= 0, got " + line);
    }
  }

  /** A governance policy's finding, as the gate reports it. */
  public static GateFinding governance(PolicyFinding finding) {
    return new GateFinding(
        finding.file(),
        finding.line(),
        Check.GOVERNANCE,
        finding.ruleId(),
        finding.object(),
        finding.message(),
        finding.severity() == PolicyFinding.Severity.ERROR ? Severity.ERROR : Severity.WARNING);
  }

  /** The gate's checks, in the order they run. */
  public enum Check {
    /** A manifest under a signed directory does not verify against the trust policy. */
    SIGNATURE,
    /** A manifest under an unsigned directory could not be signed and applied as it is. */
    MANIFEST,
    /**
     * A governance (ValidatingAdmissionPolicy) rule refuses an unsigned manifest, a signed file the
     * change brings, or a manifest the scheduled refresh generated.
     */
    GOVERNANCE,
    /** The change touches the gate's own rules (trust policy, keys, governance policies). */
    POLICY,
    /**
     * {@code countersign doctor}: a joint between workflows, trust policy, Kyverno policy and
     * manifests is broken.
     */
    CHAIN;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public enum Severity {
    ERROR,
    WARNING;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The file with forward slashes, as GitHub annotations and SARIF want it. */
  public String uri() {
    return RepositoryPaths.slashed(file);
  }

  /** {@code file:line} or {@code file}. */
  public String location() {
    return line > 0 ? uri() + ":" + line : uri();
  }

  /** The message prefixed with the object when there is one. */
  public String text() {
    return object.isEmpty() ? message : object + ": " + message;
  }

  @Override
  public boolean isError() {
    return severity == Severity.ERROR;
  }
}
