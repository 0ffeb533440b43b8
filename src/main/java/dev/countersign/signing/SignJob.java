package dev.countersign.signing;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.AtomicWrites;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Signs manifest files: read and validate all → sign what changed, in parallel → write all.
 *
 * <p>All or nothing: if any file is invalid or any signature fails, no file is written. Files whose
 * output already carries a signature by this job's signer over the same message, one the {@link
 * ReuseCheck} verified, are left untouched (no churn); an output that merely carries the same
 * message (a forged, foreign or unlogged signature) is signed again and replaced. A re-run builds
 * the signer only to learn who it signs as, and signs nothing.
 */
public final class SignJob {

  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final Supplier<MessageSigner> signerFactory;
  private final ReuseCheck reuse;
  private final SignProgress progress;
  private MessageSigner signer;

  /**
   * @param signerFactory called at most once, and only when something needs signing or an existing
   *     output carries the same message (to learn who signs), so a run over new outputs asks no
   *     service before it signs
   * @param reuse decides whether an existing output over the same message may be kept
   */
  public SignJob(
      ManifestReader reader,
      SignedManifestFormat format,
      Supplier<MessageSigner> signerFactory,
      ReuseCheck reuse,
      SignProgress progress) {
    this.reader = reader;
    this.format = format;
    this.signerFactory = signerFactory;
    this.reuse = Objects.requireNonNull(reuse, "reuse");
    this.progress = progress;
  }

  /**
   * One manifest to sign in memory.
   *
   * @param input the parsed unsigned (or previously signed) manifest
   * @param output where the signed manifest goes (named in the report; not written by {@link
   *     #sign})
   * @param existing what is at {@code output} now, if anything
   * @param mayReplace whether an existing output that is not a signature of this content may be
   *     replaced (signing in place, {@code --force}, or the reconcile pipeline)
   * @param message {@link #message} of {@code input}, when the caller already computed it (so a
   *     manifest is canonicalised once); computed by the job when empty
   */
  public record Item(
      ManifestFile input,
      Path output,
      Optional<ManifestFile> existing,
      boolean mayReplace,
      Optional<byte[]> message) {

    public Item(
        ManifestFile input, Path output, Optional<ManifestFile> existing, boolean mayReplace) {
      this(input, output, existing, mayReplace, Optional.empty());
    }
  }

  /** The message this job signs for {@code input}: its canonical documents (see {@link Item}). */
  public byte[] message(ManifestFile input) {
    return format.message(input.documents());
  }

  /**
   * What happened to one item.
   *
   * @param signedBytes the new signed file; empty when the existing output already covers the
   *     content
   * @param sidecarJson the standard Sigstore bundle, when the signer produced one
   */
  public record Outcome(
      Item item,
      SignReport.Entry entry,
      Optional<byte[]> signedBytes,
      Optional<String> sidecarJson) {}

  /** One item with its message and the decision taken for it. */
  private record Plan(
      Item item,
      byte[] message,
      List<ManifestDocument> baseDocuments,
      boolean unchanged,
      Optional<Integer> appendIndex) {}

  /**
   * Creates the signer now and lets it start fetching what the first signature needs (token,
   * certificate) while the caller reads and canonicalises the manifests. Call it only when
   * something will need signing: a run with nothing to sign should contact no service.
   */
  public synchronized void prepareSigner() {
    signer().prepare();
  }

  /**
   * Creates the signer now and lets it start what the first signature needs short of a certificate
   * (trust material, key, identity token): for a caller that may have something to sign but has not
   * yet checked its inputs. No service is asked to certify anything.
   */
  public synchronized void prepareSignerIdentity() {
    signer().prepareIdentity();
  }

  /**
   * Undoes {@link #prepareSigner} and {@link #prepareSignerIdentity}: nothing will be signed; see
   * {@link MessageSigner#cancelPreparation}.
   */
  public synchronized void cancelPreparation() {
    if (signer != null) {
      signer.cancelPreparation();
    }
  }

  private synchronized MessageSigner signer() {
    if (signer == null) {
      signer = signerFactory.get();
    }
    return signer;
  }

