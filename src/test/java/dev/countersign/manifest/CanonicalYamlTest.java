package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

class CanonicalYamlTest {

  /** YAML 1.2.2 core schema (spec 10.3.2), written out here independently of the writer. */
  private static final Pattern CORE_12 =
      Pattern.compile(
          "null|Null|NULL|~|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
              + "|[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?\\.(inf|Inf|INF)|\\.(nan|NaN|NAN)");

  private final ManifestReader reader = new ManifestReader();

  static Stream<String> trickyStrings() {
    return Stream.of(
        "",
        " ",
        "  ",
        "yes",
        "Yes",
        "YES",
        "yEs",
        "y",
        "Y",
        "n",
        "N",
        "no",
        "on",
        "On",
        "off",
        "OFF",
        "true",
        "True",
        "TRUE",
        "tRUE",
        "false",
        "null",
        "Null",
        "NULL",
        "~",
        "0777",
        "0o17",
        "0O17",
        "0x1F",
        "0X1f",
        "0b101",
        "0B101",
        "1_000",
        "1__0",
        "0x_1F",
        "1:30",
        "190:20:30",
        "-1:30",
        "1:30.5",
        "2001-12-14",
        "2001-1-2",
        "2001-12-14T21:59:43.10Z",
        "2001-12-14t21:59:43.10-05:00",
        "2001-12-14 21:59:43.10 -5",
        "1e3",
        "1E3",
        "1e+3",
        "6.02e+23",
        "1.5",
        ".5",
        "+.5",
        "1.",
        "+1",
        "-1",
        "-0",
        "+0",
        "0",
        "00",
        "08",
        "09",
        ".inf",
        "-.inf",
        "+.INF",
        ".nan",
        ".NaN",
        "Infinity",
        "NaN",
        "inf",
        "=",
        "<<",
        "-",
        "--",
        "---",
        "...",
        "- a",
        "-x",
        "x-",
        "? a",
        "?a",
        ": a",
        ":a",
        "a: b",
        "a:b",
        "a:",
        "a: ",
        "a #b",
        "a#b",
        "#a",
        "&a",
        "*a",
        "!a",
        "!",
        "*",
        "&",
        "|a",
        ">a",
        "'a",
        "\"a",
        "%a",
        "@a",
        "`a",
        "[a]",
        "{a}",
        ",a",
        "a,b",
        "a, b",
        "]",
        " a",
        "a ",
        "\ta",
        "a\t",
        "a\tb",
        "a\nb",
        "a\nb\n",
        "a\nb\n\n",
        "\na",
        "\n",
        "\n\n",
        " a\nb",
        "a \nb",
        "a\n b",
        "line1\n\nline3\n",
        "a\r\nb",
        "a\rb",
        "\u0007",
        "x\u0000y",
        "\u0085",
        "a\u0085b",
        "\u2028",
        "a\u2029b",
        "\uFEFF",
        "a\uFEFFb",
        "\u00a0",
        "é",
        "🎉",
        "emoji 🎉 mid",
        "日本語",
        "\uFFFE",
        "C:\\path",
        "back\\slash",
        "quote\"d",
        "it's",
        "key=value",
        "a: b: c",
        "http://example.com/x?y=z#frag",
        "v1",
        "apps/v1",
        "500m",
        "1Gi",
        "10.0.0.1",
        "1.2.3",
        "192.168.1.1:8080",
        "a - b",
        "- ",
        "foo:\n  bar",
        "a\n---\nb",
        "a\n...\nb",
        "---\na",
        "#!/bin/sh\necho hi\n",
        "\tindented tab\nline",
        "trailing space \nline",
        "x".repeat(3000),
        "y".repeat(1100) + ": z",
        "--flag=1",
        "-v",
        "-1x",
        "word ".repeat(100).trim(),
        "multi\nline with: colon\n  and # hash\n",
        "\n  leading\n",
        "{\"json\": [1, 2]}\n",
        "a\n\tb\n",
        "ends with tab\t\nx");
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("trickyStrings")
  void write_trickyString_readsBackAsTheSameStringEverywhere(String value) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("apiVersion", "v1");
    document.put("kind", "ConfigMap");
    document.put("value", value);
    document.put("list", List.of(value, value));
    document.put(value, "as a key");

    String yaml = CanonicalYaml.write(document);

    assertThat(ourReading(yaml)).isEqualTo(document);
    assertThat(snakeYamlReading(yaml)).isEqualTo(document);
    assertPlainScalarIsStringInYaml12(yaml, value);
  }

