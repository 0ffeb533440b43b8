package dev.countersign.signing;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * What to sign and where to put it.
 *
 * @param inputs files or directories (directories are searched recursively for .yaml/.yml)
 * @param outputDir mirror relative paths under this directory; empty = sign in place
 * @param force overwrite an existing output that differs from the input
 * @param append add a signature set instead of replacing existing ones
 * @param bundleSidecar also write {@code FILE.sigstore.json} (keyless only)
 * @param parallelism how many signatures may be in flight at once (log uploads overlap)
 */
public record SignRequest(
    List<Path> inputs,
    Optional<Path> outputDir,
    boolean force,
    boolean append,
    boolean bundleSidecar,
    Parallelism parallelism) {

  public SignRequest {
    inputs = List.copyOf(inputs);
  }
}
