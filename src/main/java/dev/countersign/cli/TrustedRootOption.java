package dev.countersign.cli;

import dev.countersign.support.Memoized;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Path;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** {@code --trusted-root}: the Sigstore trust material the verifying commands check against. */
final class TrustedRootOption {

  @Option(
      names = "--trusted-root",
      paramLabel = "FILE",
      description =
          "Sigstore trusted_root.json to verify signatures against, offline (default: the"
              + " public-good root via TUF, fetched only for keyless signers).")
  Path file;

  /** {@code --trusted-root}, else the public-good root; see {@link #fileOrPublicGood}. */
  Supplier<TrustedRoot> root() {
    return fileOrPublicGood(file);
  }

  /**
   * The trust root in {@code file}, else (null) the public-good root through TUF; read on first use
   * only, then kept.
   */
  static Supplier<TrustedRoot> fileOrPublicGood(Path file) {
    return Memoized.of(
        () -> file != null ? TrustedRoot.fromFile(file) : TrustedRoot.fromPublicGoodTuf(null));
  }
}
