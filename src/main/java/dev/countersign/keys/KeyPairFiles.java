package dev.countersign.keys;

import dev.countersign.support.AtomicWrites;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.PublicKey;
import java.security.SecureRandom;

/** Writes a cosign-compatible key pair ({@code cosign.key} encrypted, {@code cosign.pub}). */
public final class KeyPairFiles {

  private KeyPairFiles() {}

  /** True when something (a file, a directory, a link, even a dangling one) is at {@code file}. */
  public static boolean occupied(Path file) {
    return NoFollowPaths.lstat(file).isPresent();
  }

  /**
   * Generates an ECDSA P-256 key pair and writes it: the private key encrypted under {@code
   * password}, owner-only from the moment it exists (where the file system has permissions), the
   * public key as PEM. Both files or neither: each is written to a temporary file beside it and
   * renamed into place, never through a link.
   *
   * @param replace replace existing files; without it an existing file (or link) is refused
   * @return the new public key
   * @throws UsageProblem when a file already exists and {@code replace} is false
   * @throws InputProblem when either path is a link
   */
  public static PublicKey generate(
      Path privateKeyFile,
      Path publicKeyFile,
      char[] password,
      SecureRandom random,
      boolean replace) {
    for (Path file : new Path[] {privateKeyFile, publicKeyFile}) {
      if (!replace && occupied(file)) {
        throw new UsageProblem(
            "Refusing to overwrite existing key file " + file + " while generating a key pair",
            "perhaps you should move it away or choose another output path");
      }
    }
    KeyPair pair = PrivateKeys.generate(random);
    String privatePem = PrivateKeys.encryptToPem(pair.getPrivate(), password, random);
    AtomicWrites writes = new AtomicWrites();
    // Checked from each file's own directory down: the user chose the directory, not the file.
    // Owner-only (rw-------) from the moment its file exists, so the private key is never
    // readable by others, not even briefly.
    writes.stageOwnerOnly(
        directoryOf(privateKeyFile),
        privateKeyFile,
        privatePem.getBytes(StandardCharsets.US_ASCII));
    writes.stage(
        directoryOf(publicKeyFile),
        publicKeyFile,
        PublicKeys.toPem(pair.getPublic()).getBytes(StandardCharsets.US_ASCII));
    writes.commit();
    makeReadable(publicKeyFile);
    return pair.getPublic();
  }

  /** Like {@link #generate(Path, Path, char[], SecureRandom, boolean)}, never replacing. */
  public static PublicKey generate(
      Path privateKeyFile, Path publicKeyFile, char[] password, SecureRandom random) {
    return generate(privateKeyFile, publicKeyFile, password, random, false);
  }

  private static Path directoryOf(Path file) {
    return file.toAbsolutePath().normalize().getParent();
  }

  /** The public key is for sharing: rw-r--r--, set on the file itself, never through a link. */
  private static void makeReadable(Path publicKeyFile) {
    PosixFileAttributeView view =
        Files.getFileAttributeView(
            publicKeyFile, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
    if (view == null) {
      return;
    }
    try {
      view.setPermissions(PosixFilePermissions.fromString("rw-r--r--"));
    } catch (IOException | UnsupportedOperationException e) {
      throw new EnvironmentProblem(
          "Could not make " + publicKeyFile + " readable while generating a key pair: " + e,
          "perhaps you should check the file system; the key pair itself was written",
          e);
    }
  }
}
