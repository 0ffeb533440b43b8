package dev.countersign.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/** {@code --key}: public keys whose signatures the verifying commands accept (verify, promote). */
final class PublicKeyOption {

  @Option(
      names = "--key",
      paramLabel = "FILE",
      description = "Accept keyed signatures by this public key (repeatable).")
  List<Path> files = new ArrayList<>();
}
