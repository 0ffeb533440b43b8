package dev.countersign.pipeline;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.signing.Parallelism;
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
import java.util.stream.IntStream;

/**
 * The reconcile pipeline's signing step: the same {@link SignJob} as {@code countersign sign}, on
 * bytes from a commit instead of files. An existing signed file is kept as it is (no churn) only
 * when {@link SignatureReuse} finds that it covers exactly this content for this run's signer; so
 * is a signed file already proposed in an open pull request (the bot branch), so a pipeline that
 * cannot push does not re-sign, force-push and update its pull request on every run. Anything else
 * at the target (a file an author added next to its unsigned source, a garbage or foreign
 * signature, a file planted on the bot branch) is replaced by a new signature.
 *
 * <p>Remembers what it signed ({@link #entries()}) for the job summary. Not thread-safe; one
 * instance per run.
 */
public final class ManifestSigningStep implements SigningStep {

  private final ManifestReader reader;
  private final SignJob job;
  private final Parallelism parallelism;
  private final Function<String, Optional<byte[]>> proposed;
  private final SignatureReuse reuse;
  private final Map<String, SignReport.Entry> entries = new TreeMap<>();

  /**
   * @param proposed the signed file already proposed for a target path (on the pull request's
   *     branch), if any; kept when {@code reuse} says it covers the content
   * @param reuse decides whether an existing or proposed signed file may be kept
   */
  public ManifestSigningStep(
      ManifestReader reader,
      SignJob job,
      Parallelism parallelism,
      Function<String, Optional<byte[]>> proposed,
      SignatureReuse reuse) {
    this.reader = reader;
    this.job = job;
    this.parallelism = parallelism;
    this.proposed = proposed;
    this.reuse = reuse;
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
    // Parsing and canonicalising are pure and independent per manifest: on every core at once.
    List<Parsed> parsed =
        IntStream.range(0, inputs.size()).parallel().mapToObj(i -> parse(inputs.get(i))).toList();
    for (int i = 0; i < inputs.size(); i++) {
      Input input = inputs.get(i);
      try {
        Path source = Path.of(input.sourcePath());
        ManifestFile unsigned = parsed.get(i).file();
        byte[] message = parsed.get(i).message();
        String target = input.targetPath();
        boolean keepExisting =
            input
                .existingSigned()
                .filter(bytes -> reuse.covers(target, bytes, message))
                .isPresent();
        Optional<byte[]> reusable =
            keepExisting
                ? Optional.empty()
                : proposed.apply(target).filter(bytes -> reuse.covers(target, bytes, message));
        if (keepExisting || reusable.isPresent()) {
          results.add(keepExisting ? new Unchanged(target) : new Signed(target, reusable.get()));
          entries.put(
              target,
              new SignReport.Entry(
                  source,
                  Path.of(target),
                  SignReport.Outcome.UNCHANGED,
                  SignJob.digest(message),
                  Optional.empty(),
                  Optional.empty(),
                  Optional.empty()));
          continue;
        }
        // No existing file is passed on: SignatureReuse has judged it (and the proposed one)
        // above, so what SignJob gets is to be signed.
        items.add(
            new SignJob.Item(
                unsigned, Path.of(target), Optional.empty(), true, Optional.of(message)));
      } catch (InputProblem problem) {
        problems.add(problem);
      }
    }
    if (!problems.isEmpty() || items.isEmpty()) {
      // Nothing will be signed: no (further) Fulcio request for it.
      job.cancelPreparation();
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    // No sidecars in the pipeline: let each signature's bundle JSON be collected (memory at large
    // N).
    for (SignJob.Outcome outcome : job.sign(items, false, parallelism, false)) {
      String target = outcome.item().output().toString();
      entries.put(target, outcome.entry());
      results.add(
          outcome
              .signedBytes()
              .<Result>map(bytes -> new Signed(target, bytes))
              .orElse(new Unchanged(target)));
    }
    return results;
  }

  /**
   * One input parsed and canonicalised, or what stopped it: thrown again on the caller's thread, in
   * input order, so a problem surfaces exactly as if the inputs were parsed one after another.
   */
  private record Parsed(ManifestFile parsedFile, byte[] parsedMessage, RuntimeException problem) {

    ManifestFile file() {
      if (problem != null) {
        throw problem;
      }
      return parsedFile;
    }

    byte[] message() {
      return parsedMessage;
    }
  }

  private Parsed parse(Input input) {
    try {
      Path source = Path.of(input.sourcePath());
      ManifestFile unsigned =
          new ManifestFile(
              source, source, reader.parse(input.unsignedBytes(), source), input.unsignedBytes());
      // Refused here too, not only by the SignJob, so an already signed list is not kept either.
      for (var document : unsigned.documents()) {
        if (document.listProblem().isPresent()) {
          throw new InputProblem(
              source, document.line(), document.listProblem().get(), ManifestDocument.LIST_HINT);
        }
      }
      // Every check that names a field's line is behind us; the signing and the reports need the
      // documents' own lines only. Held for the whole run, the positions cost 15-20 MB of peak
      // RSS at N = 5,000 (docs/performance.md).
      ManifestFile kept =
          new ManifestFile(
              source,
              source,
              unsigned.documents().stream().map(ManifestDocument::withoutFieldLines).toList(),
              input.unsignedBytes());
      return new Parsed(kept, job.message(kept), null);
    } catch (RuntimeException problem) {
      return new Parsed(null, null, problem);
    }
  }

  /** What was signed or kept, by target path, in path order. */
  public Map<String, SignReport.Entry> entries() {
    return Collections.unmodifiableMap(entries);
  }
}
