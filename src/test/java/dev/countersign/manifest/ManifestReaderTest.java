package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

class ManifestReaderTest {

  private final ManifestReader reader = new ManifestReader();

  @TempDir Path dir;

  static Stream<Arguments> yaml11Scalars() {
    return Stream.of(
        Arguments.of("true", true),
        Arguments.of("True", true),
        Arguments.of("TRUE", true),
        Arguments.of("false", false),
        Arguments.of("yes", true),
        Arguments.of("Yes", true),
        Arguments.of("YES", true),
        Arguments.of("no", false),
        Arguments.of("NO", false),
        Arguments.of("on", true),
        Arguments.of("On", true),
        Arguments.of("off", false),
        Arguments.of("OFF", false),
        Arguments.of("y", true),
        Arguments.of("Y", true),
        Arguments.of("n", false),
        Arguments.of("N", false),
        Arguments.of("yEs", "yEs"),
        Arguments.of("nO", "nO"),
        Arguments.of("~", null),
        Arguments.of("null", null),
        Arguments.of("Null", null),
        Arguments.of("NULL", null),
        Arguments.of("", null),
        Arguments.of("nULL", "nULL"),
        Arguments.of("0", 0L),
        Arguments.of("42", 42L),
        Arguments.of("-17", -17L),
        Arguments.of("+5", 5L),
        Arguments.of("0x1F", 31L),
        Arguments.of("0X1f", 31L),
        Arguments.of("-0x10", -16L),
        Arguments.of("0o17", 15L),
        Arguments.of("0777", 511L),
        Arguments.of("0b101", 5L),
        Arguments.of("-0b11", -3L),
        Arguments.of("1_000", 1000L),
        Arguments.of("1_000_000", 1_000_000L),
        Arguments.of("9223372036854775807", Long.MAX_VALUE),
        Arguments.of("9223372036854775808", new BigInteger("9223372036854775808")),
        // Beyond 64 bits, as yaml.v2 reads them (sigs.k8s.io/yaml 1.3.0 on yaml.v2 2.4.0 gave
        // these JSON values): uint64 exact; else decimal digits a float, anything else a string.
        Arguments.of("18446744073709551615", new BigInteger("18446744073709551615")),
        Arguments.of("0xFFFFFFFFFFFFFFFF", new BigInteger("18446744073709551615")),
        Arguments.of("-9223372036854775809", -9.223372036854775809e18),
        Arguments.of("+9223372036854775808", 9.223372036854775808e18),
        Arguments.of("18446744073709551616", 1.8446744073709551616e19),
        Arguments.of("0777777777777777777777777", 7.77777777777777777777777e23),
        Arguments.of("0x10000000000000000", "0x10000000000000000"),
        Arguments.of("-0x8000000000000001", "-0x8000000000000001"),
        Arguments.of("0o2000000000000000000000", "0o2000000000000000000000"),
        Arguments.of("0b1" + "0".repeat(64), "0b1" + "0".repeat(64)),
        Arguments.of("08", 8.0),
        Arguments.of("1.5", 1.5),
        Arguments.of("-1.5", -1.5),
        Arguments.of("1.", 1.0),
        Arguments.of(".5", 0.5),
        Arguments.of("+.5", 0.5),
        Arguments.of("1e3", 1000.0),
        Arguments.of("1.0e+20", 1.0e20),
        Arguments.of("6.02E-23", 6.02e-23),
        Arguments.of("1_0.5", 10.5),
        Arguments.of(".inf", Double.POSITIVE_INFINITY),
        Arguments.of("-.Inf", Double.NEGATIVE_INFINITY),
        Arguments.of("+.INF", Double.POSITIVE_INFINITY),
        Arguments.of(".nan", Double.NaN),
        Arguments.of("1e400", "1e400"),
        // A scalar starting with '.' goes to Go's ParseFloat as written: underscores between
        // digits are Go number syntax, and overflow is a range error, so the string stays.
        Arguments.of(".01_8", 0.018),
        Arguments.of(".5e1_0", 5e9),
        Arguments.of(".5e400", ".5e400"),
        Arguments.of("._5", "._5"),
        Arguments.of(".5_", ".5_"),
        Arguments.of(".5__0", ".5__0"),
        Arguments.of(".5e_1", ".5e_1"),
        Arguments.of("1:30", "1:30"),
        Arguments.of("190:20:30", "190:20:30"),
        Arguments.of("2001-12-14", "2001-12-14"),
        Arguments.of("2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00"),
        Arguments.of("2001-12-14 21:59:43.10 -5", "2001-12-14 21:59:43.10 -5"),
        Arguments.of("0x", "0x"),
        Arguments.of("0xG", "0xG"),
        Arguments.of("1.2.3", "1.2.3"),
        Arguments.of("-x", "-x"),
        Arguments.of("+", "+"),
        Arguments.of(".", "."),
        Arguments.of("=", "="),
        Arguments.of("v1", "v1"),
        Arguments.of("1Gi", "1Gi"),
        Arguments.of("500m", "500m"),
        Arguments.of("\"yes\"", "yes"),
        Arguments.of("'0777'", "0777"),
        Arguments.of("\"~\"", "~"),
        Arguments.of("!!str 123", "123"),
        Arguments.of("!!str yes", "yes"),
        Arguments.of("!!int \"12\"", 12L),
        Arguments.of("!!float 3", 3.0),
        Arguments.of("!!bool \"on\"", true),
        Arguments.of("!!null ''", null),
        Arguments.of("!!timestamp 2001-12-14", "2001-12-14"),
        Arguments.of("! 12", "12"),
        Arguments.of("&anchor ! yes", "yes"),
        Arguments.of("&anchor yes", true));
  }

