package dev.countersign.cli;

import dev.countersign.signing.Parallelism;
import picocli.CommandLine.Option;

/** {@code --parallel}: signatures in flight at once, for the commands that sign many files. */
final class ParallelOption {

  // No picocli default: left out, the signer suggests a number for the log it uploads to (32 for
  // Sigstore's shared log, 128 for one's own; docs/performance.md, "How many uploads in flight").
  @Option(
      names = "--parallel",
      paramLabel = "N",
      description =
          "Signatures in flight at once, 1 to 1024 (default: 32 against Sigstore's public-good"
              + " Rekor, 128 against a Rekor of your own, named by --signing-config or, with --key"
              + " --tlog-upload, by --rekor-url; with --key and no log, one per processor).")
  Integer parallel;

  /**
   * The number chosen, or the signer's suggestion.
   *
   * @throws dev.countersign.support.problems.UsageProblem when the number is below 1 or above
   *     {@link Parallelism#MAX_IN_FLIGHT}
   */
  Parallelism parallelism() {
    return parallel == null ? Parallelism.SIGNERS_CHOICE : Parallelism.of(parallel);
  }
}
