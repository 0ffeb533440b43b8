package dev.countersign.signing;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.AtomicWrites;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Signs manifest files: read and validate all → sign what changed, in parallel → write all.
 *
 * <p>All or nothing: if any file is invalid or any signature fails, no file is written. Files
 * whose output already carries a signature over the same message are left untouched (no churn),
 * so a re-run is safe and cheap: it builds no signer when nothing needs signing.
 */
public final class SignJob {

  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final Supplier<MessageSigner> signerFactory;
  private final SignProgress progress;

  /**
   * @param signerFactory called at most once, and only when something needs signing, so a no-op
   *     run never contacts Fulcio or reads a key
   */
  public SignJob(
      ManifestReader reader,
      SignedManifestFormat format,
      Supplier<MessageSigner> signerFactory,
      SignProgress progress) {
    this.reader = reader;
    this.format = format;
    this.signerFactory = signerFactory;
    this.progress = progress;
  }

  /**
   * One file to sign: what was read, where it goes, its message, the documents the signature is
   * added to, whether it is already signed as is, and (appending) the next free set index.
   */
  private record Plan(
      ManifestFile input,
      Path output,
      byte[] message,
      List<ManifestDocument> baseDocuments,
      boolean unchanged,
      Optional<Integer> appendIndex) {}

  private record Signed(Plan plan, byte[] bytes, SignatureMaterial material) {}