  @ParameterizedTest(name = "[{index}] value: {0}")
  @MethodSource("yaml11Scalars")
  void parse_plainAndTaggedScalars_resolveAsYamlV2Does(String yaml, Object expected) {
    ManifestDocument document = parseOne("apiVersion: v1\nkind: ConfigMap\nvalue: " + yaml + "\n");

    assertThat(document.content()).containsKey("value");
    assertThat(document.content().get("value")).isEqualTo(expected);
  }

  @Test
  void parse_recordsDocumentAndFieldLines() {
    List<ManifestDocument> documents =
        reader.parse(
            ("""
            # leading comment
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata:
              name: deny
            spec:
              ingress:
              - from:
                - podSelector: {}
                ports:
                - port: 80
            ---
            ---
            apiVersion: v1
            kind: ConfigMap
            metadata:
              name: second
            """)
                .getBytes(StandardCharsets.UTF_8),
            Path.of("np.yaml"));

    assertThat(documents).hasSize(2);
    ManifestDocument first = documents.get(0);
    assertThat(first.line()).isEqualTo(2);
    assertThat(first.fieldLines())
        .contains(
            entry("apiVersion", 2),
            entry("metadata.name", 5),
            entry("spec.ingress", 7),
            entry("spec.ingress.0", 8),
            entry("spec.ingress.0.from", 8),
            entry("spec.ingress.0.from.0.podSelector", 9),
            entry("spec.ingress.0.ports.0.port", 11));
    assertThat(first.lineOf("spec.ingress.0.ports.0.port.missing")).isEqualTo(11);
    assertThat(documents.get(1).line()).isEqualTo(14);
    assertThat(documents.get(1).fieldLines()).contains(entry("metadata.name", 17));
    assertThat(first.group()).isEqualTo("networking.k8s.io");

    // Held after the checks, a document keeps its content and its own line only.
    ManifestDocument held = first.withoutFieldLines();
    assertThat(held.content()).isEqualTo(first.content());
    assertThat(held.line()).isEqualTo(2);
    assertThat(held.fieldLines()).isEmpty();
    assertThat(held.lineOf("spec.ingress.0.ports.0.port")).isEqualTo(2);
  }

  @Test
  void withOnlyObjectNames_keepsWhatNamesTheObjectAndItsLine_andAnswersAsTheWholeDocument() {
    ManifestDocument whole =
        parseOne(
            """
            apiVersion: networking.k8s.io/v1
            kind: NetworkPolicy
            metadata:
              name: deny
              namespace: shop
              labels: {app: shop}
              annotations:
                cosign.sigstore.dev/signature: MEUCIQ
            spec:
              podSelector: {}
            """);

    ManifestDocument names = whole.withOnlyObjectNames();

    assertThat(names.content()).containsOnlyKeys("apiVersion", "kind", "metadata");
    assertThat(names.metadata()).containsOnlyKeys("name", "namespace");
    assertThat(names.line()).isEqualTo(whole.line());
    assertThat(names.fieldLines()).isEmpty();
    assertThat(List.of(names.group(), names.kind(), names.name(), names.namespace()))
        .isEqualTo(List.of("networking.k8s.io", "NetworkPolicy", "deny", Optional.of("shop")));
    assertThat(names.describe()).isEqualTo(whole.describe()).isEqualTo("NetworkPolicy/shop/deny");
    assertThat(names.withOnlyObjectNames()).isSameAs(names);
    // A document without a namespace stays without one.
    ManifestDocument bare = parseOne("apiVersion: v1\nkind: Namespace\nmetadata: {name: shop}\n");
    assertThat(bare.withOnlyObjectNames().content()).isEqualTo(bare.content());
    assertThat(bare.withOnlyObjectNames().describe()).isEqualTo("Namespace/shop");
  }

