package dev.countersign.pipeline;

import dev.countersign.support.Records;
import java.util.List;
import java.util.Optional;

/**
 * What a {@link ReconcileJob} did.
 *
 * @param outcome see {@link Outcome}
 * @param signedFiles target paths written with new signatures, sorted
 * @param unchangedFiles target paths whose existing signature already covered the content (only the
 *     unsigned copy was removed), sorted
 * @param commitId the commit made (pushed, or refused), if any
 * @param detail one line for noop and dry-run; for {@link Outcome#REFUSED} the remote's reason and
 *     messages verbatim
 * @param attempts push attempts made (0 when nothing needed pushing; a no-op after a lost race
 *     counts the rejected attempts)
 */
public record ReconcileResult(
    Outcome outcome,
    List<String> signedFiles,
    List<String> unchangedFiles,
    Optional<String> commitId,
    String detail,
    int attempts) {

  public ReconcileResult {
    Records.requireNonNull(
        ReconcileResult.class, outcome, signedFiles, unchangedFiles, commitId, detail, attempts);
    signedFiles = List.copyOf(signedFiles);
    unchangedFiles = List.copyOf(unchangedFiles);
  }

  public enum Outcome {
    /** Nothing to sign, or the head commit is countersign's own. */
    NOOP,
    /** One commit with every signed manifest is on the branch. */
    PUSHED,
    /** Committed locally as asked ({@code --no-push}); nothing was pushed. */
    COMMITTED,
    /** The plan was printed; nothing was signed, written or pushed. */
    DRY_RUN,
    /**
     * The remote refused the branch update (e.g. a protected branch). The commit exists locally at
     * HEAD, so a caller can push it to another branch and open a pull request.
     */
    REFUSED
  }

  static ReconcileResult noop(String reason, int attempts) {
    return new ReconcileResult(
        Outcome.NOOP, List.of(), List.of(), Optional.empty(), reason, attempts);
  }
}
