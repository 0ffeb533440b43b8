package dev.countersign.verification;

import dev.countersign.manifest.ManifestReader;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Verifies many files: reads and checks them in parallel (one task per file, one thread per core;
 * verification is CPU-bound), and returns the verdicts in input order.
 */
public final class VerificationRun {

  private final ManifestReader reader;
  private final ManifestVerifier verifier;

  public VerificationRun(ManifestReader reader, ManifestVerifier verifier) {
    this.reader = reader;
    this.verifier = verifier;
  }

  /**
   * @throws InputProblem (combined) after verifying the readable files, when some files are not
   *     readable manifests; the verdicts of the others are lost to the caller in that case, so
   *     callers that want both use {@link #verifyEach}
   */
  public List<DocumentVerdict> verify(List<Path> files) {
    Outcome outcome = verifyEach(files);
    if (!outcome.unreadable().isEmpty()) {
      throw InputProblem.combine(outcome.unreadable());
    }
    return outcome.verdicts();
  }

  /** Verdicts for readable files and the problems of unreadable ones. */
  public record Outcome(List<DocumentVerdict> verdicts, List<InputProblem> unreadable) {}

  public Outcome verifyEach(List<Path> files) {
    int threads =
        Math.max(1, Math.min(files.size(), java.lang.Runtime.getRuntime().availableProcessors()));
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "countersign-verify");
              thread.setDaemon(true);
              return thread;
            });
    try {
      List<Future<List<DocumentVerdict>>> futures = new ArrayList<>();
      for (Path file : files) {
        futures.add(pool.submit(() -> verifier.verify(reader.read(file, file))));
      }
      List<DocumentVerdict> verdicts = new ArrayList<>();
      List<InputProblem> unreadable = new ArrayList<>();
      for (Future<List<DocumentVerdict>> future : futures) {
        try {
          verdicts.addAll(future.get());
        } catch (ExecutionException e) {
          if (e.getCause() instanceof InputProblem problem) {
            unreadable.add(problem);
          } else if (e.getCause() instanceof CountersignException problem) {
            throw problem;
          } else {
            throw new InternalProblem(
                "Verification failed unexpectedly: " + e.getCause(), null, e.getCause());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InternalProblem("Interrupted while verifying", null, e);
        }
      }
      return new Outcome(verdicts, unreadable);
    } finally {
      pool.shutdownNow();
    }
  }
}