  static Stream<Object> numbers() {
    return Stream.of(
        0L,
        -1L,
        42L,
        Long.MAX_VALUE,
        Long.MIN_VALUE,
        // The reader's only BigIntegers: uint64 values beyond the Long range, as yaml.v2 has them.
        new BigInteger("9223372036854775808"),
        new BigInteger("18446744073709551615"),
        0.0,
        -0.0,
        1.5,
        -2.25,
        0.1,
        1e7,
        1e15,
        1e16,
        1e20,
        1e-3,
        9.99e-4,
        1e-20,
        123456789.123,
        10000000000.0,
        Double.MAX_VALUE,
        Double.MIN_VALUE,
        Double.MIN_NORMAL,
        Double.NaN,
        Double.POSITIVE_INFINITY,
        Double.NEGATIVE_INFINITY,
        true,
        false);
  }

  @ParameterizedTest(name = "[{index}] {0}")
  @MethodSource("numbers")
  void write_numberOrBoolean_readsBackAsTheSameValue(Object value) {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("apiVersion", "v1");
    document.put("kind", "ConfigMap");
    document.put("value", value);

    String yaml = CanonicalYaml.write(document);

    assertThat(ourReading(yaml)).isEqualTo(document);
    if (!Double.valueOf(-0.0).equals(value)) {
      // SnakeYAML reads "-0.0" as 0.0 (it applies the sign to an int); yaml.v2 and we keep -0.0.
      assertThat(snakeYamlReading(yaml)).isEqualTo(document);
    }
    String written =
        yaml.lines().filter(l -> l.startsWith("value: ")).findFirst().orElseThrow().substring(7);
    if (value instanceof Double d && !d.isNaN() && !d.isInfinite()) {
      assertThat(written).as("float needs a '.' for YAML 1.1").contains(".");
      assertThat(written).as("YAML 1.1 needs a signed exponent").doesNotMatch(".*[eE][0-9].*");
      assertThat(CORE_12.matcher(written).matches()).isTrue();
    }
  }

  @Test
  void write_randomStrings_roundTrip() {
    String alphabet = "aZ09 :#-?'\"\\\t\n\r{}[],&*!|>%@`~.+_=<\u0085\u2028\u00e9\uFEFF\u0007";
    Random random = new Random(20260101);
    for (int i = 0; i < 3000; i++) {
      StringBuilder s = new StringBuilder();
      int length = random.nextInt(12);
      for (int k = 0; k < length; k++) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      Map<String, Object> document = new LinkedHashMap<>();
      document.put("apiVersion", "v1");
      document.put("kind", "ConfigMap");
      document.put("v", s.toString());
      document.put("k" + s, List.of(s.toString()));
      String yaml = CanonicalYaml.write(document);

      assertThat(ourReading(yaml)).as(yaml).isEqualTo(document);
      assertThat(snakeYamlReading(yaml)).as(yaml).isEqualTo(document);
    }
  }

