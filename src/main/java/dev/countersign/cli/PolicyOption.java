package dev.countersign.cli;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --policy}: the trust policy file of the commands that read it from the repository. */
final class PolicyOption {

  @Option(
      names = "--policy",
      paramLabel = "FILE",
      defaultValue = ".countersign/policy.yaml",
      description = "The trust policy, relative to the repository (default: ${DEFAULT-VALUE}).")
  Path file;
}