  /** Reads, signs and writes files as {@code request} says; all or nothing. */
  public SignReport run(SignRequest request) {
    List<Outcome> outcomes =
        sign(
            readItems(request),
            request.append(),
            request.parallelism(),
            request.bundleSidecar(),
            request.force());
    AtomicWrites writes = new AtomicWrites();
    List<SignReport.Entry> entries = new ArrayList<>();
    for (Outcome outcome : outcomes) {
      SignReport.Entry entry = outcome.entry();
      if (outcome.signedBytes().isPresent()) {
        // Below --out nothing may be a link; in place, the file was found by a walk that refuses
        // links and read without following one, so only the file itself is checked again.
        Path output = outcome.item().output();
        Path root = request.outputDir().orElse(output.toAbsolutePath().normalize().getParent());
        writes.stage(root, output, outcome.signedBytes().get());
        if (request.bundleSidecar() && outcome.sidecarJson().isPresent()) {
          Path sidecar = sidecarFor(output);
          writes.stage(root, sidecar, outcome.sidecarJson().get().getBytes(StandardCharsets.UTF_8));
          entry =
              new SignReport.Entry(
                  entry.input(),
                  entry.output(),
                  entry.outcome(),
                  entry.messageDigest(),
                  entry.signer(),
                  entry.rekorLogIndex(),
                  Optional.of(sidecar));
        }
      }
      entries.add(entry);
    }
    writes.commit();
    return new SignReport(entries);
  }

  /**
   * Signs parsed manifests in memory: decides per item whether it needs a signature, signs those in
   * parallel with one signer, and renders the signed files. Reads and writes no file.
   *
   * @return one outcome per item, in item order
   * @throws UsageProblem when an existing output may not be replaced, or an append is impossible
   */
  public List<Outcome> sign(List<Item> items, boolean append, Parallelism parallelism) {
    return sign(items, append, parallelism, true);
  }

  /**
   * As {@link #sign(List, boolean, Parallelism)}; with {@code keepSidecars} false every outcome's
   * {@code sidecarJson} is empty.
   *
   * <p>Memory: each signature's material (certificate PEM, Rekor bundle, and the Sigstore bundle
   * JSON, ~10 KB) is dropped as soon as the signed file is rendered, keeping only what the report
   * needs; callers that write no sidecar should pass false so that the bundle JSON goes too. With
   * thousands of manifests this roughly halves the live heap (docs/performance.md).
   */
  public List<Outcome> sign(
      List<Item> items, boolean append, Parallelism parallelism, boolean keepSidecars) {
    return sign(items, append, parallelism, keepSidecars, false);
  }

  /**
   * As {@link #sign(List, boolean, Parallelism, boolean)}; with {@code resign} an existing output
   * whose signature already covers the content is signed again instead of being left unchanged
   * ({@code sign --force}: a new signature by the same signer). Without it, an existing output over
   * the same message is left unchanged only when the {@link ReuseCheck} says it covers the content
   * for this signer, and is signed again and replaced otherwise.
   */
  public List<Outcome> sign(
      List<Item> items,
      boolean append,
      Parallelism parallelism,
      boolean keepSidecars,
      boolean resign) {
    refuseLists(items);
    List<Plan> plans = items.stream().map(item -> plan(item, append, resign)).toList();
    List<Plan> toSign = plans.stream().filter(p -> !p.unchanged()).toList();
    progress.started(toSign.size(), plans.size() - toSign.size());
    List<Signed> signed;
    try {
      signed = toSign.isEmpty() ? List.of() : signAll(toSign, parallelism, keepSidecars);
    } finally {
      // Also on a failure: the Action's log group closes before the problem is printed.
      progress.finished();
    }
    Iterator<Signed> next = signed.iterator();
    List<Outcome> outcomes = new ArrayList<>();
    for (Plan plan : plans) {
      if (plan.unchanged()) {
        outcomes.add(
            new Outcome(
                plan.item(),
                entry(plan, SignReport.Outcome.UNCHANGED, Optional.empty(), Optional.empty()),
                Optional.empty(),
                Optional.empty()));
        continue;
      }
      Signed s = next.next();
      outcomes.add(
          new Outcome(
              plan.item(),
              entry(plan, SignReport.Outcome.SIGNED, Optional.of(s.signer()), s.rekorLogIndex()),
              Optional.of(s.bytes()),
              s.sidecarJson()));
    }
    return outcomes;
  }

  /** The report entry of one planned item (no sidecar: {@link #run} adds the one it writes). */
  private static SignReport.Entry entry(
      Plan plan, SignReport.Outcome outcome, Optional<String> signer, Optional<Long> logIndex) {
    return new SignReport.Entry(
        plan.item().input().displayPath(),
        plan.item().output(),
        outcome,
        digest(plan.message()),
        signer,
        logIndex,
        Optional.empty());
  }

  /** A rendered signature: only what the outcome needs, so the full material can be collected. */
  private record Signed(
      byte[] bytes, String signer, Optional<Long> rekorLogIndex, Optional<String> sidecarJson) {}

