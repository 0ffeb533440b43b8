package dev.countersign.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ArtifactLayoutTest {

  private static final ArtifactLayout.Provenance PROVENANCE =
      new ArtifactLayout.Provenance(
          "0123456789abcdef0123456789abcdef01234567",
          Instant.parse("2026-03-04T05:06:07.890Z"),
          Optional.of("https://github.com/org/repo"));

  @TempDir Path tmp;

  private static SortedMap<String, byte[]> files() {
    SortedMap<String, byte[]> files = new TreeMap<>();
    files.put("b.yaml", "kind: B\n".getBytes(StandardCharsets.UTF_8));
    files.put("apps/a.yaml", "kind: A\n".getBytes(StandardCharsets.UTF_8));
    files.put("deep/" + "d".repeat(120) + "/c.yaml", "kind: C\n".getBytes(StandardCharsets.UTF_8));
    return files;
  }

  @Test
  void sameFilesAndCommit_giveTheSameBytes() {
    assertThat(ArtifactLayout.build(files(), PROVENANCE).manifest())
        .isEqualTo(ArtifactLayout.build(files(), PROVENANCE).manifest());
    assertThat(ArtifactLayout.build(files(), PROVENANCE).layer())
        .isEqualTo(ArtifactLayout.build(files(), PROVENANCE).layer());
    SortedMap<String, byte[]> changed = files();
    changed.put("b.yaml", "kind: B2\n".getBytes(StandardCharsets.UTF_8));
    assertThat(ArtifactLayout.build(changed, PROVENANCE).digest())
        .isNotEqualTo(ArtifactLayout.build(files(), PROVENANCE).digest());
  }

  @Test
  void manifestNamesArtifactTypeEmptyConfigOneLayerAndCommitAnnotations() throws Exception {
    ArtifactLayout.Artifact artifact = ArtifactLayout.build(files(), PROVENANCE);
    assertThat(new String(artifact.manifest(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"schemaVersion\":2,\"mediaType\":\"application/vnd.oci.image.manifest.v1+json\","
                + "\"artifactType\":\"application/vnd.countersign.signed-manifests.v1\","
                + "\"config\":{\"mediaType\":\"application/vnd.oci.empty.v1+json\","
                + "\"digest\":\"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\",\"size\":2},"
                + "\"layers\":[{\"mediaType\":\"application/vnd.oci.image.layer.v1.tar+gzip\",\"digest\":\""
                + Sha256.digest(artifact.layer())
                + "\",\"size\":"
                + artifact.layer().length
                + ",\"annotations\":{\"org.opencontainers.image.title\":\"manifests.tar.gz\"}}],"
                + "\"annotations\":{\"org.opencontainers.image.created\":\"2026-03-04T05:06:07Z\","
                + "\"org.opencontainers.image.revision\":\"0123456789abcdef0123456789abcdef01234567\","
                + "\"org.opencontainers.image.source\":\"https://github.com/org/repo\"}}");
  }

  @Test
  void layerIsATarGzThatGnuTarReads() throws Exception {
    Path archive = tmp.resolve("layer.tar.gz");
    Files.write(archive, ArtifactLayout.build(files(), PROVENANCE).layer());
    Process tar =
        new ProcessBuilder("tar", "-tvzf", archive.toString()).redirectErrorStream(true).start();
    String listing = new String(tar.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(tar.waitFor()).as(listing).isZero();
    assertThat(listing.lines().toList()).hasSize(3);
    assertThat(listing)
        .contains("apps/a.yaml")
        .contains("b.yaml")
        .contains("deep/" + "d".repeat(120) + "/c.yaml")
        .contains("-rw-r--r-- 0/0")
        .contains("2026-03-04 05:06");
    assertThat(
            new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(ArtifactLayout.build(files(), PROVENANCE).manifest())
                .path("layers"))
        .hasSize(1);
  }

  @Test
  void nothingToPublish_isRefused() {
    assertThatThrownBy(() -> ArtifactLayout.build(new TreeMap<>(), PROVENANCE))
        .isInstanceOf(UsageProblem.class);
  }

  @Test
  void signaturePayload_isCosignsSimpleSigningJson() throws Exception {
    String digest = "sha256:" + "12".repeat(32);
    byte[] payload =
        CosignSignatureFormat.payload(OciReference.parse("ghcr.io/org/app", "--to"), digest);
    assertThat(new String(payload, StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"critical\":{\"identity\":{\"docker-reference\":\"ghcr.io/org/app\"},"
                + "\"image\":{\"docker-manifest-digest\":\""
                + digest
                + "\"},\"type\":\"cosign container image signature\"},\"optional\":null}");
    assertThat(CosignSignatureFormat.signatureTag(digest))
        .isEqualTo("sha256-" + "12".repeat(32) + ".sig");
    JsonNode manifest =
        new ObjectMapper()
            .readTree(
                CosignSignatureFormat.manifest(
                        java.util.List.of(
                            new CosignSignatureFormat.SignatureLayer(
                                Sha256.digest(payload),
                                payload.length,
                                CosignSignatureFormat.annotations(
                                    "c2ln", Optional.empty(), Optional.empty(), Optional.empty()))))
                    .manifest());
    assertThat(manifest.path("config").path("mediaType").asText())
        .isEqualTo("application/vnd.oci.image.config.v1+json");
    assertThat(manifest.path("layers").get(0).path("annotations").toString())
        .isEqualTo("{\"dev.cosignproject.cosign/signature\":\"c2ln\"}");
  }
}