  @Test
  void parse_keepsSourceOrderAndConvertsNonStringKeysToText() {
    ManifestDocument document =
        parseOne(
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  zeta: a\n  1: one\n"
                + "  yes: b\n  2.5: c\n  0x10: d\n  alpha: e\n");

    @SuppressWarnings("unchecked")
    Map<String, Object> data = (Map<String, Object>) document.content().get("data");
    assertThat(data.keySet()).containsExactly("zeta", "1", "true", "2.5", "16", "alpha");
  }

  /** Key, then the JSON key sigs.k8s.io/yaml 1.3.0 (on yaml.v2 2.4.0) made of it. */
  @ParameterizedTest(name = "[{index}] key {0} is \"{1}\"")
  @CsvSource(
      delimiter = '|',
      value = {
        "2.5 | 2.5",
        "-2.5 | -2.5",
        "1.0 | 1",
        "1. | 1",
        "1e3 | 1000",
        "1_0.5 | 10.5",
        ".5 | 0.5",
        "0.1 | 0.1",
        "999999.0 | 999999",
        "123456.7 | 123456.7",
        "1000000.0 | 1e+06",
        "1234567.0 | 1.234567e+06",
        "16777217.0 | 1.6777216e+07",
        "33554431.0 | 3.3554432e+07",
        "123456789.123 | 1.2345679e+08",
        "1.00000001 | 1",
        "0.0001 | 0.0001",
        "0.000123 | 0.000123",
        "0.00001 | 1e-05",
        "-1.0e-5 | -1e-05",
        "1.5e-10 | 1.5e-10",
        "1e-45 | 1e-45",
        "1e-46 | 0",
        "0.0 | 0",
        "-0.0 | -0",
        "1.1e20 | 1.1e+20",
        "7e22 | 7e+22",
        "3.4e38 | 3.4e+38",
        "3.4e39 | .inf",
        "-3.4e39 | -.inf",
        ".inf | .inf",
        "-.inf | -.inf",
        ".nan | .nan",
        "-9223372036854775809 | -9.223372e+18",
        // Powers of two, where the float's interval is narrower below than above: the nearest
        // decimal of a precision can miss it while the next one up reads back (Go 1.19 output).
        "1.2621774483536189e-29 | 1.2621775e-29",
        "1.5474250491067253e+26 | 1.5474251e+26",
        "1.2379400392853803e+27 | 1.2379401e+27",
      })
  void parse_floatKeys_becomeTheTextKubernetesYamlReaderGivesThem(String key, String text) {
    ManifestDocument document =
        parseOne("apiVersion: v1\nkind: ConfigMap\ndata:\n  " + key + ": v\n");

    assertThat(castMap(document.content().get("data"))).containsOnlyKeys(text);
  }

  @Test
  void parse_mergeKeysAndAliases_expandLikeYamlV2() {
    ManifestDocument document =
        parseOne(
            """
            apiVersion: v1
            kind: ConfigMap
            base: &base {a: 1, b: 2}
            data:
              <<: *base
              b: 3
            list: &l [x, "y", y]
            again: *l
            """);

    assertThat(document.content().get("data")).isEqualTo(Map.of("a", 1L, "b", 3L));
    assertThat(document.content().get("again")).isEqualTo(List.of("x", "y", true));
  }

  @Test
  void parse_emptyDocumentsAndExplicitNullDocuments_areSkipped() {
    List<ManifestDocument> documents =
        reader.parse(
            "---\n---\n# only a comment\n---\n~\n---\napiVersion: v1\nkind: ConfigMap\n---\n"
                .getBytes(StandardCharsets.UTF_8),
            Path.of("x.yaml"));

    assertThat(documents).singleElement().satisfies(d -> assertThat(d.line()).isEqualTo(7));
  }