  /**
   * The sidecar bundle path for a signed manifest: {@code x.yaml} → {@code x.yaml.sigstore.json}.
   */
  public static Path sidecarFor(Path manifest) {
    return manifest.resolveSibling(manifest.getFileName() + ManifestTree.SIDECAR_SUFFIX);
  }

  private List<Item> readItems(SignRequest request) {
    List<InputProblem> problems = new ArrayList<>();
    List<Item> items = new ArrayList<>();
    for (Path root : request.inputs()) {
      for (Path file : ManifestTree.of(reader).expand(List.of(root))) {
        try {
          ManifestFile input = reader.read(file, file);
          Path output =
              request.outputDir().map(out -> out.resolve(relative(root, file))).orElse(file);
          boolean inPlace =
              output.toAbsolutePath().normalize().equals(file.toAbsolutePath().normalize());
          Optional<ManifestFile> existing =
              inPlace
                  ? Optional.of(input)
                  : Files.exists(output, LinkOption.NOFOLLOW_LINKS)
                      ? Optional.of(reader.read(output, output))
                      : Optional.empty();
          items.add(new Item(input, output, existing, inPlace || request.force()));
        } catch (InputProblem problem) {
          problems.add(problem);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    return items;
  }

  /**
   * A {@code kind: List} document would be signed as one object whose items the cluster applies
   * unsigned one by one; the gate refuses it ({@code countersign/one-object-per-document}), and so
   * does signing, so no command signs what another rejects.
   */
  private static void refuseLists(List<Item> items) {
    List<InputProblem> problems = new ArrayList<>();
    for (Item item : items) {
      for (ManifestDocument document : item.input().documents()) {
        document
            .listProblem()
            .ifPresent(
                problem ->
                    problems.add(
                        new InputProblem(
                            item.input().displayPath(),
                            document.line(),
                            problem,
                            ManifestDocument.LIST_HINT)));
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
  }

  private Plan plan(Item item, boolean append, boolean resign) {
    ManifestFile input = item.input();
    byte[] message = item.message().orElseGet(() -> message(input));
    if (item.existing().isEmpty()) {
      return new Plan(item, message, input.documents(), false, Optional.empty());
    }
    ManifestFile existing = item.existing().get();
    // One decoder for the file: its documents share one allowance for what they gunzip to.
    SignedManifestFormat.FileDecoder decoder = format.decoder();
    boolean signedBefore =
        existing.documents().stream().anyMatch(d -> decodedMessage(decoder, d).isPresent());
    boolean sameMessage =
        signedBefore
            && existing.documents().stream()
                .allMatch(
                    doc ->
                        decodedMessage(decoder, doc)
                            .map(m -> Arrays.equals(m, message))
                            .orElse(false));
    if (sameMessage && !append) {
      // Kept only when it is this signer's verified signature over exactly this content, as run
      // keeps one. Otherwise it is replaced, with or without --force: it claims this very content,
      // so all that goes is a signature that does not hold for this signer (and any edit made to
      // the file after signing, which broke it anyway).
      boolean keep = !resign && reuse.covers(existing, message);
      return new Plan(
          item, message, keep ? existing.documents() : input.documents(), keep, Optional.empty());
    }
    if (append) {
      // Appended sets sign the message, while the documents they are added to are the existing
      // file's: both must be this content, or ours would stand on objects it did not sign.
      if (signedBefore
          && !(sameMessage && Arrays.equals(format.message(existing.documents()), message))) {
        throw new UsageProblem(
            "Cannot append a signature to "
                + item.output()
                + ": its content changed since it was signed",
            "sign without --append to replace the old signatures");
      }
      // Every document of a signed file carries the same sets, so the next index is shared.
      Optional<Integer> nextIndex =
          signedBefore
              ? Optional.of(
                  existing.documents().stream()
                      .mapToInt(format::existingSignatureSets)
                      .max()
                      .orElse(0))
              : Optional.empty();
      return new Plan(
          item, message, signedBefore ? existing.documents() : input.documents(), false, nextIndex);
    }
    if (!item.mayReplace()) {
      throw new UsageProblem(
          "Refusing to overwrite "
              + item.output()
              + ": it exists and is not a signature of "
              + input.displayPath(),
          "pass --force to replace it, or choose another --out directory");
    }
    return new Plan(item, message, input.documents(), false, Optional.empty());
  }

  private static Optional<byte[]> decodedMessage(
      SignedManifestFormat.FileDecoder decoder, ManifestDocument document) {
    try {
      return decoder.decode(document).map(SignedContent::message);
    } catch (IllegalArgumentException undecodable) {
      return Optional.empty();
    }
  }

  private static Path relative(Path root, Path file) {
    if (Files.isDirectory(root, LinkOption.NOFOLLOW_LINKS)) {
      return root.relativize(file);
    }
    return file.getFileName();
  }

  /**
   * Who this job signs as (see {@link MessageSigner#identity()}); builds the signer, which later
   * signatures of this job then use too.
   */
  public SignerIdentity signerIdentity() {
    return signer().identity();
  }

  /**
   * Signs every plan on a pool of {@code parallelism} threads and returns the results in plan
   * order. The first failure ends the job at once: no signature starts after it, the ones in flight
   * are interrupted and not waited for (an HTTP read does not heed an interrupt; the threads are
   * daemons), nothing more is told to {@link #progress}, and that failure is what is thrown, not
   * what the interruption makes of the others.
   */
  private List<Signed> signAll(List<Plan> plans, Parallelism parallelism, boolean keepSidecars) {
    MessageSigner signer = signer();
    int threads = Math.min(parallelism.resolve(signer), plans.size());
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemonThreads());
    CompletionService<Signed> completions = new ExecutorCompletionService<>(pool);
    FirstFailure failure = new FirstFailure();
    AtomicInteger done = new AtomicInteger();
    try {
      List<Future<Signed>> futures = new ArrayList<>();
      for (Plan plan : plans) {
        futures.add(
            completions.submit(
                () -> {
                  failure.throwIfFailed();
                  try {
                    Signed result = signOne(signer, plan, keepSidecars);
                    failure.unlessFailed(
                        () ->
                            progress.signed(
                                plan.item().input().displayPath(),
                                done.incrementAndGet(),
                                plans.size()));
                    return result;
                  } catch (RuntimeException | Error e) {
                    failure.record(e);
                    throw e;
                  }
                }));
      }
      // In order of completion, so that a failure is met as soon as it happens.
      for (int i = 0; i < plans.size(); i++) {
        outcome(next(completions), failure);
      }
      List<Signed> results = new ArrayList<>();
      for (Future<Signed> future : futures) {
        results.add(outcome(future, failure)); // every one has ended: no wait
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * The first failure of a sign job's pool. Once one is recorded no signature starts and no
   * progress is told: the check and the telling hold the same lock as the recording, so nothing is
   * told after the job has failed.
   */
  private static final class FirstFailure {
    private Throwable first; // guarded by this

    synchronized void record(Throwable failure) {
      if (first == null) {
        first = failure;
      }
    }

    synchronized Throwable first() {
      return first;
    }

    /** Ends a task that has not started signing yet, once the job has failed. */
    synchronized void throwIfFailed() {
      if (first != null) {
        throw new CancellationException("an earlier signature failed");
      }
    }

    synchronized void unlessFailed(Runnable report) {
      if (first == null) {
        report.run();
      }
    }
  }

  private static Future<Signed> next(CompletionService<Signed> completions) {
    try {
      return completions.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalProblem("Interrupted while signing", null, e);
    }
  }

  /** What {@code future} signed; the job's first failure when it failed. */
  private static Signed outcome(Future<Signed> future, FirstFailure failure) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalProblem("Interrupted while signing", null, e);
    } catch (ExecutionException | CancellationException e) {
      // Whatever this task met (an interruption, the job's cancellation), the failure that
      // stopped the job was recorded before this task ended.
      Throwable cause = failure.first() != null ? failure.first() : e.getCause();
      if (cause instanceof CountersignException problem) {
        throw problem;
      }
      throw new InternalProblem("Signing failed unexpectedly: " + cause, null, cause);
    }
  }

  private Signed signOne(MessageSigner signer, Plan plan, boolean keepSidecar) {
    SignatureMaterial material = signer.sign(plan.message());
    int index = plan.appendIndex().orElse(0);
    boolean append = plan.appendIndex().isPresent();
    Map<String, String> annotations =
        format.annotations(
            plan.message(),
            index,
            material.signature(),
            material.certificatePem(),
            material.rekorBundle());
    List<String> header =
        List.of(
            "Signed by countersign. Any edit invalidates the signature: change the unsigned source"
                + " instead.",
            "message: " + digest(plan.message()),
            "signer: " + material.signer());
    byte[] bytes = format.render(plan.baseDocuments(), annotations, append, header);
    return new Signed(
        bytes,
        material.signer(),
        material.rekorBundle().map(RekorBundle::logIndex),
        keepSidecar ? material.sigstoreBundleJson() : Optional.empty());
  }

  private static ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "countersign-sign-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** {@code sha256:<hex>} of {@code bytes}. */
  public static String digest(byte[] bytes) {
    return "sha256:" + Sha256.hex(bytes);
  }
}
