package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

class SignedManifestFormatTest {

  private static final String REFERENCE_MESSAGE =
      "apiVersion: v1\ndata:\n  key1: val1\n  key4: val4\n"
          + "kind: ConfigMap\nmetadata:\n  name: sample-cm\n";

  private final ManifestReader reader = new ManifestReader();
  private final SignedManifestFormat format =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);

  @Test
  void message_sampleConfigMap_isTheReferenceMessageByteForByte() {
    byte[] message = format.message(Fixtures.parse("sample-configmap.yaml").documents());

    assertThat(new String(message, StandardCharsets.UTF_8)).isEqualTo(REFERENCE_MESSAGE);
    assertThat(message).hasSize(91);
    assertThat(sha256(message))
        .isEqualTo("7f1e3325c006df008619f607a496084937d906ee2f635f85d6fbac7209533758");
  }

  @Test
  void message_concatFile_joinsBothDocumentsLikeKubectlSigstore() {
    byte[] message = format.message(Fixtures.parse("sample-configmap-concat.yaml").documents());

    assertThat(new String(message, StandardCharsets.UTF_8))
        .isEqualTo(
            REFERENCE_MESSAGE
                + "\n"
                + "---\n"
                + "apiVersion: v1\n"
                + "data:\n"
                + "  key2: val2\n"
                + "kind: ConfigMap\n"
                + "metadata:\n"
                + "  name: sample-cm-2\n");
    assertThat(sha256(message)).startsWith("e275f0f2").endsWith("823c");
  }

  @Test
  void message_signedFile_stripsSignatureAnnotationsAndEqualsTheSignedMessage() {
    ManifestDocument signed =
        Fixtures.parse("sample-configmap-multi-signed.yaml").documents().get(0);

    byte[] message = format.message(List.of(signed));

    assertThat(new String(message, StandardCharsets.UTF_8)).isEqualTo(REFERENCE_MESSAGE);
    assertThat(format.decode(signed).orElseThrow().message()).isEqualTo(message);
  }

  @Test
  void message_keepsOtherAnnotationsAndOtherDomains() {
    ManifestDocument document =
        new ManifestDocument(
            Map.of(
                "apiVersion",
                "v1",
                "kind",
                "ConfigMap",
                "metadata",
                Map.of(
                    "name",
                    "x",
                    "annotations",
                    Map.of(
                        "cosign.sigstore.dev/signature",
                        "abc",
                        "cosign.sigstore.dev/message",
                        "def",
                        "other.example/signature",
                        "keep",
                        "team",
                        "a"))));

    String message = new String(format.message(List.of(document)), StandardCharsets.UTF_8);

    assertThat(message)
        .isEqualTo(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  annotations:\n"
                + "    other.example/signature: keep\n    team: a\n  name: x\n");
  }

  @Test
  void annotations_encodeMessageSignatureCertificateAndBundleAsCosignDoes() throws IOException {
    byte[] message = REFERENCE_MESSAGE.getBytes(StandardCharsets.UTF_8);
    RekorBundle bundle = new RekorBundle("U0VU", "Ym9keQ==", 1655452519L, 2690357L, "c0d2");
    String pem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

    Map<String, String> annotations =
        format.annotations(
            message, 1, new byte[] {1, 2, (byte) 0xfb}, Optional.of(pem), Optional.of(bundle));

    assertThat(annotations)
        .containsOnlyKeys(
            "cosign.sigstore.dev/message",
            "cosign.sigstore.dev/signature_1",
            "cosign.sigstore.dev/certificate_1",
            "cosign.sigstore.dev/bundle_1");
    assertThat(List.copyOf(annotations.keySet())).isSorted();
    assertThat(gunzip(annotations.get("cosign.sigstore.dev/message"))).isEqualTo(message);
    assertThat(annotations.get("cosign.sigstore.dev/signature_1")).isEqualTo("AQL7");
    assertThat(
            new String(
                gunzip(annotations.get("cosign.sigstore.dev/certificate_1")),
                StandardCharsets.UTF_8))
        .isEqualTo(pem);
    assertThat(
            new String(
                gunzip(annotations.get("cosign.sigstore.dev/bundle_1")), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"SignedEntryTimestamp\":\"U0VU\",\"Payload\":{\"body\":\"Ym9keQ==\","
                + "\"integratedTime\":1655452519,\"logIndex\":2690357,\"logID\":\"c0d2\"}}");
  }

  @Test
  void annotations_sameInput_sameGzipBytesWithZeroMtime() {
    byte[] message = REFERENCE_MESSAGE.getBytes(StandardCharsets.UTF_8);

    String first =
        format
            .annotations(message, 0, new byte[] {1}, Optional.empty(), Optional.empty())
            .get("cosign.sigstore.dev/message");
    String second =
        format
            .annotations(message, 0, new byte[] {1}, Optional.empty(), Optional.empty())
            .get("cosign.sigstore.dev/message");

    assertThat(first).isEqualTo(second);
    byte[] gzip = Base64.getDecoder().decode(first);
    assertThat(HexFormat.of().formatHex(gzip, 0, 10)).isEqualTo("1f8b08000000000000ff");
  }

  /**
   * Deflaters are reused and the certificate annotation is remembered: every annotation must still
   * be exactly what a new level-9 deflater gives for its own input, whatever was compressed before,
   * on whichever thread, with certificates alternating.
   */
  @Test
  void annotations_reusedDeflatersAndRememberedCertificate_sameBytesAsAFreshDeflater()
      throws Exception {
    Random random = new Random(11);
    List<byte[]> inputs = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      byte[] data = new byte[random.nextInt(20_000)];
      for (int k = 0; k < data.length; k++) {
        data[k] = (byte) "apiVersion: v1\nkind: ConfigMap\n".charAt(random.nextInt(30));
      }
      inputs.add(data);
    }
    List<String> pems =
        List.of(
            "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
            "-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n");
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      List<Future<?>> checks = new ArrayList<>();
      for (int round = 0; round < 5; round++) {
        for (int i = 0; i < inputs.size(); i++) {
          byte[] message = inputs.get(i);
          String pem = pems.get((round + i) % 2);
          checks.add(
              pool.submit(
                  () -> {
                    Map<String, String> annotations =
                        format.annotations(
                            message, 0, new byte[] {1}, Optional.of(pem), Optional.empty());
                    assertThat(annotations.get("cosign.sigstore.dev/message"))
                        .isEqualTo(freshGzipBase64(message));
                    assertThat(annotations.get("cosign.sigstore.dev/certificate"))
                        .isEqualTo(freshGzipBase64(pem.getBytes(StandardCharsets.UTF_8)));
                    return null;
                  }));
        }
      }
      for (Future<?> check : checks) {
        check.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void rekorBundleToJson_directTextEqualsJacksonsForAnyFieldValues() {
    Random random = new Random(7);
    String alphabet = "AZaz09+/=\"\\\n\t\u0001<>&\u007f\u00e9\u2028 {}:,";
    List<String> values = new ArrayList<>(List.of("", "U0VU", "c0d23d6a"));
    for (int i = 0; i < 300; i++) {
      StringBuilder value = new StringBuilder();
      int length = random.nextInt(40);
      String letters = i % 3 == 0 ? alphabet : "ABCxyz0189+/=";
      for (int k = 0; k < length; k++) {
        value.append(letters.charAt(random.nextInt(letters.length())));
      }
      values.add(value.toString());
    }
    long[] numbers = {0, 1, -1, 2690357, Long.MAX_VALUE, Long.MIN_VALUE, 1L << 53};
    for (int i = 0; i < values.size(); i++) {
      RekorBundle bundle =
          new RekorBundle(
              values.get(i),
              values.get((i * 7 + 1) % values.size()),
              numbers[i % numbers.length],
              numbers[(i + 3) % numbers.length],
              values.get((i * 13 + 2) % values.size()));
      assertThat(bundle.toJson()).isEqualTo(bundle.toJsonByJackson());
    }
    RekorBundle withNull = new RekorBundle(null, "Ym9keQ==", 1, 2, "c0d2");
    assertThat(withNull.toJson()).isEqualTo(withNull.toJsonByJackson());
  }

  /** Go's gzip framing around a new JDK deflater's raw level-9 stream (the pre-reuse code). */
  private static String freshGzipBase64(byte[] data) {
    Deflater deflater = new Deflater(9, true);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff});
    deflater.setInput(data);
    deflater.finish();
    byte[] buffer = new byte[1024];
    while (!deflater.finished()) {
      out.write(buffer, 0, deflater.deflate(buffer));
    }
    deflater.end();
    CRC32 crc = new CRC32();
    crc.update(data);
    for (long value : new long[] {crc.getValue(), data.length}) {
      for (int shift = 0; shift < 32; shift += 8) {
        out.write((int) (value >>> shift) & 0xff);
      }
    }
    return Base64.getEncoder().encodeToString(out.toByteArray());
  }

  @Test
  void existingSignatureSets_countsContiguousSetsOnly() {
    assertThat(
            format.existingSignatureSets(
                Fixtures.parse("sample-configmap.yaml").documents().get(0)))
        .isZero();
    assertThat(
            format.existingSignatureSets(
                Fixtures.parse("sample-configmap-multi-signed.yaml").documents().get(0)))
        .isEqualTo(2);
    assertThat(
            format.existingSignatureSets(
                withAnnotations(
                    Map.of(
                        "cosign.sigstore.dev/signature",
                        "AQ==",
                        "cosign.sigstore.dev/signature_2",
                        "AQ=="))))
        .isEqualTo(1);
  }

  @Test
  void render_replaceMode_writesHeaderAndEveryDocumentWithTheSameAnnotations() {
    List<ManifestDocument> documents = Fixtures.parse("sample-configmap-concat.yaml").documents();
    byte[] message = format.message(documents);
    Map<String, String> annotations =
        format.annotations(message, 0, new byte[] {1, 2, 3}, Optional.empty(), Optional.empty());

    byte[] rendered =
        format.render(documents, annotations, false, List.of("Signed by countersign", ""));

    String text = new String(rendered, StandardCharsets.UTF_8);
    String encoded = annotations.get("cosign.sigstore.dev/message");
    assertThat(text)
        .isEqualTo(
            "# Signed by countersign\n"
                + "#\n"
                + "apiVersion: v1\n"
                + "data:\n"
                + "  key1: val1\n"
                + "  key4: val4\n"
                + "kind: ConfigMap\n"
                + "metadata:\n"
                + "  annotations:\n"
                + "    cosign.sigstore.dev/message: "
                + encoded
                + "\n"
                + "    cosign.sigstore.dev/signature: AQID\n"
                + "  name: sample-cm\n"
                + "---\n"
                + "apiVersion: v1\n"
                + "data:\n"
                + "  key2: val2\n"
                + "kind: ConfigMap\n"
                + "metadata:\n"
                + "  annotations:\n"
                + "    cosign.sigstore.dev/message: "
                + encoded
                + "\n"
                + "    cosign.sigstore.dev/signature: AQID\n  name: sample-cm-2\n");
    List<ManifestDocument> reread = reader.parse(rendered, Path.of("signed.yaml"));
    assertThat(reread).hasSize(2);
    for (ManifestDocument document : reread) {
      SignedContent content = format.decode(document).orElseThrow();
      assertThat(content.message()).isEqualTo(message);
      assertThat(content.messageDocuments())
          .extracting(ManifestDocument::name)
          .containsExactly("sample-cm", "sample-cm-2");
      assertThat(content.signatureSets())
          .singleElement()
          .satisfies(set -> assertThat(set.signature()).containsExactly(1, 2, 3));
    }
    assertThat(format.message(reread)).isEqualTo(message);
  }

  @Test
  void render_sameInputs_sameBytes() {
    List<ManifestDocument> documents =
        Fixtures.parse("sample-configmap-keyless-multi-signed.yaml").documents();
    Map<String, String> annotations =
        format.annotations(
            format.message(documents),
            0,
            new byte[] {9},
            Optional.of("-----BEGIN CERTIFICATE-----\nAA==\n-----END CERTIFICATE-----\n"),
            Optional.empty());

    byte[] first = format.render(documents, annotations, false, List.of("header"));
    byte[] second =
        format.render(
            List.copyOf(reader.parse(first, Path.of("again.yaml"))),
            annotations,
            false,
            List.of("header"));

    assertThat(second).isEqualTo(first);
    assertThat(format.render(documents, annotations, false, List.of("header"))).isEqualTo(first);
    String text = new String(first, StandardCharsets.UTF_8);
    assertThat(text).endsWith("\n").doesNotEndWith("\n\n").doesNotContain("\r");
  }

  @Test
  void render_replaceMode_removesEveryExistingSignatureAnnotation() {
    ManifestDocument signed =
        Fixtures.parse("sample-configmap-keyless-multi-signed.yaml").documents().get(0);
    Map<String, String> annotations =
        Map.of(
            "cosign.sigstore.dev/message", "bWVzc2FnZQ==", "cosign.sigstore.dev/signature", "AQ==");

    ManifestDocument rendered =
        reader
            .parse(format.render(List.of(signed), annotations, false, List.of()), Path.of("x.yaml"))
            .get(0);

    assertThat(rendered.annotations()).isEqualTo(annotations);
  }

  @Test
  void render_appendMode_keepsExistingSetsAndAddsTheNextIndex() {
    ManifestDocument signed =
        Fixtures.parse("sample-configmap-multi-signed.yaml").documents().get(0);
    int next = format.existingSignatureSets(signed);
    Map<String, String> annotations =
        format.annotations(
            format.message(List.of(signed)),
            next,
            new byte[] {7},
            Optional.empty(),
            Optional.empty());

    ManifestDocument rendered =
        reader
            .parse(format.render(List.of(signed), annotations, true, List.of()), Path.of("x.yaml"))
            .get(0);

    assertThat(next).isEqualTo(2);
    assertThat(rendered.annotations())
        .containsEntry("cosign.sigstore.dev/signature_2", "Bw==")
        .containsEntry(
            "cosign.sigstore.dev/signature",
            signed.annotations().get("cosign.sigstore.dev/signature"))
        .containsEntry(
            "cosign.sigstore.dev/signature_1",
            signed.annotations().get("cosign.sigstore.dev/signature_1"));
    assertThat(format.existingSignatureSets(rendered)).isEqualTo(3);
    assertThat(format.decode(rendered).orElseThrow().message())
        .isEqualTo(format.decode(signed).orElseThrow().message());
  }

  @Test
  void decode_unsignedDocument_isEmpty() {
    assertThat(format.decode(Fixtures.parse("sample-configmap.yaml").documents().get(0))).isEmpty();
  }

  @Test
  void decode_legacyTarball_readsTheYamlMemberOfTheTarGz() {
    ManifestDocument document = Fixtures.parse("sample-configmap-signed.yaml").documents().get(0);

    SignedContent content = format.decode(document).orElseThrow();

    assertThat(content.legacyTarball()).isTrue();
    assertThat(content.message()[0]).isEqualTo((byte) 0x1f);
    assertThat(document.name()).isEqualTo("sample-cm-signed");
    assertThat(content.messageDocuments())
        .singleElement()
        .satisfies(
            d -> {
              assertThat(d.kind()).isEqualTo("ConfigMap");
              // The fixture's own object is named sample-cm-signed (checked with Python's tarfile
              // too).
              assertThat(d.name()).isEqualTo("sample-cm-signed");
              assertThat(d.line()).isEqualTo(1);
              assertThat(d.content().get("data")).isEqualTo(Map.of("key1", "val1", "key4", "val4"));
            });
    assertThat(content.signatureSets())
        .singleElement()
        .satisfies(
            set -> {
              assertThat(set.problem()).isEmpty();
              assertThat(set.signature()).isNotEmpty();
              assertThat(set.certificatePem()).isEmpty();
            });
  }

  @Test
  void decode_multiSigned_hasTwoKeyedSets() {
    ManifestDocument document =
        Fixtures.parse("sample-configmap-multi-signed.yaml").documents().get(0);

    SignedContent content = format.decode(document).orElseThrow();

    assertThat(content.legacyTarball()).isFalse();
    assertThat(new String(content.message(), StandardCharsets.UTF_8)).isEqualTo(REFERENCE_MESSAGE);
    assertThat(content.signatureSets())
        .hasSize(2)
        .allSatisfy(
            set -> {
              assertThat(set.problem()).isEmpty();
              assertThat(set.signature()).hasSizeBetween(70, 72);
              assertThat(set.bundle()).isEmpty();
            });
    assertThat(content.signatureSets().get(1).signatureBase64())
        .isEqualTo(document.annotations().get("cosign.sigstore.dev/signature_1"));
  }

  @Test
  void decode_keylessMultiSigned_hasTwoSetsWithCertificatesAndBundles() {
    ManifestDocument document =
        Fixtures.parse("sample-configmap-keyless-multi-signed.yaml").documents().get(0);

    SignedContent content = format.decode(document).orElseThrow();

    assertThat(sha256(content.message()))
        .isEqualTo("7f1e3325c006df008619f607a496084937d906ee2f635f85d6fbac7209533758");
    assertThat(content.signatureSets())
        .hasSize(2)
        .allSatisfy(
            set -> {
              assertThat(set.problem()).isEmpty();
              assertThat(new String(set.certificatePem().orElseThrow(), StandardCharsets.UTF_8))
                  .startsWith("-----BEGIN CERTIFICATE-----");
              assertThat(set.bundle()).isPresent();
            });
    RekorBundle first = content.signatureSets().get(0).bundle().orElseThrow();
    assertThat(first.logIndex()).isEqualTo(2690357L);
    assertThat(first.integratedTime()).isEqualTo(1655452519L);
    assertThat(first.logId())
        .isEqualTo("c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d");
  }

  @Test
  void decode_messageThatIsBase64ButNotGzip_isUsedAsIs() {
    String plain =
        Base64.getEncoder().encodeToString(REFERENCE_MESSAGE.getBytes(StandardCharsets.UTF_8));

    SignedContent content =
        format
            .decode(
                withAnnotations(
                    Map.of(
                        "cosign.sigstore.dev/message",
                        plain,
                        "cosign.sigstore.dev/signature",
                        "AQ==")))
            .orElseThrow();

    assertThat(new String(content.message(), StandardCharsets.UTF_8)).isEqualTo(REFERENCE_MESSAGE);
    assertThat(content.messageDocuments())
        .singleElement()
        .extracting(ManifestDocument::name)
        .isEqualTo("sample-cm");
  }

  @Test
  void decode_customDomain_readsOnlyItsOwnKeys() {
    SignedManifestFormat custom =
        new SignedManifestFormat(new AnnotationDomain("example.org"), reader);
    ManifestDocument document =
        Fixtures.parse("sample-configmap-multi-signed.yaml").documents().get(0);

    assertThat(custom.decode(document)).isEmpty();
    assertThat(custom.existingSignatureSets(document)).isZero();
  }

  static ManifestDocument withAnnotations(Map<String, String> annotations) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("name", "sample-cm");
    metadata.put("annotations", annotations);
    return new ManifestDocument(
        Map.of("apiVersion", "v1", "kind", "ConfigMap", "metadata", metadata));
  }

  private static byte[] gunzip(String base64) throws IOException {
    try (GZIPInputStream in =
        new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder().decode(base64)))) {
      return in.readAllBytes();
    }
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
