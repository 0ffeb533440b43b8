package dev.countersign.oci;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.UsageProblem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.zip.GZIPOutputStream;

/**
 * How countersign lays signed manifests out as an OCI artifact (docs/publish.md "Layout"):
 *
 * <ul>
 *   <li>an OCI image manifest ({@value #MANIFEST_MEDIA_TYPE}) with {@code artifactType} {@value
 *       #ARTIFACT_TYPE};
 *   <li>config: the OCI empty descriptor ({@value #CONFIG_MEDIA_TYPE}, the two bytes {@code {}});
 *   <li>one layer ({@value #LAYER_MEDIA_TYPE}): a gzip-compressed tar of the files, paths relative
 *       to the published directory, sorted, mode 0644, owner 0:0, modification time = the commit
 *       time; what Flux's OCIRepository extracts by default;
 *   <li>manifest annotations {@code org.opencontainers.image.created} (commit time), {@code
 *       .revision} (commit id) and {@code .source} (repository URL, when known).
 * </ul>
 *
 * Nothing depends on the clock or the file system's metadata, so the same files at the same commit
 * always give the same bytes and so the same manifest digest.
 */
public final class ArtifactLayout {

  public static final String MANIFEST_MEDIA_TYPE = DistributionRegistry.OCI_MANIFEST;
  public static final String ARTIFACT_TYPE = "application/vnd.countersign.signed-manifests.v1";
  public static final String CONFIG_MEDIA_TYPE = "application/vnd.oci.empty.v1+json";
  public static final String LAYER_MEDIA_TYPE = "application/vnd.oci.image.layer.v1.tar+gzip";
  public static final String LAYER_TITLE = "manifests.tar.gz";
  static final byte[] EMPTY_CONFIG = "{}".getBytes(StandardCharsets.US_ASCII);

  private static final ObjectMapper JSON = Json.mapper();
  private static final int BLOCK = 512;

  /** The blobs and manifest to push; {@link #digest()} is what gets signed and pinned. */
  public record Artifact(byte[] manifest, byte[] config, byte[] layer) {
    public String digest() {
      return Sha256.digest(manifest);
    }
  }

  /** Where the files came from, for the annotations. */
  public record Provenance(String revision, Instant created, Optional<String> source) {}

  private ArtifactLayout() {}

  /**
   * @param files relative path (forward slashes) to content, in any order (written sorted)
   * @throws UsageProblem when there is nothing to publish or a path does not fit a tar header
   */
  public static Artifact build(SortedMap<String, byte[]> files, Provenance provenance) {
    if (files.isEmpty()) {
      throw new UsageProblem(
          "There are no manifest files (.yaml/.yml) to publish",
          "check the SOURCE path (it is read from the commit, not the work tree)");
    }
    byte[] layer = gzip(tar(files, provenance.created()));
    ObjectNode manifest = JSON.createObjectNode();
    manifest.put("schemaVersion", 2);
    manifest.put("mediaType", MANIFEST_MEDIA_TYPE);
    manifest.put("artifactType", ARTIFACT_TYPE);
    manifest.set("config", descriptor(CONFIG_MEDIA_TYPE, EMPTY_CONFIG));
    ObjectNode layerDescriptor = descriptor(LAYER_MEDIA_TYPE, layer);
    layerDescriptor.putObject("annotations").put("org.opencontainers.image.title", LAYER_TITLE);
    manifest.putArray("layers").add(layerDescriptor);
    ObjectNode annotations = manifest.putObject("annotations");
    annotations.put(
        "org.opencontainers.image.created",
        DateTimeFormatter.ISO_INSTANT.format(provenance.created().truncatedTo(ChronoUnit.SECONDS)));
    annotations.put("org.opencontainers.image.revision", provenance.revision());
    provenance.source().ifPresent(s -> annotations.put("org.opencontainers.image.source", s));
    try {
      return new Artifact(JSON.writeValueAsBytes(manifest), EMPTY_CONFIG.clone(), layer);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static ObjectNode descriptor(String mediaType, byte[] content) {
    ObjectNode node = JSON.createObjectNode();
    node.put("mediaType", mediaType);
    node.put("digest", Sha256.digest(content));
    node.put("size", content.length);
    return node;
  }

  /** A POSIX ustar archive of regular files, with fixed metadata. */
  static byte[] tar(SortedMap<String, byte[]> files, Instant modified) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (Map.Entry<String, byte[]> file : files.entrySet()) {
      byte[] header = new byte[BLOCK];
      byte[] path = file.getKey().getBytes(StandardCharsets.UTF_8);
      if (path.length <= 100) {
        System.arraycopy(path, 0, header, 0, path.length);
      } else {
        int split = file.getKey().lastIndexOf('/', 155);
        byte[] prefix =
            split > 0
                ? file.getKey().substring(0, split).getBytes(StandardCharsets.UTF_8)
                : new byte[0];
        byte[] name =
            split > 0 ? file.getKey().substring(split + 1).getBytes(StandardCharsets.UTF_8) : path;
        if (split <= 0 || prefix.length > 155 || name.length > 100) {
          throw new UsageProblem(
              "The path "
                  + file.getKey()
                  + " is too long for the artifact's tar layer (ustar: 255 bytes)",
              "shorten the directory or file name");
        }
        System.arraycopy(name, 0, header, 0, name.length);
        System.arraycopy(prefix, 0, header, 345, prefix.length);
      }
      octal(header, 100, 8, 0644);
      octal(header, 108, 8, 0);
      octal(header, 116, 8, 0);
      octal(header, 124, 12, file.getValue().length);
      octal(header, 136, 12, Math.max(0, modified.getEpochSecond()));
      header[156] = '0';
      byte[] magic = "ustar\u000000".getBytes(StandardCharsets.US_ASCII);
      System.arraycopy(magic, 0, header, 257, magic.length);
      for (int i = 148; i < 156; i++) {
        header[i] = ' ';
      }
      long sum = 0;
      for (byte b : header) {
        sum += b & 0xff;
      }
      octal(header, 148, 7, sum);
      header[155] = ' ';
      out.writeBytes(header);
      out.writeBytes(file.getValue());
      int pad = (BLOCK - file.getValue().length % BLOCK) % BLOCK;
      out.writeBytes(new byte[pad]);
    }
    out.writeBytes(new byte[2 * BLOCK]);
    return out.toByteArray();
  }

  /** {@code width - 1} zero-padded octal digits and a NUL. */
  private static void octal(byte[] header, int offset, int width, long value) {
    String digits = Long.toOctalString(value);
    if (digits.length() > width - 1) {
      throw new UsageProblem(
          "A file is too large for the artifact's tar layer", "publish smaller files");
    }
    String padded = "0".repeat(width - 1 - digits.length()) + digits;
    byte[] bytes = padded.getBytes(StandardCharsets.US_ASCII);
    System.arraycopy(bytes, 0, header, offset, bytes.length);
    header[offset + width - 1] = 0;
  }

  /** gzip with a fixed header (no name, modification time 0), as java.util.zip writes it. */
  static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }
}
