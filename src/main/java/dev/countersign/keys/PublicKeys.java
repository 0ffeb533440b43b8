package dev.countersign.keys;

import dev.countersign.support.NamedFiles;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.List;
import java.util.Optional;

/**
 * Public keys as cosign writes them: a PEM {@code PUBLIC KEY} block (DER SubjectPublicKeyInfo),
 * ECDSA P-256 in practice, RSA accepted too. A file may also hold base64 of such a PEM.
 */
public final class PublicKeys {

  private static final long MAX_KEY_FILE_BYTES = 64 * 1024;

  private PublicKeys() {}

  /**
   * Reads the single public key in {@code file}.
   *
   * @throws UsageProblem when the file does not exist (it was named on the command line)
   * @throws InputProblem when the file holds no usable public key
   */
  public static PublicKey read(Path file) {
    return parse(readKeyFile(file), file);
  }

  /**
   * Parses key material that came from {@code source} (a file, or a policy field); the name is used
   * in error messages only.
   *
   * @throws InputProblem when there is not exactly one {@code PUBLIC KEY} block, or it is not an EC
   *     or RSA key
   */
  public static PublicKey parse(byte[] content, Path source) {
    return parse(content, source, 0);
  }

  /**
   * Like {@link #parse(byte[], Path)} for a key embedded in a larger file (a trust policy) at
   * {@code line} (1-based; 0 when unknown), which problems then point at.
   */
  public static PublicKey parse(byte[] content, Path source, int line) {
    List<Pem.Block> blocks =
        Pem.blocks(
            content, source, line, "perhaps you should pass a PEM public key such as cosign.pub");
    List<Pem.Block> keys = blocks.stream().filter(b -> b.type().equals("PUBLIC KEY")).toList();
    if (keys.isEmpty()) {
      String found =
          blocks.isEmpty()
              ? "no PEM block"
              : "PEM blocks " + blocks.stream().map(Pem.Block::type).toList();
      throw new InputProblem(
          source,
          line,
          "no \"-----BEGIN PUBLIC KEY-----\" block found (" + found + ")",
          "perhaps you should pass the public key file (cosign.pub), not the private key or a"
              + " certificate");
    }
    if (keys.size() > 1) {
      throw new InputProblem(
          source,
          line,
          "holds " + keys.size() + " public keys, expected one",
          "perhaps you should put each key in its own file and pass --key once per file");
    }
    return fromSpki(keys.get(0).der(), source, line);
  }

  /** A public key from DER SubjectPublicKeyInfo. */
  static PublicKey fromSpki(byte[] der, Path source) {
    return fromSpki(der, source, 0);
  }

  private static PublicKey fromSpki(byte[] der, Path source, int line) {
    return ecOrRsa(factory -> factory.generatePublic(new X509EncodedKeySpec(der)))
        .orElseThrow(
            () ->
                new InputProblem(
                    source,
                    line,
                    "the PUBLIC KEY block is not an ECDSA or RSA key",
                    "perhaps you should generate an ECDSA P-256 key with `countersign keygen` or"
                        + " `cosign generate-key-pair`"));
  }

  /** Makes a key with a {@link KeyFactory}; fails when the DER is not of its algorithm. */
  interface KeyMaker<K> {
    K make(KeyFactory factory) throws GeneralSecurityException;
  }

  /**
   * The key {@code maker} makes with the EC or else the RSA factory; empty when neither accepts it.
   * The DER names its own algorithm, so at most one can succeed.
   */
  static <K> Optional<K> ecOrRsa(KeyMaker<K> maker) {
    for (String algorithm : List.of("EC", "RSA")) {
      try {
        return Optional.of(maker.make(KeyFactory.getInstance(algorithm)));
      } catch (GeneralSecurityException e) {
        // not this algorithm: try the next
      }
    }
    return Optional.empty();
  }

  /** The key as a PEM {@code PUBLIC KEY} block, as cosign writes {@code cosign.pub}. */
  public static String toPem(PublicKey key) {
    return Pem.encode("PUBLIC KEY", key.getEncoded());
  }

  /** {@code "sha256:" + hex(sha256(DER SubjectPublicKeyInfo))}: how a keyed signer is named. */
  public static String fingerprint(PublicKey key) {
    return "sha256:" + Sha256.hex(key.getEncoded());
  }

  static byte[] readKeyFile(Path file) {
    if (Files.isDirectory(file)) {
      throw new UsageProblem(
          file + " is a directory, not a key file", "perhaps you should pass the key file itself");
    }
    return NamedFiles.read(
        file,
        "key file",
        MAX_KEY_FILE_BYTES,
        "perhaps you should check the path (the key, not a manifest)");
  }
}
