package dev.countersign.manifest;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Test fixtures copied from k8s-manifest-sigstore (see PROVENANCE.md beside them). */
final class Fixtures {

  private Fixtures() {}

  static byte[] bytes(String name) {
    try (InputStream in =
        Fixtures.class.getResourceAsStream("/manifest/k8s-manifest-sigstore/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing fixture " + name);
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ManifestFile parse(String name) {
    ManifestReader reader = new ManifestReader();
    return new ManifestFile(
        Path.of(name), Path.of(name), reader.parse(bytes(name), Path.of(name)), bytes(name));
  }
}
