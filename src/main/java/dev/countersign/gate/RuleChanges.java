package dev.countersign.gate;

import dev.countersign.governance.GovernanceCheck;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * A pull request's changes to the rules that judge it: the trust policy file, its key files and the
 * governance policies (with their parameters). They are judged by the base commit's rules, so the
 * pull request's own versions only take effect after the merge; this validates them (a broken
 * policy would break the gate after the merge: an error) and reports every changed file (a warning,
 * so reviewers see it).
 */
final class RuleChanges {

  static final String RULE_CHANGED = "countersign/rules-changed";
  static final String RULE_INVALID = "countersign/rules-invalid";

  private RuleChanges() {}

  /**
   * What the change does to the rules.
   *
   * @param findings the proposed rules' problems (errors) and every changed rule file (warnings)
   * @param proposed the change's trust policy, when it loads and its keys and governance policies
   *     do too
   */
  record Report(List<GateFinding> findings, Optional<PolicyFile> proposed) {}

  /**
   * @param basePolicy the trust policy read from {@code baseCommit}, whose rules judge the change
   * @param workTree the change's files, as checked out
   */
  static Report between(PolicyFile basePolicy, BaseCommit baseCommit, RepositoryFiles workTree) {
    RepositoryFiles base = baseCommit.files();
    List<GateFinding> findings = new ArrayList<>();
    Path policyPath = basePolicy.source();
    Optional<PolicyFile> proposed = Optional.empty();
    try {
      PolicyFile policy = new PolicyFileLoader().load(workTree, policyPath);
      policy.toTrustPolicy(workTree);
      new GovernanceCheck(workTree, policy);
      proposed = Optional.of(policy);
    } catch (CountersignException problem) {
      Path file =
          problem instanceof InputProblem input && input.file() != null ? input.file() : policyPath;
      int line = problem instanceof InputProblem input ? input.line().orElse(0) : 0;
      String message =
          problem instanceof InputProblem input
              ? Messages.of(input)
              : Hints.append(String.valueOf(problem.getMessage()), problem.hint().orElse(null));
      findings.add(
          new GateFinding(
              file,
              line,
              GateFinding.Check.POLICY,
              RULE_INVALID,
              "",
              "this change leaves the gate's rules unusable after the merge: " + message,
              GateFinding.Severity.ERROR));
    }
    TreeSet<Path> locations = new TreeSet<>(locations(basePolicy));
    proposed.ifPresent(p -> locations.addAll(locations(p)));
    TreeSet<Path> paths = new TreeSet<>();
    for (Path location : locations) {
      paths.addAll(base.filesAt(location));
      paths.addAll(workTree.filesAt(location));
    }
    for (Path path : paths) {
      // One file of each side at a time: a pull request may add many.
      Version was = Version.of(base, path);
      Version is = Version.of(workTree, path);
      if (was.sameAs(is) || was.unread() && is.unread() && baseCommit.sameInWorkTree(path)) {
        continue;
      }
      String change = !was.present() ? "adds" : !is.present() ? "deletes" : "changes";
      findings.add(
          new GateFinding(
              path,
              0,
              GateFinding.Check.POLICY,
              RULE_CHANGED,
              "",
              "this change "
                  + change
                  + " a file of the gate's rules (trust policy, keys, governance policies); this"
                  + " pull request is judged by the "
                  + base.describe()
                  + " version, and the change takes effect after the merge",
              GateFinding.Severity.WARNING));
    }
    return new Report(findings, proposed);
  }

  private static List<Path> locations(PolicyFile policy) {
    List<Path> locations = new ArrayList<>();
    locations.add(policy.source());
    policy.keys().forEach(k -> k.path().ifPresent(locations::add));
    locations.addAll(policy.governance().policies());
    policy.governance().params().ifPresent(locations::add);
    return locations;
  }

  /**
   * One version's rule file: whether it is there, and its bytes unless it could not be read (too
   * large to: {@link RepositoryFiles#readRuleFile}). One read on one side only is changed; one read
   * on neither is compared without being loaded ({@link BaseCommit#sameInWorkTree}), so a file over
   * the bound that the change leaves alone is not reported. What it holds is judged where it is
   * loaded.
   */
  private record Version(boolean present, byte[] bytes) {

    static Version of(RepositoryFiles files, Path path) {
      try {
        return files
            .readRuleFile(path)
            .map(bytes -> new Version(true, bytes))
            .orElse(new Version(false, null));
      } catch (InputProblem unread) {
        return new Version(true, null);
      }
    }

    /** There, but not read. */
    boolean unread() {
      return present && bytes == null;
    }

    boolean sameAs(Version other) {
      return present == other.present
          && (!present
              || bytes != null && other.bytes != null && Arrays.equals(bytes, other.bytes));
    }
  }
}