  @Test
  void parse_valuesAreImmutable() {
    ManifestDocument document =
        parseOne("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: b\nlist: [1]\n");

    assertThat(document.content().get("data")).isInstanceOf(Map.class);
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> castMap(document.content().get("data")).put("c", "d"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  @Test
  void read_regularFile_keepsTheExactBytesAndPaths() throws IOException {
    byte[] bytes =
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a # comment\n"
            .getBytes(StandardCharsets.UTF_8);
    Path file = Files.write(dir.resolve("a.yaml"), bytes);

    ManifestFile read = reader.read(file, Path.of("unsigned/a.yaml"));

    assertThat(read.bytes()).isEqualTo(bytes);
    assertThat(read.path()).isEqualTo(file);
    assertThat(read.displayPath()).isEqualTo(Path.of("unsigned/a.yaml"));
    assertThat(read.documents()).singleElement().extracting(ManifestDocument::name).isEqualTo("a");
  }

  @Test
  void read_fileOfExactlyMaxBytes_isAccepted() throws IOException {
    byte[] bytes = "apiVersion: v1\nkind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);
    Path file = Files.write(dir.resolve("a.yaml"), bytes);

    assertThat(new ManifestReader(bytes.length).read(file, Path.of("a.yaml")).documents())
        .hasSize(1);
  }

  @Test
  void parse_hugeLimit_stillParses() {
    List<ManifestDocument> documents =
        new ManifestReader(Long.MAX_VALUE)
            .parse(
                "apiVersion: v1\nkind: ConfigMap\n".getBytes(StandardCharsets.UTF_8),
                Path.of("a.yaml"));

    assertThat(documents).hasSize(1);
  }

  @Test
  void parse_unicodeAndLongValues_areKept() {
    String longValue = "x".repeat(200_000);
    ManifestDocument document =
        parseOne(
            "apiVersion: v1\nkind: ConfigMap\ndata:\n  emoji: \"héllo 🎉\"\n  long: "
                + longValue
                + "\n");

    assertThat(castMap(document.content().get("data")))
        .containsEntry("emoji", "héllo 🎉")
        .containsEntry("long", longValue);
  }

  @Test
  void parse_yaml11LineBreaksWrittenAsEscapes_areKept() {
    // Control for the refusal of U+0085, U+2028 and U+2029 as characters (BadInputTest): as
    // escapes in a double-quoted string they are plain text to every parser.
    ManifestDocument document =
        parseOne("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"x\\Ny\\Lz\\u2029\"\n");

    assertThat(castMap(document.content().get("data"))).containsEntry("a", "x\u0085y\u2028z\u2029");
  }

  static Stream<Arguments> nullOrEmptyAnnotationsAndLabels() {
    Map<String, Object> nullValue = new java.util.HashMap<>();
    nullValue.put("a", null);
    return Stream.of(
        // The API server decodes a null map as no map and a null value as "": both are accepted,
        // and the message keeps them as written (an empty annotations mapping is dropped from it).
        Arguments.of("  annotations:\n", "annotations", null, "  annotations: null\n"),
        Arguments.of("  annotations: ~\n", "annotations", null, "  annotations: null\n"),
        Arguments.of("  annotations: {}\n", "annotations", Map.of(), ""),
        Arguments.of("  labels:\n", "labels", null, "  labels: null\n"),
        Arguments.of("  labels: {}\n", "labels", Map.of(), "  labels: {}\n"),
        Arguments.of(
            "  annotations:\n    a:\n", "annotations", nullValue, "  annotations:\n    a: null\n"),
        Arguments.of("  labels:\n    a:\n", "labels", nullValue, "  labels:\n    a: null\n"),
        Arguments.of(
            "  labels:\n    app: \"3\"\n",
            "labels",
            Map.of("app", "3"),
            "  labels:\n    app: \"3\"\n"));
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("nullOrEmptyAnnotationsAndLabels")
  void parse_nullOrEmptyAnnotationsAndLabels_areKept_andSignedAsBefore(
      String metadata, String field, Object expected, String inMessage) {
    ManifestDocument document =
        parseOne("apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + metadata + "  name: x\n");

    assertThat(document.metadata()).containsKey(field);
    assertThat(document.metadata().get(field)).isEqualTo(expected);
    byte[] message =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, reader).message(List.of(document));
    assertThat(new String(message, StandardCharsets.UTF_8))
        .isEqualTo("apiVersion: v1\nkind: ConfigMap\nmetadata:\n" + inMessage + "  name: x\n");
  }

  private ManifestDocument parseOne(String yaml) {
    List<ManifestDocument> documents =
        reader.parse(yaml.getBytes(StandardCharsets.UTF_8), Path.of("test.yaml"));
    assertThat(documents).hasSize(1);
    return documents.get(0);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object value) {
    return (Map<String, Object>) value;
  }
}
