package dev.countersign.cli;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.keys.PrivateKeys;
import dev.countersign.keys.PublicKeys;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

@Command(
    name = "keygen",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Write a cosign-compatible key pair: PREFIX.key (encrypted, scrypt + secretbox) and"
          + " PREFIX.pub.",
      "The password comes from COSIGN_PASSWORD (an empty value is an explicit empty password), else"
          + " a prompt (twice).",
      "Without a terminal and without COSIGN_PASSWORD it refuses, unless --no-password."
    })
final class KeygenCommand extends Subcommand {

  @Option(
      names = "--output-key-prefix",
      paramLabel = "PREFIX",
      defaultValue = "cosign",
      description = "Write PREFIX.key and PREFIX.pub (default: ${DEFAULT-VALUE}).")
  Path prefix;

  @Option(
      names = "--force",
      description =
          "Replace existing key files (both are replaced or neither; never through a link).")
  boolean force;

  @Option(
      names = "--no-password",
      description = "Encrypt the private key with an empty password (for throwaway test keys).")
  boolean noPassword;

  @Override
  int call(Runtime runtime) {
    Path privateFile = prefix.resolveSibling(prefix.getFileName() + ".key");
    Path publicFile = prefix.resolveSibling(prefix.getFileName() + ".pub");
    for (Path file : new Path[] {privateFile, publicFile}) {
      // Before asking for a password; a link counts as a file here, even a dangling one.
      if (KeyPairFiles.occupied(file) && !force) {
        throw new UsageProblem(
            "Refusing to overwrite " + file, "pass --force, or choose another --output-key-prefix");
      }
    }
    char[] password = noPassword ? new char[0] : password(runtime);
    PublicKey publicKey =
        KeyPairFiles.generate(privateFile, publicFile, password, new SecureRandom(), force);
    Arrays.fill(password, '\0');
    runtime.out().println("Private key written to " + privateFile);
    runtime
        .out()
        .println(
            "Public key written to " + publicFile + " (" + PublicKeys.fingerprint(publicKey) + ")");
    return ExitCode.OK.code();
  }

  private static char[] password(Runtime runtime) {
    if (runtime.env().exact(PrivateKeys.PASSWORD_VARIABLE).isPresent()) {
      return PrivateKeys.passwordFrom(runtime.env());
    }
    Optional<char[]> first = runtime.passwordPrompt().ask("Password for the new private key: ");
    if (first.isEmpty()) {
      // No terminal: never fall back silently to an empty password.
      throw new UsageProblem(
          "No password for the new private key: COSIGN_PASSWORD is not set and there is no terminal"
              + " to ask",
          "set COSIGN_PASSWORD (an empty value means an empty password), or pass --no-password for"
              + " an unencrypted-equivalent test key");
    }
    char[] again = runtime.passwordPrompt().ask("Password again: ").orElse(new char[0]);
    if (!Arrays.equals(first.get(), again)) {
      throw new UsageProblem("The two passwords differ", "run keygen again");
    }
    return first.get();
  }
}
