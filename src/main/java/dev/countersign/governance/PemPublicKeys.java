package dev.countersign.governance;

import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Minimal reader for one PEM "PUBLIC KEY" block (SubjectPublicKeyInfo), EC first as cosign keys
 * are ECDSA P-256, then RSA. A fuller loader lives in package {@code keys}; this one exists so the
 * policy file works on its own and can be swapped for it.
 */
final class PemPublicKeys {

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\\s]+)-----END PUBLIC KEY-----");

  private PemPublicKeys() {}

  static PublicKey parse(String pem, Path file, int line) {
    Matcher matcher = BLOCK.matcher(pem);
    if (!matcher.find()) {
      throw new InputProblem(
          file,
          line,
          "no \"-----BEGIN PUBLIC KEY-----\" block found",
          ", perhaps you should export the key with \"cosign public-key\" (a PEM SubjectPublicKeyInfo)");
    }
    byte[] der;
    try {
      der = Base64.getMimeDecoder().decode(matcher.group(1).replaceAll("\\s", ""));
    } catch (IllegalArgumentException e) {
      throw new InputProblem(file, line, "the PUBLIC KEY block is not valid base64", null, e);
    }
    GeneralSecurityException last = null;
    for (String algorithm : new String[] {"EC", "RSA"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
      } catch (GeneralSecurityException e) {
        last = e;
      }
    }
    throw new InputProblem(
        file,
        line,
        "the PUBLIC KEY block is neither an EC nor an RSA public key",
        ", perhaps you should export the key with \"cosign public-key\"",
        last);
  }
}
