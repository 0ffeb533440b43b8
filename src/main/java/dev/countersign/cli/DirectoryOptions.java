package dev.countersign.cli;

import dev.countersign.pipeline.DirPair;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * {@code --unsigned-dir} and {@code --signed-dir}: where authors put manifests and where they go
 * once signed (run, init).
 */
final class DirectoryOptions {

  @Option(
      names = "--unsigned-dir",
      paramLabel = "DIR",
      description = "Directory of manifests to sign (default: unsigned).")
  String unsigned;

  @Option(
      names = "--signed-dir",
      paramLabel = "DIR",
      description = "Directory signed manifests move to (default: signed).")
  String signed;

  /** True when either option was given. */
  boolean given() {
    return unsigned != null || signed != null;
  }

  /** The pair, {@link DirPair#DEFAULT}'s directory for an option not given. */
  DirPair pair() {
    return new DirPair(
        Optional.ofNullable(unsigned).orElse(DirPair.DEFAULT.from()),
        Optional.ofNullable(signed).orElse(DirPair.DEFAULT.to()));
  }
}
