package dev.countersign.keys;

import dev.countersign.support.problems.InputProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** PEM blocks: finding them in text (or in base64 of text) and writing them the way Go does. */
final class Pem {

  /** One decoded PEM block. */
  record Block(String type, byte[] der) {}

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----\\s*(.*?)-----END \\1-----", Pattern.DOTALL);

  private Pem() {}

  /**
   * The PEM blocks in {@code content}. Files that hold base64 <em>of</em> a PEM (as the
   * k8s-manifest-sigstore test keys do, because they come from Kubernetes secrets) are unwrapped
   * first.
   *
   * @param source names the content in problems, at {@code line} (1-based; 0 when unknown)
   * @param hint what the content was expected to be
   * @throws InputProblem when a block's body is not base64 or has headers
   */
  static List<Block> blocks(byte[] content, Path source, int line, String hint) {
    try {
      return blocks(content);
    } catch (IllegalArgumentException e) {
      throw new InputProblem(source, line, e.getMessage(), hint, e);
    }
  }

  /**
   * Like {@link #blocks(byte[], Path, int, String)}; a bad block is an {@link
   * IllegalArgumentException}.
   */
  static List<Block> blocks(byte[] content) {
    String text = new String(content, StandardCharsets.UTF_8);
    if (!text.contains("-----BEGIN ")) {
      Optional<String> unwrapped = base64Text(text);
      if (unwrapped.isPresent() && unwrapped.get().contains("-----BEGIN ")) {
        text = unwrapped.get();
      }
    }
    List<Block> blocks = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) {
      String body = m.group(2);
      // Encapsulated headers (Proc-Type...) are not used by any format we read.
      if (body.contains(":")) {
        throw new IllegalArgumentException(
            "PEM block " + m.group(1) + " has headers, which are not supported");
      }
      try {
        blocks.add(new Block(m.group(1), Base64.getMimeDecoder().decode(body.strip())));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("PEM block " + m.group(1) + " is not valid base64", e);
      }
    }
    return blocks;
  }

  /** Go's {@code pem.Encode}: 64-character lines, "\n" line ends. */
  static String encode(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  private static Optional<String> base64Text(String text) {
    String compact = text.replaceAll("\\s", "");
    if (compact.isEmpty() || !compact.matches("[A-Za-z0-9+/]*={0,2}")) {
      return Optional.empty();
    }
    try {
      return Optional.of(new String(Base64.getDecoder().decode(compact), StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }
}
