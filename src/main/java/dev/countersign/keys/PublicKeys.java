package dev.countersign.keys;

import dev.countersign.support.NamedFiles;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.X509EncodedKeySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Public keys as cosign writes them: a PEM {@code PUBLIC KEY} block (DER SubjectPublicKeyInfo),
 * ECDSA P-256 in practice; P-384, P-521 and RSA of 2048 to 4096 bits are accepted too, weaker keys
 * never. A file may also hold base64 of such a PEM.
 */
public final class PublicKeys {

  private static final long MAX_KEY_FILE_BYTES = 64 * 1024;
  private static final int MIN_RSA_BITS = 2048;
  private static final int MAX_RSA_BITS = 4096;
  private static final List<ECParameterSpec> NIST_CURVES = nistCurves();

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
    PublicKey key =
        ecOrRsa(factory -> factory.generatePublic(new X509EncodedKeySpec(der)))
            .orElseThrow(
                () ->
                    new InputProblem(
                        source,
                        line,
                        "the PUBLIC KEY block is not an ECDSA or RSA key",
                        "perhaps you should generate an ECDSA P-256 key with `countersign keygen`"
                            + " or `cosign generate-key-pair`"));
    weakness(key)
        .ifPresent(
            problem -> {
              throw new InputProblem(
                  source,
                  line,
                  "the PUBLIC KEY block is " + problem,
                  "perhaps you should generate an ECDSA P-256 key with `countersign keygen` or"
                      + " `cosign generate-key-pair`");
            });
    return key;
  }

  /**
   * Why {@code key} must not be trusted, or empty when it may: ECDSA on P-256, P-384 or P-521, or
   * RSA of 2048 to 4096 bits (the keys sigstore's clients work with). A weaker key would let
   * whoever breaks it (an RSA-512 modulus factors in hours) sign as a trusted signer, and nobody
   * reviewing a PEM block can see its size; a larger one only costs verification time.
   */
  static Optional<String> weakness(PublicKey key) {
    if (key instanceof RSAPublicKey rsa) {
      int bits = rsa.getModulus().bitLength();
      return bits >= MIN_RSA_BITS && bits <= MAX_RSA_BITS
          ? Optional.empty()
          : Optional.of(
              "a "
                  + bits
                  + "-bit RSA key; only RSA keys of "
                  + MIN_RSA_BITS
                  + " to "
                  + MAX_RSA_BITS
                  + " bits are accepted");
    }
    if (key instanceof ECPublicKey ec) {
      return NIST_CURVES.stream().anyMatch(curve -> sameCurve(curve, ec.getParams()))
          ? Optional.empty()
          : Optional.of(
              "an ECDSA key on a "
                  + ec.getParams().getCurve().getField().getFieldSize()
                  + "-bit curve that is not P-256, P-384 or P-521; only those curves are"
                  + " accepted");
    }
    return Optional.of("a " + key.getAlgorithm() + " key, not an ECDSA or RSA key");
  }

  private static boolean sameCurve(ECParameterSpec a, ECParameterSpec b) {
    return a.getCurve().equals(b.getCurve())
        && a.getGenerator().equals(b.getGenerator())
        && a.getOrder().equals(b.getOrder())
        && a.getCofactor() == b.getCofactor();
  }

  private static List<ECParameterSpec> nistCurves() {
    try {
      List<ECParameterSpec> curves = new ArrayList<>();
      for (String name : List.of("secp256r1", "secp384r1", "secp521r1")) {
        AlgorithmParameters parameters = AlgorithmParameters.getInstance("EC");
        parameters.init(new ECGenParameterSpec(name));
        curves.add(parameters.getParameterSpec(ECParameterSpec.class));
      }
      return List.copyOf(curves);
    } catch (GeneralSecurityException e) {
      throw new InternalProblem("the JDK lacks the NIST curves P-256, P-384 and P-521", null, e);
    }
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