  public SignReport run(SignRequest request) {
    List<Plan> plans = plan(request);
    List<Plan> toSign = plans.stream().filter(p -> !p.unchanged()).toList();
    progress.started(toSign.size(), plans.size() - toSign.size());
    List<Signed> signed = toSign.isEmpty() ? List.of() : signAll(toSign, request.parallelism());
    progress.finished();

    AtomicWrites writes = new AtomicWrites();
    List<SignReport.Entry> entries = new ArrayList<>();
    for (Signed s : signed) {
      writes.stage(s.plan().output(), s.bytes());
      Optional<Path> sidecar = Optional.empty();
      if (request.bundleSidecar() && s.material().sigstoreBundleJson().isPresent()) {
        Path sidecarPath = sidecarFor(s.plan().output());
        writes.stage(sidecarPath, s.material().sigstoreBundleJson().get().getBytes(StandardCharsets.UTF_8));
        sidecar = Optional.of(sidecarPath);
      }
      entries.add(
          new SignReport.Entry(
              s.plan().input().displayPath(),
              s.plan().output(),
              SignReport.Outcome.SIGNED,
              digest(s.plan().message()),
              Optional.of(s.material().signer()),
              s.material().rekorBundle().map(b -> b.logIndex()),
              sidecar));
    }
    for (Plan p : plans) {
      if (p.unchanged()) {
        entries.add(
            new SignReport.Entry(
                p.input().displayPath(),
                p.output(),
                SignReport.Outcome.UNCHANGED,
                digest(p.message()),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
      }
    }
    writes.commit();
    entries.sort((a, b) -> a.input().toString().compareTo(b.input().toString()));
    return new SignReport(entries);
  }

  /** The sidecar bundle path for a signed manifest: {@code x.yaml} → {@code x.yaml.sigstore.json}. */
  public static Path sidecarFor(Path manifest) {
    return manifest.resolveSibling(manifest.getFileName() + ".sigstore.json");
  }

  private List<Plan> plan(SignRequest request) {
    List<InputProblem> problems = new ArrayList<>();
    List<Plan> plans = new ArrayList<>();
    for (Path root : request.inputs()) {
      List<Path> files = ManifestPaths.expand(List.of(root));
      if (files.isEmpty() && Files.isDirectory(root)) {
        continue;
      }
      for (Path file : files) {
        try {
          plans.add(planOne(request, root, file));
        } catch (InputProblem problem) {
          problems.add(problem);
        }
      }
    }
    if (!problems.isEmpty()) {
      throw InputProblem.combine(problems);
    }
    return plans;
  }

  private Plan planOne(SignRequest request, Path root, Path file) {
    ManifestFile input = reader.read(file, file);
    byte[] message = format.message(input.documents());
    Path output = request.outputDir().map(out -> out.resolve(relative(root, file))).orElse(file);
    boolean inPlace = output.toAbsolutePath().normalize().equals(file.toAbsolutePath().normalize());
    if (!Files.exists(output, LinkOption.NOFOLLOW_LINKS)) {
      return new Plan(input, output, message, input.documents(), false, Optional.empty());
    }
    ManifestFile existing = inPlace ? input : reader.read(output, output);
    boolean sameMessage = existing.documents().stream()
        .allMatch(doc -> decodedMessage(doc).map(m -> Arrays.equals(m, message)).orElse(false));
    if (sameMessage && !request.append()) {
      return new Plan(input, output, message, existing.documents(), true, Optional.empty());
    }
    if (request.append()) {
      if (!sameMessage && existing.documents().stream().anyMatch(d -> decodedMessage(d).isPresent())) {
        throw new UsageProblem(
            "Cannot append a signature to " + output + ": its content changed since it was signed",
            "sign without --append to replace the old signatures");
      }
      boolean signedBefore = existing.documents().stream().anyMatch(d -> decodedMessage(d).isPresent());
      // Every document of a signed file carries the same sets, so the next index is shared.
      Optional<Integer> next =
          signedBefore
              ? Optional.of(existing.documents().stream().mapToInt(format::existingSignatureSets).max().orElse(0))
              : Optional.empty();
      return new Plan(input, output, message, existing.documents(), false, next);
    }
    if (!inPlace && !request.force()) {
      throw new UsageProblem(
          "Refusing to overwrite " + output + ": it exists and is not a signature of " + file,
          "pass --force to replace it, or choose another --out directory");
    }
    return new Plan(input, output, message, input.documents(), false, Optional.empty());
  }

  private Optional<byte[]> decodedMessage(ManifestDocument document) {
    try {
      return format.decode(document).map(SignedContent::message);
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

  private List<Signed> signAll(List<Plan> plans, int parallelism) {
    MessageSigner signer = signerFactory.get();
    int threads = Math.min(parallelism, plans.size());
    ExecutorService pool = Executors.newFixedThreadPool(threads, daemonThreads());
    AtomicInteger done = new AtomicInteger();
    try {
      List<Future<Signed>> futures = new ArrayList<>();
      for (Plan plan : plans) {
        futures.add(
            pool.submit(
                () -> {
                  Signed result = signOne(signer, plan);
                  progress.signed(plan.input().displayPath(), done.incrementAndGet(), plans.size());
                  return result;
                }));
      }
      List<Signed> results = new ArrayList<>();
      for (Future<Signed> future : futures) {
        results.add(await(future));
      }
      return results;
    } finally {
      pool.shutdownNow();
    }
  }

  private Signed signOne(MessageSigner signer, Plan plan) {
    SignatureMaterial material = signer.sign(plan.message());
    int index = plan.appendIndex().orElse(0);
    boolean append = plan.appendIndex().isPresent();
    Map<String, String> annotations =
        format.annotations(plan.message(), index, material.signature(), material.certificatePem(), material.rekorBundle());
    List<String> header =
        List.of(
            "Signed by countersign. Any edit invalidates the signature: change the unsigned source instead.",
            "message: " + digest(plan.message()),
            "signer: " + material.signer());
    byte[] bytes = format.render(plan.baseDocuments(), annotations, append, header);
    return new Signed(plan, bytes, material);
  }

  private static Signed await(Future<Signed> future) {
    try {
      return future.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InternalProblem("Interrupted while signing", null, e);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      if (cause instanceof CountersignException problem) {
        throw problem;
      }
      throw new InternalProblem("Signing failed unexpectedly: " + cause, null, cause);
    }
  }

  private static java.util.concurrent.ThreadFactory daemonThreads() {
    AtomicInteger count = new AtomicInteger();
    return runnable -> {
      Thread thread = new Thread(runnable, "countersign-sign-" + count.incrementAndGet());
      thread.setDaemon(true);
      return thread;
    };
  }

  /** {@code sha256:<hex>} of {@code bytes}. */
  public static String digest(byte[] bytes) {
    try {
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
