package dev.countersign.verification;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * Reading test manifests with the real reader and format, plus gzip helpers for forging
 * annotations.
 */
final class FixtureManifests {

  static final ManifestReader READER = new ManifestReader();
  static final SignedManifestFormat FORMAT =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, READER);

  private FixtureManifests() {}

  static ManifestFile read(Path file) {
    return READER.read(file, file.getFileName());
  }

  static ManifestFile fromYaml(String yaml) {
    byte[] bytes = yaml.getBytes(StandardCharsets.UTF_8);
    Path name = Path.of("live.yaml");
    return new ManifestFile(name, name, READER.parse(bytes, name), bytes);
  }

  static byte[] gunzipIfGzip(byte[] b) {
    if (b.length < 2 || (b[0] & 0xff) != 0x1f || (b[1] & 0xff) != 0x8b) {
      return b;
    }
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] gzip(byte[] b) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(b);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
