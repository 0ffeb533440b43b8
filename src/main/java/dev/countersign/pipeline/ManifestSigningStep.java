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
import java.util.function.Function;
import dev.countersign.manifest.SignedManifestFormat;

/**
 * The reconcile pipeline's signing step: the same {@link SignJob} as {@code countersign sign},
 * on bytes from a commit instead of files. An existing signed file whose signature covers the
 * same message is kept as it is (no churn). So is a signed file already proposed in an open pull
 * request (the bot branch), so a pipeline that cannot push does not re-sign, force-push and
 * update its pull request on every run.
 *
 * <p>Remembers what it signed ({@link #entries()}) for the job summary. Not thread-safe; one
 * instance per run.
 */
public final class ManifestSigningStep implements SigningStep {

  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final SignJob job;
  private final int parallelism;
  private final Function<String, Optional<byte[]>> proposed;
  private final Map<String, SignReport.Entry> entries = new TreeMap<>();

  public ManifestSigningStep(ManifestReader reader, SignedManifestFormat format, SignJob job, int parallelism) {
    this(reader, format, job, parallelism, path -> Optional.empty());
  }

  /**
   * @param proposed the signed file already proposed for a target path (on the pull request's
   *     branch), if any; reused when it signs the same message
   */
  public ManifestSigningStep(
      ManifestReader reader,
      SignedManifestFormat format,
      SignJob job,
      int parallelism,
      Function<String, Optional<byte[]>> proposed) {
    this.reader = reader;
    this.format = format;
    this.job = job;
    this.parallelism = parallelism;
    this.proposed = proposed;
  }

  @Override
  public List<Result> sign(List<Input> inputs) {
    List<SignJob.Item> items = new ArrayList<>();
    List<InputProblem> problems = new ArrayList<>();
    List<Result> results = new ArrayList<>();
    if (!inputs.isEmpty()) {
      // Token and certificate on a background thread while the manifests are parsed below.
      job.prepareSigner();
    }
    for (Input input : inputs) {
      try {
        Path source = Path.of(input.sourcePath());
        ManifestFile unsigned = new ManifestFile(source, source, reader.parse(input.unsignedBytes(), source), input.unsignedBytes());
        Optional<ManifestFile> existing = existing(input.targetPath(), input.existingSigned());
        Optional<byte[]> reusable = existing.filter(e -> signsSameMessage(unsigned, e)).isPresent()
            ? Optional.empty()
            : proposed.apply(input.targetPath()).filter(bytes ->
                existing(input.targetPath(), Optional.of(bytes)).filter(p -> signsSameMessage(unsigned, p)).isPresent());
        if (reusable.isPresent()) {
          results.add(new Signed(input.targetPath(), reusable.get()));
          entries.put(input.targetPath(), new SignReport.Entry(source, Path.of(input.targetPath()),
              SignReport.Outcome.UNCHANGED, SignJob.digest(format.message(unsigned.documents())),
              Optional.empty(), Optional.empty(), Optional.empty()));
          continue;
        }
        items.add(new SignJob.Item(unsigned, Path.of(input.targetPath()), existing, true));
      } catch (InputProblem problem) {
        problems.add(problem);
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
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

  /** True when every document of {@code signed} carries a signature over {@code unsigned}'s message. */
  private boolean signsSameMessage(ManifestFile unsigned, ManifestFile signed) {
    byte[] message = format.message(unsigned.documents());
    return signed.documents().stream().allMatch(doc -> {
      try {
        return format.decode(doc).map(c -> java.util.Arrays.equals(c.message(), message)).orElse(false);
      } catch (IllegalArgumentException undecodable) {
        return false;
      }
    });
  }

  /**
   * The file at the target, when it parses. One that does not (a broken or hand-made file) is
   * simply replaced by the new signature, which is what reconciling means.
   */
  private Optional<ManifestFile> existing(String targetPath, Optional<byte[]> content) {
    if (content.isEmpty()) {
      return Optional.empty();
    }
    Path target = Path.of(targetPath);
    byte[] bytes = content.get();
    try {
      return Optional.of(new ManifestFile(target, target, reader.parse(bytes, target), bytes));
    } catch (InputProblem unusable) {
      return Optional.empty();
    }
  }
}
