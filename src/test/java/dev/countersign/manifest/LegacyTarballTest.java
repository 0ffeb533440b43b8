package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LegacyTarballTest {

  @Test
  void members_ustarWithPrefixLongNameAndPaxPath_areReadInOrder() {
    byte[] tar =
        new TarBuilder()
            .file("plain.yaml", "a")
            .prefixed("some/dir", "prefixed.yml", "b")
            .gnuLongName("x/".repeat(80) + "long.yaml", "c")
            .paxPath("pax/" + "y".repeat(120) + ".yaml", "d")
            .directory("dir/")
            .file("notes.txt", "e")
            .end();

    List<LegacyTarball.Member> members = LegacyTarball.members(tar);

    assertThat(members)
        .extracting(LegacyTarball.Member::name)
        .containsExactly(
            "plain.yaml",
            "some/dir/prefixed.yml",
            "x/".repeat(80) + "long.yaml",
            "pax/" + "y".repeat(120) + ".yaml",
            "notes.txt");
    assertThat(members)
        .extracting(m -> new String(m.content(), StandardCharsets.UTF_8))
        .containsExactly("a", "b", "c", "d", "e");
    assertThat(members)
        .extracting(LegacyTarball.Member::isYaml)
        .containsExactly(true, true, true, true, false);
  }

  @Test
  void members_truncatedArchive_isRefused() {
    byte[] tar = new TarBuilder().file("a.yaml", "x".repeat(2000)).end();

    assertThatThrownBy(() -> LegacyTarball.members(Arrays.copyOf(tar, 1024)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("tar member \"a.yaml\" is truncated");
  }

  @Test
  void members_corruptedHeader_isRefused() {
    byte[] tar = new TarBuilder().file("a.yaml", "x").end();
    tar[10] ^= 1;

    assertThatThrownBy(() -> LegacyTarball.members(tar))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a tar archive (bad header at offset 0)");
  }

  @Test
  void decode_legacyMessage_takesOnlyYamlMembersAndSignsTheTarGz() {
    byte[] tarGz =
        Gzip.compress(
            new TarBuilder()
                .file(
                    "/tmp/compressing-tar-gz1/a.yaml",
                    "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n")
                .file("/tmp/compressing-tar-gz1/README.md", "# not yaml: [\n")
                .file(
                    "/tmp/compressing-tar-gz1/b.yml",
                    "apiVersion: v1\nkind: Secret\nmetadata:\n  name: two\n")
                .end());
    SignedManifestFormat format =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());

    SignedContent content =
        format
            .decode(
                SignedManifestFormatTest.withAnnotations(
                    Map.of(
                        "cosign.sigstore.dev/message",
                        Base64.getEncoder().encodeToString(Gzip.compress(tarGz)),
                        "cosign.sigstore.dev/signature",
                        "AQ==")))
            .orElseThrow();

    assertThat(content.legacyTarball()).isTrue();
    assertThat(content.message()).isEqualTo(tarGz);
    assertThat(content.messageDocuments())
        .extracting(ManifestDocument::describe)
        .containsExactly("ConfigMap/one", "Secret/two");
  }

  @Test
  void decode_legacyMessageWithoutYaml_isRefused() {
    byte[] tarGz = Gzip.compress(new TarBuilder().file("notes.txt", "hello").end());
    SignedManifestFormat format =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());

    assertThatThrownBy(
            () ->
                format.decode(
                    SignedManifestFormatTest.withAnnotations(
                        Map.of(
                            "cosign.sigstore.dev/message",
                            Base64.getEncoder().encodeToString(Gzip.compress(tarGz)),
                            "cosign.sigstore.dev/signature",
                            "AQ=="))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "annotation cosign.sigstore.dev/message holds a legacy tarball without .yaml or .yml"
                + " files");
  }

  @Test
  void gzip_isDeterministicAndReadableByTheJdk() throws Exception {
    byte[] data = "hello hello hello".getBytes(StandardCharsets.UTF_8);

    byte[] compressed = Gzip.compress(data);

    assertThat(Gzip.compress(data)).isEqualTo(compressed);
    try (var in = new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(compressed))) {
      assertThat(in.readAllBytes()).isEqualTo(data);
    }
    assertThat(Gzip.gunzipIfGzip(compressed, 100)).isEqualTo(data);
    assertThat(Gzip.gunzipIfGzip(data, 100)).isSameAs(data);
    assertThatThrownBy(() -> Gzip.gunzipIfGzip(compressed, 5))
        .hasMessage("decompresses to more than 5 bytes");
  }

  /** Writes minimal ustar archives for the tests (a test-only writer; production only reads). */
  static final class TarBuilder {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    TarBuilder file(String name, String content) {
      return entry(name, "", '0', content.getBytes(StandardCharsets.UTF_8));
    }

    TarBuilder prefixed(String prefix, String name, String content) {
      return entry(name, prefix, '0', content.getBytes(StandardCharsets.UTF_8));
    }

    TarBuilder directory(String name) {
      return entry(name, "", '5', new byte[0]);
    }

    TarBuilder gnuLongName(String name, String content) {
      entry("././@LongLink", "", 'L', (name + "\0").getBytes(StandardCharsets.UTF_8));
      return entry(name.substring(0, 99), "", '0', content.getBytes(StandardCharsets.UTF_8));
    }

    TarBuilder paxPath(String name, String content) {
      String record = " path=" + name + "\n";
      int length = record.length() + 3;
      entry("PaxHeaders/x", "", 'x', (length + record).getBytes(StandardCharsets.UTF_8));
      return entry("truncated-name", "", '0', content.getBytes(StandardCharsets.UTF_8));
    }

    byte[] end() {
      out.writeBytes(new byte[1024]);
      return out.toByteArray();
    }

    private TarBuilder entry(String name, String prefix, char type, byte[] data) {
      byte[] header = new byte[512];
      put(header, 0, name, 100);
      put(header, 100, "0000644", 8);
      put(header, 108, "0000000", 8);
      put(header, 116, "0000000", 8);
      put(header, 124, String.format("%011o", data.length), 12);
      put(header, 136, "00000000000", 12);
      header[156] = (byte) type;
      put(header, 257, "ustar", 6);
      put(header, 263, "00", 2);
      put(header, 345, prefix, 155);
      Arrays.fill(header, 148, 156, (byte) ' ');
      int sum = 0;
      for (byte b : header) {
        sum += b & 0xff;
      }
      put(header, 148, String.format("%06o", sum), 7);
      out.writeBytes(header);
      out.writeBytes(data);
      out.writeBytes(new byte[(512 - data.length % 512) % 512]);
      return this;
    }

    private static void put(byte[] header, int offset, String value, int length) {
      byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
      System.arraycopy(bytes, 0, header, offset, Math.min(bytes.length, length));
    }
  }
}
