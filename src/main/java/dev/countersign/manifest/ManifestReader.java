package dev.countersign.manifest;

import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * Reads Kubernetes manifest files the way Kubernetes tooling does (YAML 1.1 scalars as yaml.v2
 * resolves them), strictly: every problem is an {@link
 * dev.countersign.support.problems.InputProblem} naming the file and line and saying what to do.
 *
 * <p>Refused: symlinks and non-regular files, files over {@link #maxBytes()}, files without any
 * Kubernetes object, bytes that are not UTF-8, a UTF-8 byte order mark, CR or CRLF line endings
 * (signed output must be byte-stable and reviewable, so we ask for LF files instead of silently
 * rewriting them), the YAML 1.1 line breaks NEL, LS and PS as characters, malformed YAML, duplicate
 * keys, alias bombs, nesting deeper than {@link #MAX_DEPTH}, {@code !!binary} and unknown tags,
 * documents that are not mappings with string {@code apiVersion} and {@code kind}, a {@code
 * metadata} that is not a mapping, a non-string {@code metadata.name}, and a {@code
 * metadata.annotations} or {@code metadata.labels} that is not a mapping of strings (null, for the
 * field or a value, is kept: the API server accepts it).
 *
 * <p>Thread-safe; holds no state beyond its limits.
 */
public final class ManifestReader {

  /**
   * Default upper bound on a manifest file's size, signed or unsigned: 1 MiB. Kubernetes cannot
   * take much more: etcd refuses requests over 1.5 MiB by default, ConfigMap and Secret data is
   * capped at 1 MiB, and every signed object carries the whole file's compressed message in its
   * annotations, which together may not exceed 256 KiB. Checked before a file or blob is read, so
   * it also bounds memory.
   */
  public static final long DEFAULT_MAX_BYTES = 1024L * 1024;

  /** Maximum nesting of mappings and sequences in one document. */
  public static final int MAX_DEPTH = 100;

  /** Maximum number of aliases to mappings or sequences in one file (alias bombs). */
  public static final int MAX_COLLECTION_ALIASES = 50;

  private final long maxBytes;

  public ManifestReader() {
    this(DEFAULT_MAX_BYTES);
  }

  public ManifestReader(long maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
    }
    this.maxBytes = maxBytes;
  }

  /**
   * Reads and parses one file.
   *
   * @param file the file to read (must be a regular file, not a symlink)
   * @param displayPath how error messages name it
   * @throws dev.countersign.support.problems.InputProblem for anything that is not a usable
   *     manifest
   */
  public ManifestFile read(Path file, Path displayPath) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    } catch (NoSuchFileException e) {
      throw new InputProblem(
          displayPath, 0, "does not exist", "perhaps you should check the path", e);
    } catch (IOException e) {
      throw InputProblem.unreadable(displayPath, e);
    }
    if (attributes.isSymbolicLink()) {
      throw new InputProblem(
          displayPath,
          0,
          "is a symbolic link, which countersign does not follow",
          "perhaps you should replace the link with the file it points to");
    }
    if (!attributes.isRegularFile()) {
      throw new InputProblem(
          displayPath,
          0,
          "is not a regular file",
          "perhaps you should point countersign at YAML files only");
    }
    if (attributes.size() > maxBytes) {
      throw new InputProblem(
          displayPath,
          0,
          "is " + attributes.size() + " bytes, larger than the limit of " + maxBytes + " bytes",
          "perhaps you should split it into smaller files");
    }
    // The file may have been swapped or grown since we looked at it.
    byte[] bytes = NoFollowPaths.readAtMost(file, displayPath, maxBytes);
    if (bytes.length > maxBytes) {
      throw new InputProblem(
          displayPath,
          0,
          "is more than " + maxBytes + " bytes, larger than the limit of " + maxBytes + " bytes",
          "perhaps you should split it into smaller files");
    }
    return new ManifestFile(file, displayPath, parse(bytes, displayPath), bytes);
  }

  /**
   * Parses YAML bytes (a file's content or a decoded message) into documents; empty documents are
   * skipped; every document must be a mapping with {@code apiVersion} and {@code kind}.
   *
   * @throws dev.countersign.support.problems.InputProblem when the bytes are not a usable manifest
   */
  public List<ManifestDocument> parse(byte[] yaml, Path displayPath) {
    if (yaml.length > maxBytes) {
      throw new InputProblem(
          displayPath,
          0,
          "is " + yaml.length + " bytes, larger than the limit of " + maxBytes + " bytes",
          "perhaps you should split it into smaller files");
    }
    if (yaml.length >= 3
        && (yaml[0] & 0xff) == 0xEF
        && (yaml[1] & 0xff) == 0xBB
        && (yaml[2] & 0xff) == 0xBF) {
      throw new InputProblem(
          displayPath,
          1,
          "starts with a UTF-8 byte order mark (BOM)",
          "perhaps you should remove it (sed -i '1s/^\\xEF\\xBB\\xBF//' "
              + displayPath
              + "); signed output must be byte-stable, so countersign does not rewrite it for you");
    }
    String text = decodeUtf8(yaml, displayPath);
    int cr = text.indexOf('\r');
    if (cr >= 0) {
      int line = lineAt(text, cr);
      boolean crlf = cr + 1 < text.length() && text.charAt(cr + 1) == '\n';
      throw new InputProblem(
          displayPath,
          line,
          crlf ? "uses CRLF (Windows) line endings" : "contains a carriage return (CR) character",
          "perhaps you should convert to LF line endings (dos2unix "
              + displayPath
              + " or `sed -i 's/\\r$//' "
              + displayPath
              + "`); signed output must be byte-stable");
    }
    refuseHiddenLineBreaks(text, displayPath);
    List<ManifestDocument> documents = new YamlDocuments(displayPath, text, maxBytes).parse();
    if (documents.isEmpty()) {
      throw new InputProblem(
          displayPath,
          0,
          "contains no Kubernetes object",
          "perhaps you should add a manifest (apiVersion, kind, metadata) or remove the file");
    }
    return documents;
  }

  public long maxBytes() {
    return maxBytes;
  }

  /**
   * Refuses NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029) written as
   * characters. YAML 1.1 parsers, ours and go-yaml alike, end a line there (and so a comment, or a
   * value), while diffs, editors and apimachinery's YAMLReader, which splits a stream into
   * documents at {@code "---\n"} lines before go-yaml reads the first document of each part, see
   * one line: a document marker between two of them is one document more for us than for the
   * cluster. A string can still hold them as escapes ({@code "\L"}, {@code "\u2028"}).
   */
  private static void refuseHiddenLineBreaks(String text, Path displayPath) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\u0085' || c == '\u2028' || c == '\u2029') {
        String name =
            c == '\u0085' ? "NEXT LINE" : c == '\u2028' ? "LINE SEPARATOR" : "PARAGRAPH SEPARATOR";
        throw new InputProblem(
            displayPath,
            lineAt(text, i),
            String.format(
                "contains the character U+%04X (%s), a line break to YAML 1.1 parsers (Kubernetes'"
                    + " go-yaml among them) that diffs and Kubernetes' document splitter do not"
                    + " show as one",
                (int) c, name),
            "perhaps you should remove it, or write it as an escape in a double-quoted string (\""
                + (c == '\u0085' ? "\\N" : c == '\u2028' ? "\\L" : "\\P")
                + "\")");
      }
    }
  }

  private static String decodeUtf8(byte[] bytes, Path displayPath) {
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    ByteBuffer in = ByteBuffer.wrap(bytes);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CoderResult result = decoder.decode(in, out, true);
    if (result.isUnderflow()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      int offset = in.position();
      int line = 1;
      for (int i = 0; i < offset; i++) {
        if (bytes[i] == '\n') {
          line++;
        }
      }
      throw new InputProblem(
          displayPath,
          line,
          String.format(
              "is not valid UTF-8 (byte 0x%02x at offset %d)", bytes[offset] & 0xff, offset),
          "perhaps you should re-save it as UTF-8 (iconv -f LATIN1 -t UTF-8)",
          errorFor(result));
    }
    out.flip();
    return out.toString();
  }

  private static CharacterCodingException errorFor(CoderResult result) {
    try {
      result.throwException();
    } catch (CharacterCodingException e) {
      return e;
    }
    return null;
  }

  /** 1-based line of a char index. */
  static int lineAt(String text, int index) {
    int line = 1;
    for (int i = 0; i < index && i < text.length(); i++) {
      if (text.charAt(i) == '\n') {
        line++;
      }
    }
    return line;
  }
}
