package dev.countersign.signing;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** What a sign job did, file by file, in path order. */
public record SignReport(List<Entry> entries) {

  public SignReport {
    entries = List.copyOf(entries);
  }

  /** SIGNED: a new signature was written; UNCHANGED: the output already covered this content. */
  public enum Outcome {
    SIGNED,
    UNCHANGED
  }

  /**
   * @param input the manifest that was read
   * @param output where the signed manifest is (or already was)
   * @param messageDigest {@code sha256:<hex>} of the signed message
   * @param signer identity or key fingerprint; empty for unchanged files
   * @param rekorLogIndex the transparency-log index, when logged
   */
  public record Entry(
      Path input,
      Path output,
      Outcome outcome,
      String messageDigest,
      Optional<String> signer,
      Optional<Long> rekorLogIndex,
      Optional<Path> sidecar) {}

  public long signedCount() {
    return entries.stream().filter(e -> e.outcome() == Outcome.SIGNED).count();
  }

  public long unchangedCount() {
    return entries.stream().filter(e -> e.outcome() == Outcome.UNCHANGED).count();
  }
}
