package dev.countersign.cli;

import dev.countersign.manifest.ManifestReader;
import picocli.CommandLine.Option;

/**
 * {@code --max-file-size}: the size above which a manifest file is refused unread, for every
 * command that reads manifests (run and check must agree on it).
 */
final class MaxFileSizeOption {

  @Option(
      names = "--max-file-size",
      paramLabel = "BYTES",
      defaultValue = "1048576",
      description =
          "Refuse manifest files (signed or unsigned) larger than this, before reading them; keep"
              + " it the same for run and check (default: ${DEFAULT-VALUE}, 1 MiB).")
  long bytes;

  /** A manifest reader with this limit. */
  ManifestReader reader() {
    return new ManifestReader(bytes);
  }
}
