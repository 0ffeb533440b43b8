package dev.countersign.support;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** SHA-256, the one digest the signed-manifest format, Rekor and key fingerprints use. */
public final class Sha256 {

  private Sha256() {}

  public static byte[] of(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** Lowercase hex of {@link #of}. */
  public static String hex(byte[] data) {
    return HexFormat.of().formatHex(of(data));
  }

  /** {@code sha256:} + {@link #hex}: an OCI content digest. */
  public static String digest(byte[] data) {
    return "sha256:" + hex(data);
  }
}
