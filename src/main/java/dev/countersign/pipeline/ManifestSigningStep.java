package dev.countersign.pipeline;

import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignReport;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The reconcile pipeline's signing step: the same {@link SignJob} as {@code countersign sign},
 * on bytes from a commit instead of files. An existing signed file whose signature covers the
 * same message is kept as it is (no churn).
 *
 * <p>Remembers what it signed ({@link #entries()}) for the job summary. Not thread-safe; one
 * instance per run.
 */
public final class ManifestSigningStep implements SigningStep {

  private final ManifestReader reader;
  private final SignJob job;
  private final int parallelism;
  private final Map<String, SignReport.Entry> entries = new TreeMap<>();

  public ManifestSigningStep(ManifestReader reader, SignJob job, int parallelism) {
    this.reader = reader;
    this.job = job;
    this.parallelism = parallelism;
  }

  @Override
  public List<Result> sign(List<Input> inputs) {
    List<SignJob.Item> items = new ArrayList<>();
    List<InputProblem> problems = new ArrayList<>();
    for (Input input : inputs) {
      try {
        Path source = Path.of(input.sourcePath());
        ManifestFile unsigned = new ManifestFile(source, source, reader.parse(input.unsignedBytes(), source), input.unsignedBytes());
        items.add(new SignJob.Item(unsigned, Path.of(input.targetPath()), existing(input), true));
      } catch (InputProblem problem) {
        problems.add(problem);
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    List<Result> results = new ArrayList<>();
    // No sidecars in the pipeline: let each signature's bundle JSON be collected (memory at large N).
    for (SignJob.Outcome outcome : job.sign(items, false, parallelism, false)) {
      String target = outcome.item().output().toString();
      entries.put(target, outcome.entry());
      results.add(outcome.signedBytes().<Result>map(bytes -> new Signed(target, bytes)).orElse(new Unchanged(target)));
    }
    return results;
  }

  /** What was signed or kept, by target path, in path order. */
  public Map<String, SignReport.Entry> entries() {
    return Collections.unmodifiableMap(entries);
  }

  /**
   * The file already at the target, when it parses. One that does not (a broken or hand-made
   * file) is simply replaced by the new signature, which is what reconciling means.
   */
  private Optional<ManifestFile> existing(Input input) {
    if (input.existingSigned().isEmpty()) {
      return Optional.empty();
    }
    Path target = Path.of(input.targetPath());
    byte[] bytes = input.existingSigned().get();
    try {
      return Optional.of(new ManifestFile(target, target, reader.parse(bytes, target), bytes));
    } catch (InputProblem unusable) {
      return Optional.empty();
    }
  }
}
