package dev.countersign.action;

import dev.countersign.pipeline.ReconcileResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Turns a {@link ReconcileResult} into what the workflow sees: step outputs ({@code result},
 * {@code signed}, {@code commit_sha}), a job-summary section, and a warning when the remote
 * refused the push.
 *
 * <p>Output names: {@code result} is one of {@code noop|pushed|dry-run|refused}; {@code signed}
 * lists written target paths one per line; {@code commit_sha} is empty when no commit was made.
 */
public final class ReconcileReport {

  private ReconcileReport() {}

  public static void publish(Reporter reporter, ReconcileResult result) {
    String outcome = name(result.outcome());
    reporter.output("result", outcome);
    reporter.output("signed", String.join("\n", result.signedFiles()));
    reporter.output("commit_sha", result.commitId().orElse(""));
    if (result.outcome() == ReconcileResult.Outcome.REFUSED) {
      reporter.warning("The remote refused the push: " + result.detail());
    }
    reporter.summary(summary(result));
  }

  static String summary(ReconcileResult result) {
    StringBuilder md = new StringBuilder("### countersign: ").append(name(result.outcome())).append("\n\n");
    md.append(result.detail().lines().findFirst().orElse("")).append("\n\n");
    List<List<String>> rows = new ArrayList<>();
    String verb = result.outcome() == ReconcileResult.Outcome.DRY_RUN ? "would sign" : "signed";
    result.signedFiles().forEach(f -> rows.add(List.of(f, verb)));
    result.unchangedFiles().forEach(f -> rows.add(List.of(f, "signature unchanged")));
    if (!rows.isEmpty()) {
      md.append(ActionsReporter.markdownTable(List.of("manifest", "result"), rows)).append('\n');
    }
    result.commitId().ifPresent(c -> md.append("Commit: `").append(c).append("`\n"));
    return md.toString();
  }

  static String name(ReconcileResult.Outcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
