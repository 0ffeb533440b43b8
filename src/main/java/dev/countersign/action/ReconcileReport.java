package dev.countersign.action;

import dev.countersign.pipeline.ReconcileResult;
import dev.countersign.signing.SignReport;
import dev.countersign.support.MarkdownText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Turns a {@link ReconcileResult} into what the workflow sees: step outputs ({@code result}, {@code
 * signed-files}, {@code commit-sha}), a job-summary table (file, message digest, signer, Rekor log
 * index), and a warning when the remote refused the push.
 *
 * <p>Output names: {@code result} is one of {@code noop|pushed|committed|dry-run|refused}; {@code
 * signed-files} lists written target paths one per line; {@code commit-sha} is empty when no commit
 * was made.
 */
public final class ReconcileReport {

  private ReconcileReport() {}

  public static void publish(Reporter reporter, ReconcileResult result) {
    publish(reporter, result, Map.of());
  }

  /**
   * @param details what the signing step recorded per target path (digest, signer, log index);
   *     files without details are listed with their path only
   */
  public static void publish(
      Reporter reporter, ReconcileResult result, Map<String, SignReport.Entry> details) {
    String outcome = name(result.outcome());
    reporter.output("result", outcome);
    reporter.output("signed-files", String.join("\n", result.signedFiles()));
    reporter.output("commit-sha", result.commitId().orElse(""));
    if (result.outcome() == ReconcileResult.Outcome.REFUSED) {
      reporter.warning("The remote refused the push: " + result.detail());
    }
    reporter.summary(summary(result, details));
  }

  static String summary(ReconcileResult result) {
    return summary(result, Map.of());
  }

  static String summary(ReconcileResult result, Map<String, SignReport.Entry> details) {
    StringBuilder md =
        new StringBuilder("### countersign: ").append(name(result.outcome())).append("\n\n");
    // The detail may quote a remote's answer: inert, like every other text countersign relays.
    md.append(MarkdownText.cell(result.detail().lines().findFirst().orElse(""))).append("\n\n");
    // Before the table: a summary too long for GitHub is cut at the end, and the commit matters
    // most.
    result.commitId().ifPresent(c -> md.append("Commit: `").append(c).append("`\n\n"));
    List<List<String>> rows = new ArrayList<>();
    String verb = result.outcome() == ReconcileResult.Outcome.DRY_RUN ? "would sign" : "signed";
    result.signedFiles().forEach(f -> rows.add(row(f, verb, details.get(f))));
    result.unchangedFiles().forEach(f -> rows.add(row(f, "signature unchanged", details.get(f))));
    if (!rows.isEmpty()) {
      md.append(
              ActionsReporter.markdownTable(
                  List.of("manifest", "result", "message digest", "signer", "Rekor log index"),
                  rows))
          .append('\n');
    }
    return md.toString();
  }

  private static List<String> row(String file, String result, SignReport.Entry entry) {
    if (entry == null) {
      return List.of(file, result, "", "", "");
    }
    return List.of(
        file,
        result,
        entry.messageDigest(),
        entry.signer().orElse(""),
        entry.rekorLogIndex().map(String::valueOf).orElse(""));
  }

  /**
   * The {@code result} output value for an outcome: noop, pushed, committed, dry-run or refused.
   */
  public static String name(ReconcileResult.Outcome outcome) {
    return outcome.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
