package dev.countersign.verification;

import java.nio.file.Path;
import java.util.List;

/**
 * The verdict on one document of a manifest file. A rejection is a result, not an error.
 *
 * @param file the file, as the user should see it
 * @param documentIndex 0-based position of the document in the file
 * @param line 1-based line the verdict is about (the differing field when there is one, else the
 *     document's start), 0 when unknown
 * @param description e.g. {@code ConfigMap/sample-cm}
 * @param passed true when the content matches the signed message and enough signers verified
 * @param reason user-facing: who signed it when passed, exactly what failed otherwise
 * @param signers the distinct verified signers (SAN for keyless, {@code sha256:} key fingerprint
 *     for keyed), also when too few verified
 */
public record DocumentVerdict(
    Path file,
    int documentIndex,
    int line,
    String description,
    boolean passed,
    String reason,
    List<String> signers) {

  public DocumentVerdict {
    signers = List.copyOf(signers);
  }
}
