package dev.countersign.cli;

import picocli.CommandLine.Option;

/** {@code --parallel}: signatures in flight at once, for the commands that sign many files. */
final class ParallelOption {

  // 32: keyless signing is bounded by Rekor round trips (one per manifest); 32 in flight cut
  // 500 manifests at 150 ms latency from ~9.5 s to ~8 s on 2 cores (docs/performance.md).
  @Option(
      names = "--parallel",
      paramLabel = "N",
      defaultValue = "32",
      description = "Signatures in flight at once (default: ${DEFAULT-VALUE}).")
  int parallel;
}
