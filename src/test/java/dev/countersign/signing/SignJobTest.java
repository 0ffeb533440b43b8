package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.problems.RemoteProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar bundle JSON is kept exactly when asked for, and signing is otherwise unchanged. */
class SignJobTest {

  @TempDir Path dir;

  /** Keeps no existing output: these tests sign into new outputs. */
  private static final ReuseCheck KEEPS_NOTHING = (kept, message) -> false;

  private final ManifestReader reader = new ManifestReader();
  private final SignedManifestFormat format =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);
  private MessageSigner signer;

  /** A signer that passes everything but {@link #sign} on to another. */
  private abstract static class DelegatingSigner implements MessageSigner {
    final MessageSigner delegate;

    DelegatingSigner(MessageSigner delegate) {
      this.delegate = delegate;
    }

    @Override
    public String signerDescription() {
      return delegate.signerDescription();
    }

    @Override
    public SignerIdentity identity() {
      return delegate.identity();
    }
  }

  /** A real key signer whose material also carries a (stand-in) Sigstore bundle JSON. */
  private static final class BundleProducingSigner extends DelegatingSigner {
    BundleProducingSigner(KeyMessageSigner keyed) {
      super(keyed);
    }

    @Override
    public SignatureMaterial sign(byte[] message) {
      SignatureMaterial m = delegate.sign(message);
      return new SignatureMaterial(
          m.signature(),
          m.certificatePem(),
          m.rekorBundle(),
          Optional.of("{\"mediaType\":\"bundle for " + message.length + " bytes\"}"),
          m.signer());
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = generator.generateKeyPair();
    signer = new BundleProducingSigner(new KeyMessageSigner(pair.getPrivate(), pair.getPublic()));
    for (int i = 0; i < 10; i++) {
      Files.writeString(
          dir.resolve("cm" + i + ".yaml"),
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm"
              + i
              + "\ndata:\n  k: v"
              + i
              + "\n");
    }
  }

  private List<SignJob.Item> items() {
    return items(3);
  }

  /** cm0..cm{count-1} (at most 10), each signed into out/. */
  private List<SignJob.Item> items(int count) {
    return IntStream.range(0, count)
        .boxed()
        .map(
            i -> {
              Path file = dir.resolve("cm" + i + ".yaml");
              return new SignJob.Item(
                  reader.read(file, file),
                  dir.resolve("out/cm" + i + ".yaml"),
                  Optional.empty(),
                  true);
            })
        .toList();
  }

  @Test
  void sign_withoutSidecars_dropsTheBundleJsonButSignsEveryItem() {
    List<SignJob.Outcome> outcomes =
        new SignJob(reader, format, () -> signer, KEEPS_NOTHING, SignProgress.NONE)
            .sign(items(), false, Parallelism.of(2), false);

    assertThat(outcomes).hasSize(3);
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.sidecarJson()).isEmpty();
              assertThat(o.signedBytes()).isPresent();
              assertThat(o.entry().signer()).contains(signer.signerDescription());
              assertThat(new String(o.signedBytes().get(), StandardCharsets.UTF_8))
                  .contains("cosign.sigstore.dev/signature:");
            });
  }

  @Test
  void sign_asksTheReuseCheckOnlyAboutAnOutputOverTheSameMessage_andKeepsItOnlyWhenItSaysSo()
      throws Exception {
    List<SignJob.Item> fresh = items(2);
    List<SignJob.Outcome> first =
        new SignJob(reader, format, () -> signer, KEEPS_NOTHING, SignProgress.NONE)
            .sign(fresh, false, Parallelism.of(1), false);
    Path signedCm0 = dir.resolve("signed-cm0.yaml");
    Files.write(signedCm0, first.get(0).signedBytes().orElseThrow());
    var existing = reader.read(signedCm0, signedCm0);
    // cm0 over its own signed file; cm1 over cm0's (another message); cm2 over nothing.
    List<SignJob.Item> again =
        List.of(
            new SignJob.Item(fresh.get(0).input(), signedCm0, Optional.of(existing), false),
            new SignJob.Item(fresh.get(1).input(), signedCm0, Optional.of(existing), true),
            items(3).get(2));

    for (boolean covers : List.of(true, false)) {
      List<Path> asked = new CopyOnWriteArrayList<>();
      ReuseCheck recording =
          (kept, message) -> {
            asked.add(kept.displayPath());
            return covers;
          };
      List<SignJob.Outcome> outcomes =
          new SignJob(reader, format, () -> signer, recording, SignProgress.NONE)
              .sign(again, false, Parallelism.of(1), false);

      assertThat(asked).as("covers=" + covers).containsExactly(signedCm0);
      assertThat(outcomes.stream().map(o -> o.entry().outcome()))
          .as("covers=" + covers)
          .containsExactly(
              covers ? SignReport.Outcome.UNCHANGED : SignReport.Outcome.SIGNED,
              SignReport.Outcome.SIGNED,
              SignReport.Outcome.SIGNED);
    }
  }

  @Test
  void sign_withSidecars_keepsEachSignaturesBundleJson() {
    List<SignJob.Outcome> outcomes =
        new SignJob(reader, format, () -> signer, KEEPS_NOTHING, SignProgress.NONE)
            .sign(items(), false, Parallelism.of(2));

    assertThat(outcomes)
        .allSatisfy(
            o ->
                assertThat(o.sidecarJson())
                    .hasValueSatisfying(json -> assertThat(json).startsWith("{\"mediaType\"")));
  }

  @Test
  void run_bundleSidecar_writesTheSidecarNextToTheSignedFile() throws Exception {
    SignReport report =
        new SignJob(reader, format, () -> signer, KEEPS_NOTHING, SignProgress.NONE)
            .run(
                new SignRequest(
                    List.of(dir.resolve("cm0.yaml")),
                    Optional.of(dir.resolve("out")),
                    false,
                    false,
                    true,
                    Parallelism.of(1)));

    assertThat(report.signedCount()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("out/cm0.yaml.sigstore.json")))
        .startsWith("{\"mediaType\"");
  }

  @Test
  void sign_withNoNumberChosen_keepsTheSignersSuggestionInFlight() throws Exception {
    List<SignJob.Item> items = new ArrayList<>();
    for (int round = 0; round < 3; round++) {
      items.addAll(items());
    }
    InFlightSigner counting = new InFlightSigner(signer, 3);

    new SignJob(reader, format, () -> counting, KEEPS_NOTHING, SignProgress.NONE)
        .sign(items, false, Parallelism.SIGNERS_CHOICE, false);

    // Each signature waits until three are in flight: fewer threads would time out.
    assertThat(counting.mostInFlight.get()).isEqualTo(3);
    assertThat(counting.signed.get()).isEqualTo(9);
  }

  @Test
  void sign_whenOneSignatureFails_startsNoOther_andThrowsThatFailureWithoutAwaitingOnesInFlight()
      throws Exception {
    List<SignJob.Item> items = items(10);
    FailingSigner failing = new FailingSigner(signer);
    RecordingProgress progress = new RecordingProgress();
    SignJob job = new SignJob(reader, format, () -> failing, KEEPS_NOTHING, progress);

    // Two in flight: cm0 hangs like an HTTP request that ignores interrupts, cm1 fails; cm2..cm9
    // wait in the queue.
    assertThatThrownBy(() -> job.sign(items, false, Parallelism.of(2), false))
        .isInstanceOf(RemoteProblem.class)
        .hasMessage("Rekor refused cm1");

    assertThat(failing.othersSigned.get()).as("signatures started after the failure").isZero();
    assertThat(progress.finished.get()).as("progress closed on the failure").isEqualTo(1);
    // The hung request comes back after the job gave up: nothing is told about it.
    failing.releaseHung.countDown();
    failing.hungThread.get().join(TimeUnit.SECONDS.toMillis(60));
    assertThat(failing.hungThread.get().isAlive()).isFalse();
    assertThat(progress.signed).isEmpty();
  }

  @Test
  void sign_withTwoInFlight_andNoFailure_signsAndReportsEveryItemInItemOrder() {
    List<SignJob.Item> items = items(10);
    RecordingProgress progress = new RecordingProgress();

    List<SignJob.Outcome> outcomes =
        new SignJob(reader, format, () -> signer, KEEPS_NOTHING, progress)
            .sign(items, false, Parallelism.of(2), false);

    assertThat(outcomes)
        .extracting(o -> o.item().output())
        .containsExactlyElementsOf(items.stream().map(SignJob.Item::output).toList());
    assertThat(outcomes)
        .allSatisfy(
            o ->
                assertThat(new String(o.signedBytes().orElseThrow(), StandardCharsets.UTF_8))
                    .contains(
                        "name: "
                            + o.item().output().getFileName().toString().replace(".yaml", "")));
    assertThat(progress.signed).hasSize(10);
    assertThat(progress.finished.get()).isEqualTo(1);
  }

  /**
   * Hangs on cm0 (until released, ignoring interrupts, as a blocked HTTP read does) and fails cm1
   * once cm0 is under way; signs every other item with the real key, counting them.
   */
  private static final class FailingSigner extends DelegatingSigner {
    final CountDownLatch hungStarted = new CountDownLatch(1);
    final CountDownLatch releaseHung = new CountDownLatch(1);
    final AtomicReference<Thread> hungThread = new AtomicReference<>();
    final AtomicInteger othersSigned = new AtomicInteger();

    FailingSigner(MessageSigner delegate) {
      super(delegate);
    }

    @Override
    public SignatureMaterial sign(byte[] message) {
      String text = new String(message, StandardCharsets.UTF_8);
      if (text.contains("name: cm0\n")) {
        hungThread.set(Thread.currentThread());
        hungStarted.countDown();
        awaitIgnoringInterrupts(releaseHung);
      } else if (text.contains("name: cm1\n")) {
        awaitIgnoringInterrupts(hungStarted);
        throw new RemoteProblem("Rekor refused cm1", null);
      } else {
        othersSigned.incrementAndGet();
      }
      return delegate.sign(message);
    }

    private static void awaitIgnoringInterrupts(CountDownLatch latch) {
      boolean interrupted = false;
      try {
        while (true) {
          try {
            // Bounded so that a job that waits for this item does not hang the test forever.
            latch.await(60, TimeUnit.SECONDS);
            return;
          } catch (InterruptedException e) {
            interrupted = true;
          }
        }
      } finally {
        if (interrupted) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }

  /** What a sign job told its progress. */
  private static final class RecordingProgress implements SignProgress {
    final List<Path> signed = new CopyOnWriteArrayList<>();
    final AtomicInteger finished = new AtomicInteger();

    @Override
    public void signed(Path displayPath, int done, int total) {
      signed.add(displayPath);
    }

    @Override
    public void finished() {
      finished.incrementAndGet();
    }
  }

  /** Suggests {@code suggested} in flight, and holds each signature until that many are. */
  private static final class InFlightSigner extends DelegatingSigner {
    private final int suggested;
    private final CyclicBarrier together;
    private final AtomicInteger inFlight = new AtomicInteger();
    final AtomicInteger mostInFlight = new AtomicInteger();
    final AtomicInteger signed = new AtomicInteger();

    InFlightSigner(MessageSigner delegate, int suggested) {
      super(delegate);
      this.suggested = suggested;
      this.together = new CyclicBarrier(suggested);
    }

    @Override
    public int suggestedInFlight() {
      return suggested;
    }

    @Override
    public SignatureMaterial sign(byte[] message) {
      mostInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      try {
        together.await(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        throw new IllegalStateException("fewer than " + suggested + " signatures in flight", e);
      }
      try {
        return delegate.sign(message);
      } finally {
        inFlight.decrementAndGet();
        signed.incrementAndGet();
      }
    }
  }
}
