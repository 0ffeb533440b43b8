package dev.countersign.keys;

import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;

/** Writes a cosign-compatible key pair ({@code cosign.key} encrypted, {@code cosign.pub}). */
public final class KeyPairFiles {

  private KeyPairFiles() {}

  /**
   * Generates an ECDSA P-256 key pair and writes it: the private key encrypted under {@code
   * password} (owner-only permissions where the file system has them), the public key as PEM.
   * Existing files are never overwritten.
   *
   * @return the new public key
   * @throws UsageProblem when either file already exists
   */
  public static PublicKey generate(
      Path privateKeyFile, Path publicKeyFile, char[] password, SecureRandom random) {
    for (Path file : new Path[] {privateKeyFile, publicKeyFile}) {
      if (Files.exists(file)) {
        throw new UsageProblem(
            "Refusing to overwrite existing key file " + file + " while generating a key pair",
            "perhaps you should move it away or choose another output path");
      }
    }
    KeyPair pair = PrivateKeys.generate(random);
    String privatePem = PrivateKeys.encryptToPem(pair.getPrivate(), password, random);
    write(privateKeyFile, privatePem, true);
    write(publicKeyFile, PublicKeys.toPem(pair.getPublic()), false);
    return pair.getPublic();
  }

  private static void write(Path file, String content, boolean secret) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      if (secret
          && parent != null
          && Files.getFileStore(parent).supportsFileAttributeView("posix")) {
        // Create with 0600 from the start so the key is never readable by others, even briefly.
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(
            file, content, StandardCharsets.US_ASCII, StandardOpenOption.TRUNCATE_EXISTING);
      } else {
        Files.writeString(file, content, StandardCharsets.US_ASCII, StandardOpenOption.CREATE_NEW);
      }
    } catch (FileAlreadyExistsException e) {
      throw new UsageProblem(
          "Refusing to overwrite existing key file " + file + " while generating a key pair",
          "perhaps you should move it away or choose another output path",
          e);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write " + file + " while generating a key pair: " + e.getMessage(),
          "perhaps you should check that the directory is writable",
          e);
    }
  }
}
