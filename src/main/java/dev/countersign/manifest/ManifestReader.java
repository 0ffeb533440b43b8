package dev.countersign.manifest;

import java.nio.file.Path;
import java.util.List;

/**
 * Reads Kubernetes manifest files the way Kubernetes tooling does (YAML 1.1 scalars as yaml.v2
 * resolves them), strictly: every problem is an {@link dev.countersign.support.problems.InputProblem}
 * naming the file and line and saying what to do.
 *
 * <p>Thread-safe; holds no state beyond its limits.
 */
public final class ManifestReader {

  /** Default upper bound on a manifest file's size. */
  public static final long DEFAULT_MAX_BYTES = 4L * 1024 * 1024;

  private final long maxBytes;

  public ManifestReader() {
    this(DEFAULT_MAX_BYTES);
  }

  public ManifestReader(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /**
   * Reads and parses one file.
   *
   * @param file the file to read (must be a regular file, not a symlink)
   * @param displayPath how error messages name it
   * @throws dev.countersign.support.problems.InputProblem for anything that is not a usable manifest
   */
  public ManifestFile read(Path file, Path displayPath) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  /**
   * Parses YAML bytes (a file's content or a decoded message) into documents; empty documents
   * are skipped; every document must be a mapping with {@code apiVersion} and {@code kind}.
   */
  public List<ManifestDocument> parse(byte[] yaml, Path displayPath) {
    throw new UnsupportedOperationException("TODO manifest helper");
  }

  public long maxBytes() {
    return maxBytes;
  }
}
