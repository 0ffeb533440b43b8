package dev.countersign.manifest;

import java.nio.file.Path;
import java.util.List;

/**
 * A manifest file as read from disk.
 *
 * @param path where it was read from
 * @param displayPath how to name it to the user (relative to the repository when there is one)
 * @param documents its non-empty documents, in order; never empty
 * @param bytes the exact bytes read (for no-churn comparisons)
 */
public record ManifestFile(
    Path path, Path displayPath, List<ManifestDocument> documents, byte[] bytes) {

  public ManifestFile {
    documents = List.copyOf(documents);
  }
}