  /**
   * The base64 shortcut of {@code isPlainSafe} never answers where the full check would not: on
   * real annotation values (fixtures and freshly made ones) and on generated strings built to sit
   * next to every number, date and keyword form (hex, exponents, underscores, sexagesimal,
   * timestamps, .inf/.nan, yes/no/on/off, "=", "<<", leading indicators).
   */
  @Test
  void isPlainSafe_base64Shortcut_givesTheFullCheckAnswer() {
    List<String> samples = new ArrayList<>();
    for (String fixture :
        List.of(
            "sample-configmap-signed.yaml",
            "sample-configmap-multi-signed.yaml",
            "sample-configmap-keyless-multi-signed.yaml")) {
      for (ManifestDocument document : Fixtures.parse(fixture).documents()) {
        samples.addAll(document.annotations().values());
      }
    }
    Random random = new Random(20261123);
    SignedManifestFormat format = new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);
    for (int i = 0; i < 50; i++) {
      byte[] message = new byte[random.nextInt(4000)];
      random.nextBytes(message);
      byte[] signature = new byte[70 + random.nextInt(3)];
      random.nextBytes(signature);
      byte[] body = new byte[random.nextInt(3000)];
      random.nextBytes(body);
      byte[] set = new byte[71];
      random.nextBytes(set);
      Base64.Encoder base64 = Base64.getEncoder();
      RekorBundle bundle =
          new RekorBundle(
              base64.encodeToString(set),
              base64.encodeToString(body),
              1_700_000_000L + i,
              i,
              "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d");
      String pem =
          "-----BEGIN CERTIFICATE-----\n"
              + base64.encodeToString(body)
              + "\n-----END CERTIFICATE-----\n";
      samples.addAll(
          format
              .annotations(message, i % 3, signature, Optional.of(pem), Optional.of(bundle))
              .values());
    }
    String base64Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=";
    String numberAlphabet = "0123456789abcdefABCDEFxXoObB+-._:eE";
    String killers = "gGzZ/=nNtTyY";
    String[] prefixes = {
      "",
      "+",
      "-",
      "0x",
      "0X",
      "0o",
      "0b",
      "-0x",
      "+0o",
      ".",
      "-.",
      "1e",
      "1E+",
      "0",
      "1_",
      "=",
      "<<",
      "~",
      "!",
      "&",
      "*",
      "|",
      ">",
      "%",
      "@",
      "`",
      "#",
      "?",
      ":",
      ",",
      "[",
      "{",
      "'",
      "\"",
      "- ",
      "---",
      "...",
      "2001-12-14",
      "2001-12-14t21:59:43.10-05:00",
      "2002-12-14 ",
      "1:30:",
      ".inf",
      "-.Inf",
      ".NaN",
      "yes",
      "No",
      "ON",
      "off",
      "y",
      "n",
      "null",
      "true",
      "False"
    };
    String[] suffixes = {"", ":", " ", " #x", ": x", "e5", "E-3", "_000", ":30", ".5", "=", "/"};
    for (int i = 0; i < 20_000; i++) {
      String alphabet =
          switch (i % 4) {
            case 0 -> base64Alphabet;
            case 1 -> numberAlphabet;
            case 2 -> numberAlphabet + killers.charAt(random.nextInt(killers.length()));
            default -> "0123456789";
          };
      int length = random.nextInt(4) == 0 ? 129 + random.nextInt(3000) : random.nextInt(140);
      StringBuilder s = new StringBuilder(prefixes[random.nextInt(prefixes.length)]);
      for (int k = 0; k < length; k++) {
        s.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      s.append(suffixes[random.nextInt(suffixes.length)]);
      samples.add(s.toString());
    }
    for (String word :
        List.of(
            "yes",
            "Yes",
            "NO",
            "on",
            "Off",
            "true",
            "FALSE",
            "null",
            "~",
            "=",
            "<<",
            ".inf",
            "-.INF",
            ".nan",
            "0x1F",
            "0o17",
            "0b101",
            "1_000",
            "1:30",
            "1e10",
            "1.5E+3",
            "2001-12-14",
            "abcdef",
            "abcdefg",
            "0xabcdef",
            "0xabcdefg",
            "123456",
            "12345g",
            "+12345",
            "/12345",
            "=12345",
            "ffffff",
            "eeeeee",
            "xxxxxx",
            "oooooo",
            "bbbbbb",
            "Infinity",
            "NaNNaN")) {
      samples.add(word);
      samples.add(word.repeat(30));
    }

    int shortcuts = 0;
    for (String sample : samples) {
      boolean full = CanonicalYaml.checkPlainSafe(sample);
      if (CanonicalYaml.isPlainBase64Text(sample)) {
        shortcuts++;
        assertThat(full).as(sample).isTrue();
      }
      assertThat(CanonicalYaml.isPlainSafe(sample)).as(sample).isEqualTo(full);
    }
    // Not vacuous: the shortcut answers for the annotation values and many generated strings.
    assertThat(shortcuts).isGreaterThan(1_000);
    for (String value :
        format
            .annotations(new byte[100], 0, new byte[70], Optional.empty(), Optional.empty())
            .values()) {
      assertThat(CanonicalYaml.isPlainBase64Text(value)).as(value).isTrue();
    }
  }

