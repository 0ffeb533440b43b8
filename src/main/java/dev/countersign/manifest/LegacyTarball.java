package dev.countersign.manifest;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads the members of the tar archive inside a legacy {@code --tarball=yes} message (ustar, with
 * GNU long names and pax {@code path} records), enough for what k8s-manifest-sigstore wrote. Only
 * regular files are returned.
 */
final class LegacyTarball {

  record Member(String name, byte[] content) {
    boolean isYaml() {
      String lower = name.toLowerCase(Locale.ROOT);
      return lower.endsWith(".yaml") || lower.endsWith(".yml");
    }
  }

  private static final int BLOCK = 512;

  private LegacyTarball() {}

  /**
   * @throws IllegalArgumentException when the bytes are not a well-formed tar archive
   */
  static List<Member> members(byte[] tar) {
    List<Member> members = new ArrayList<>();
    int offset = 0;
    String longName = null;
    while (offset + BLOCK <= tar.length) {
      if (isZeroBlock(tar, offset)) {
        return members;
      }
      verifyChecksum(tar, offset);
      String name = string(tar, offset, 100);
      String prefix = isUstar(tar, offset) ? string(tar, offset + 345, 155) : "";
      if (!prefix.isEmpty()) {
        name = prefix + "/" + name;
      }
      long size = octal(tar, offset + 124, 12);
      char type = (char) tar[offset + 156];
      int dataStart = offset + BLOCK;
      if (size > tar.length - dataStart) {
        throw new IllegalArgumentException("tar member \"" + name + "\" is truncated");
      }
      byte[] data = Arrays.copyOfRange(tar, dataStart, dataStart + (int) size);
      offset = dataStart + (int) ((size + BLOCK - 1) / BLOCK * BLOCK);
      switch (type) {
        case 'L' -> longName = trimNul(new String(data, StandardCharsets.UTF_8));
        case 'x' -> longName = paxPath(data, longName);
        case '0', '\0', '7' -> {
          members.add(new Member(longName != null ? longName : name, data));
          longName = null;
        }
        default -> longName = null;
      }
    }
    if (offset == tar.length && !members.isEmpty()) {
      return members; // no end-of-archive blocks: accept what was complete
    }
    throw new IllegalArgumentException("tar archive is truncated");
  }

  private static boolean isZeroBlock(byte[] tar, int offset) {
    for (int i = offset; i < offset + BLOCK; i++) {
      if (tar[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isUstar(byte[] tar, int offset) {
    return new String(tar, offset + 257, 5, StandardCharsets.US_ASCII).equals("ustar");
  }

  private static void verifyChecksum(byte[] tar, int offset) {
    long expected;
    try {
      expected = octal(tar, offset + 148, 8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "not a tar archive (bad header at offset " + offset + ")", e);
    }
    long sum = 0;
    for (int i = 0; i < BLOCK; i++) {
      sum += (i >= 148 && i < 156) ? ' ' : (tar[offset + i] & 0xff);
    }
    if (sum != expected) {
      throw new IllegalArgumentException("not a tar archive (bad header at offset " + offset + ")");
    }
  }

  private static String string(byte[] tar, int offset, int length) {
    int end = offset;
    while (end < offset + length && tar[end] != 0) {
      end++;
    }
    return new String(tar, offset, end - offset, StandardCharsets.UTF_8);
  }

  private static long octal(byte[] tar, int offset, int length) {
    if ((tar[offset] & 0x80) != 0) {
      throw new IllegalArgumentException("tar member uses a binary size field (too large)");
    }
    String text =
        new String(tar, offset, length, StandardCharsets.US_ASCII).replace('\0', ' ').trim();
    if (text.isEmpty()) {
      return 0;
    }
    try {
      return Long.parseLong(text, 8);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("tar header has a bad number field \"" + text + "\"", e);
    }
  }

  private static String trimNul(String s) {
    int nul = s.indexOf('\0');
    return nul < 0 ? s : s.substring(0, nul);
  }

  /** The {@code path} of a pax extended header ("LEN path=VALUE\n" records). */
  private static String paxPath(byte[] data, String fallback) {
    String records = new String(data, StandardCharsets.UTF_8);
    for (String record : records.split("\n")) {
      int space = record.indexOf(' ');
      if (space > 0 && record.startsWith("path=", space + 1)) {
        return record.substring(space + 6);
      }
    }
    return fallback;
  }
}
