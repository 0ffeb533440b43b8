package dev.countersign.verification;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.BiConsumer;

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
    List<DocumentVerdict> verdicts = new ArrayList<>();
    List<InputProblem> unreadable = new ArrayList<>();
    for (FileOutcome outcome : verifyEach(files, Path.of("")).values()) {
      verdicts.addAll(outcome.verdicts());
      if (outcome.unreadable() != null) {
        unreadable.add(outcome.unreadable());
      }
    }
    return new Outcome(verdicts, unreadable);
  }

  /**
   * One file's result: its verdicts, or (with no verdicts) why it is not a readable manifest.
   *
   * @param documents the documents read, each with only its line and what names its object ({@link
   *     ManifestDocument#withOnlyObjectNames}), for callers that tell the objects apart (so that
   *     they need not read every file again); empty when unreadable
   * @param unreadable null when the file was read
   */
  public record FileOutcome(
      List<DocumentVerdict> verdicts, List<ManifestDocument> documents, InputProblem unreadable) {}

  /**
   * Reads and verifies every file in parallel (one task per file, one daemon thread per core) and
   * returns each file's outcome in input order. A file is read from {@code root.resolve(name)} and
   * named {@code name} in messages. A problem other than an unreadable file is rethrown as it is.
   */
  public Map<Path, FileOutcome> verifyEach(Collection<Path> names, Path root) {
    return verifyEach(names, root, (name, manifest) -> {});
  }

  /**
   * As {@link #verifyEach(Collection, Path)}, and hands each file that reads as a manifest, exactly
   * as it was read and verified (bytes and documents), to {@code alsoRead} with the file's name:
   * for a caller that judges every file in more ways, so that it need not read each one a second
   * time.
   *
   * @param alsoRead called on the verifying threads, at most once per file
   */
  public Map<Path, FileOutcome> verifyEach(
      Collection<Path> names, Path root, BiConsumer<Path, ManifestFile> alsoRead) {
    int threads =
        Math.max(1, Math.min(names.size(), java.lang.Runtime.getRuntime().availableProcessors()));
    ExecutorService pool =
        Executors.newFixedThreadPool(
            threads,
            runnable -> {
              Thread thread = new Thread(runnable, "countersign-verify");
              thread.setDaemon(true);
              return thread;
            });
    try {
      Map<Path, Future<FileOutcome>> futures = new LinkedHashMap<>();
      for (Path name : names) {
        futures.put(name, pool.submit(() -> verifyOne(root.resolve(name), name, alsoRead)));
      }
      Map<Path, FileOutcome> outcomes = new LinkedHashMap<>();
      for (Map.Entry<Path, Future<FileOutcome>> future : futures.entrySet()) {
        outcomes.put(future.getKey(), await(future.getValue()));
      }
      return outcomes;
    } finally {
      pool.shutdownNow();
    }
  }

  private FileOutcome verifyOne(Path file, Path name, BiConsumer<Path, ManifestFile> alsoRead) {
    ManifestFile manifest;
    try {
      manifest = reader.read(file, name);
    } catch (InputProblem problem) {
      return new FileOutcome(List.of(), List.of(), problem);
    }
    alsoRead.accept(name, manifest);
    return new FileOutcome(
        verifier.verify(manifest),
        manifest.documents().stream().map(ManifestDocument::withOnlyObjectNames).toList(),
        null);
  }

  private static FileOutcome await(Future<FileOutcome> future) {
    try {
      return future.get();
    } catch (ExecutionException e) {
      if (e.getCause() instanceof CountersignException problem) {
        throw problem;
      }
      throw new InternalProblem(
          "Verification failed unexpectedly: " + e.getCause(), null, e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalProblem("Interrupted while verifying", null, e);
    }
  }
}