  @Test
  void write_nestedStructures_useGoLikeLayout() {
    Map<String, Object> document = new LinkedHashMap<>();
    document.put("kind", "Pod");
    document.put("apiVersion", "v1");
    document.put(
        "spec",
        Map.of(
            "containers",
                List.of(Map.of("name", "app", "args", List.of("-v", "run"), "env", List.of())),
            "matrix", List.of(List.of(1L, 2L), List.of(), Map.of()),
            "nothing", new LinkedHashMap<>(),
            "nulls", Arrays.asList(null, "x"),
            "script", "#!/bin/sh\necho hi\n",
            "scripts", List.of("a\nb")));

    String yaml = CanonicalYaml.write(document);

    assertThat(yaml)
        .isEqualTo(
            """
            apiVersion: v1
            kind: Pod
            spec:
              containers:
              - args:
                - -v
                - run
                env: []
                name: app
              matrix:
              - - 1
                - 2
              - []
              - {}
              nothing: {}
              nulls:
              - null
              - x
              script: |
                #!/bin/sh
                echo hi
              scripts:
              - |-
                a
                b
            """);
    assertThat(ourReading(yaml)).isEqualTo(document);
    assertThat(snakeYamlReading(yaml)).isEqualTo(document);
  }

  @Test
  void write_keysInCodePointOrder() {
    Map<String, Object> document = new LinkedHashMap<>();
    for (String key : List.of("b", "B", "a10", "a2", "_x", "é", "🎉", "\uFF21", "1")) {
      document.put(key, 1L);
    }

    List<String> keys =
        CanonicalYaml.write(document)
            .lines()
            .map(l -> l.substring(0, l.indexOf(':')).replace("\"", ""))
            .toList();

    assertThat(keys).containsExactly("1", "B", "_x", "a10", "a2", "b", "é", "\uFF21", "🎉");
  }

  @Test
  void write_sameContentInAnyInsertionOrder_sameText() {
    Map<String, Object> one = new LinkedHashMap<>();
    one.put("a", Map.of("x", 1L, "y", 2L));
    one.put("b", "c");
    Map<String, Object> two = new LinkedHashMap<>();
    two.put("b", "c");
    Map<String, Object> inner = new LinkedHashMap<>();
    inner.put("y", 2L);
    inner.put("x", 1L);
    two.put("a", inner);

    assertThat(CanonicalYaml.write(two))
        .isEqualTo(CanonicalYaml.write(one))
        .endsWith("\n")
        .doesNotEndWith("\n\n");
  }

  @Test
  void write_fixtureDocuments_roundTrip() {
    for (String fixture :
        List.of(
            "sample-configmap-keyless-multi-signed.yaml",
            "sample-configmap-signed.yaml",
            "sample-configmap-concat.yaml")) {
      for (ManifestDocument document : Fixtures.parse(fixture).documents()) {
        String yaml = CanonicalYaml.write(document.content());
        assertThat(ourReading(yaml)).isEqualTo(document.content());
      }
    }
  }

  private Map<String, Object> ourReading(String yaml) {
    List<ManifestDocument> documents =
        reader.parse(yaml.getBytes(StandardCharsets.UTF_8), Path.of("roundtrip.yaml"));
    assertThat(documents).hasSize(1);
    return documents.get(0).content();
  }

  /** SnakeYAML's own YAML 1.1 reading (timestamps would become Dates, 1:30 an integer). */
  private static Object snakeYamlReading(String yaml) {
    Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
    return normalize(loaded);
  }

  private static Object normalize(Object value) {
    if (value instanceof Map<?, ?> map) {
      Map<String, Object> result = new LinkedHashMap<>();
      map.forEach((k, v) -> result.put(String.valueOf(k), normalize(v)));
      return result;
    }
    if (value instanceof List<?> list) {
      List<Object> result = new ArrayList<>();
      list.forEach(v -> result.add(normalize(v)));
      return result;
    }
    if (value instanceof Integer i) {
      return i.longValue();
    }
    if (value instanceof BigInteger b && b.bitLength() < 64) {
      return b.longValue();
    }
    return value;
  }

  /**
   * Any plain (unquoted, non-block) occurrence of the value must not be a YAML 1.2 core non-string.
   */
  private static void assertPlainScalarIsStringInYaml12(String yaml, String value) {
    for (String line : yaml.split("\n")) {
      String scalar = line.startsWith("value: ") ? line.substring(7) : null;
      if (scalar != null && !scalar.startsWith("\"") && !scalar.startsWith("|")) {
        assertThat(scalar).isEqualTo(value);
        assertThat(CORE_12.matcher(scalar).matches())
            .as("YAML 1.2 reads %s as a non-string", scalar)
            .isFalse();
      }
    }
  }
}
