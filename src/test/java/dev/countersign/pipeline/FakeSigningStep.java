package dev.countersign.pipeline;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Stands in for Sigstore: "signs" by appending a comment line, and answers {@link
 * SigningStep.Unchanged} when the existing signed file is exactly what it would write. Records
 * every input it was asked to sign; an optional action runs during signing, which is where tests
 * inject concurrent pushes (between reading the base and pushing).
 */
final class FakeSigningStep implements SigningStep {

  static final String SIGNATURE = "# countersigned-by: fake\n";

  final List<String> signedSources = new ArrayList<>();
  final AtomicInteger calls = new AtomicInteger();
  private final ThrowingRunnable duringSigning;

  interface ThrowingRunnable {
    void run(int call) throws Exception;
  }

  FakeSigningStep() {
    this(call -> {});
  }

  FakeSigningStep(ThrowingRunnable duringSigning) {
    this.duringSigning = duringSigning;
  }

  static String signedText(String unsigned) {
    return unsigned + SIGNATURE;
  }

  @Override
  public List<Result> sign(List<Input> inputs) {
    int call = calls.incrementAndGet();
    List<Result> results = new ArrayList<>();
    for (Input input : inputs) {
      byte[] signed =
          signedText(new String(input.unsignedBytes(), StandardCharsets.UTF_8))
              .getBytes(StandardCharsets.UTF_8);
      synchronized (signedSources) {
        signedSources.add(input.sourcePath());
      }
      if (input.existingSigned().map(b -> Arrays.equals(b, signed)).orElse(false)) {
        results.add(new Unchanged(input.targetPath()));
      } else {
        results.add(new Signed(input.targetPath(), signed));
      }
    }
    try {
      duringSigning.run(call);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return results;
  }
}
