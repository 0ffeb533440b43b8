package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.InputProblem;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every way a manifest file or its signature annotations can be unusable, and what we say. */
class BadInputTest {

  private static final Path SHOWN_AS = Path.of("unsigned/bad.yaml");
  private static final String HEAD = "apiVersion: v1\nkind: ConfigMap\n";

  @TempDir Path dir;

  /** Writes the bad input under a directory and returns the path to read. */
  interface Setup {
    Path create(Path dir) throws IOException;
  }

  static Setup text(String content) {
    return bytes(content.getBytes(StandardCharsets.UTF_8));
  }

  static Setup bytes(byte[] content) {
    return dir -> Files.write(dir.resolve("bad.yaml"), content);
  }

  static Stream<Arguments> badFiles() {
    return Stream.of(
        Arguments.of(
            "unclosed flow sequence",
            text(HEAD + "metadata:\n  name: [a\n"),
            "unsigned/bad.yaml:5: is not valid YAML: expected ',' or ']', but got <stream end>"),
        Arguments.of(
            "bad indentation",
            text("apiVersion: v1\n kind: ConfigMap\n"),
            "unsigned/bad.yaml:2: is not valid YAML: mapping values are not allowed here"),
        Arguments.of(
            "tab indentation",
            text(HEAD + "data:\n\tkey: x\n"),
            "unsigned/bad.yaml:4: is not valid YAML: found character '\\t(TAB)' that cannot start"
                + " any token. (Do not use \\t(TAB) for indentation)"),
        Arguments.of(
            "unterminated quote",
            text(HEAD + "data:\n  a: 'open\n"),
            "unsigned/bad.yaml:5: is not valid YAML: found unexpected end of stream"),
        Arguments.of(
            "syntax error in the second document",
            text(HEAD + "---\n" + HEAD + "data: {a: 1\n"),
            "unsigned/bad.yaml:7: is not valid YAML: expected ',' or '}', but got <stream end>"),
        Arguments.of(
            "duplicate top-level key",
            text(HEAD + "kind: Secret\n"),
            "unsigned/bad.yaml:3: duplicate key \"kind\" (first defined at line 2)"),
        Arguments.of(
            "duplicate nested key",
            text(HEAD + "metadata:\n  name: a\n  labels:\n    x: 1\n    x: 2\n"),
            "unsigned/bad.yaml:7: duplicate key \"x\" in metadata.labels (first defined at line"
                + " 6)"),
        Arguments.of(
            "duplicate key in a list item",
            text(HEAD + "spec:\n  containers:\n  - name: a\n    name: b\n"),
            "unsigned/bad.yaml:6: duplicate key \"name\" in spec.containers.0 (first defined at"
                + " line 5)"),
        Arguments.of(
            "a key set before a merge key that sets it too (go-yaml would take the merged value)",
            text(HEAD + "data:\n  mode: safe\n  <<: {mode: evil}\n"),
            "unsigned/bad.yaml:4: key \"mode\" in data is set before the merge key << at line 5,"
                + " which sets it too: the YAML spec keeps this value, Kubernetes' parser (go-yaml)"
                + " the merged one"),
        Arguments.of(
            "two merge keys in one mapping",
            text(HEAD + "data:\n  <<: {a: x}\n  <<: {a: y}\n"),
            "unsigned/bad.yaml:5: duplicate merge key << in data (first at line 4)"),
        Arguments.of(
            "alias bomb (alias count)",
            text(HEAD + aliasBomb(9, 7)),
            "unsigned/bad.yaml: uses more than 50 aliases to mappings or sequences (a YAML alias"
                + " bomb?)"),
        Arguments.of(
            "alias bomb (expansion)",
            text(HEAD + aliasBomb(2, 24)),
            "unsigned/bad.yaml:5: expands to more than 1000000 values through aliases (a YAML alias"
                + " bomb?)"),
        Arguments.of(
            "recursive alias",
            text(HEAD + "data: &a [*a]\n"),
            "unsigned/bad.yaml:3: contains a recursive alias"),
        Arguments.of(
            "excessive nesting",
            text(HEAD + "data: " + "[".repeat(150) + "]".repeat(150) + "\n"),
            "unsigned/bad.yaml: nests mappings and sequences deeper than 100 levels"),
        Arguments.of(
            "20 MB file",
            (Setup)
                dir -> {
                  byte[] big = new byte[20 * 1024 * 1024];
                  Arrays.fill(big, (byte) '#');
                  return Files.write(dir.resolve("bad.yaml"), big);
                },
            "unsigned/bad.yaml: is 20971520 bytes, larger than the limit of 1048576 bytes"),
        Arguments.of(
            "Latin-1 byte",
            bytes(concat(HEAD + "data:\n  a: caf", new byte[] {(byte) 0xE9}, "\n")),
            "unsigned/bad.yaml:4: is not valid UTF-8 (byte 0xe9 at offset 45)"),
        Arguments.of(
            "UTF-8 byte order mark",
            bytes(concat("", new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, HEAD)),
            "unsigned/bad.yaml:1: starts with a UTF-8 byte order mark (BOM)"),
        Arguments.of(
            "CRLF line endings",
            text("apiVersion: v1\r\nkind: ConfigMap\r\n"),
            "unsigned/bad.yaml:1: uses CRLF (Windows) line endings"),
        Arguments.of(
            "lone CR",
            text(HEAD + "data:\n  a: x\ry\n"),
            "unsigned/bad.yaml:4: contains a carriage return (CR) character"),
        Arguments.of(
            // Each end of the file: a CR there is refused the same, named at its line.
            "CR as the very first byte",
            text("\r" + HEAD),
            "unsigned/bad.yaml:1: contains a carriage return (CR) character"),
        Arguments.of(
            "CR as the very last byte",
            text(HEAD + "metadata:\n  name: x\r"),
            "unsigned/bad.yaml:4: contains a carriage return (CR) character"),
        Arguments.of(
            // Comments end at U+2028 for YAML 1.1: a diff shows "evil" inside the comment.
            "LINE SEPARATOR ending a comment",
            text(HEAD + "# a note\u2028data: {evil: x}\n"),
            "unsigned/bad.yaml:3: contains the character U+2028 (LINE SEPARATOR), a line break to"
                + " YAML 1.1 parsers (Kubernetes' go-yaml among them) that diffs and Kubernetes'"
                + " document splitter do not show as one"),
        Arguments.of(
            "NEXT LINE before a document marker",
            text(HEAD + "metadata:\n  name: a\u0085---\u0085" + HEAD),
            "unsigned/bad.yaml:4: contains the character U+0085 (NEXT LINE), a line break to YAML"
                + " 1.1 parsers (Kubernetes' go-yaml among them) that diffs and Kubernetes'"
                + " document splitter do not show as one"),
        Arguments.of(
            "PARAGRAPH SEPARATOR in a quoted value",
            text(HEAD + "data:\n  a: \"x\u2029y\"\n"),
            "unsigned/bad.yaml:4: contains the character U+2029 (PARAGRAPH SEPARATOR), a line"
                + " break to YAML 1.1 parsers (Kubernetes' go-yaml among them) that diffs and"
                + " Kubernetes' document splitter do not show as one"),
        Arguments.of(
            "control character",
            text(HEAD + "data:\n  a: x\u0007\n"),
            "unsigned/bad.yaml:4: contains a character YAML does not allow (U+0007)"),
        Arguments.of(
            "no kind",
            text("apiVersion: v1\nmetadata:\n  name: a\n"),
            "unsigned/bad.yaml:1: document 1 has no \"kind\""),
        Arguments.of(
            "no apiVersion",
            text("kind: ConfigMap\nmetadata:\n  name: a\n"),
            "unsigned/bad.yaml:1: document 1 has no \"apiVersion\""),
        Arguments.of(
            "kind is a number",
            text("apiVersion: v1\nkind: 12\n"),
            "unsigned/bad.yaml:2: \"kind\" of document 1 must be a non-empty string, not the"
                + " integer 12"),
        Arguments.of(
            "second document without kind",
            text(HEAD + "---\napiVersion: v1\nmetadata: {}\n"),
            "unsigned/bad.yaml:4: document 2 has no \"kind\""),
        Arguments.of(
            "metadata.name is a boolean",
            text(HEAD + "metadata:\n  name: yes\n"),
            "unsigned/bad.yaml:4: metadata.name of document 1 must be a string, not the boolean"
                + " true; YAML 1.1 reads yes/no/on/off/y/n as booleans"),
        Arguments.of(
            "metadata.annotations is a list",
            text(HEAD + "metadata:\n  name: a\n  annotations: [1]\n"),
            "unsigned/bad.yaml:5: metadata.annotations of document 1 must be a mapping, not a"
                + " list"),
        Arguments.of(
            "metadata.annotations is a block list",
            text(HEAD + "metadata:\n  name: a\n  annotations:\n  - a: b\n"),
            "unsigned/bad.yaml:5: metadata.annotations of document 1 must be a mapping, not a"
                + " list"),
        Arguments.of(
            "metadata.annotations is a string",
            text(HEAD + "metadata:\n  name: a\n  annotations: \"s\"\n"),
            "unsigned/bad.yaml:5: metadata.annotations of document 1 must be a mapping, not a"
                + " string"),
        Arguments.of(
            "metadata.annotations is an empty string",
            text(HEAD + "metadata:\n  name: a\n  annotations: ''\n"),
            "unsigned/bad.yaml:5: metadata.annotations of document 1 must be a mapping, not an"
                + " empty string"),
        Arguments.of(
            "metadata.labels is a list",
            text(HEAD + "metadata:\n  name: a\n  labels: [app]\n"),
            "unsigned/bad.yaml:5: metadata.labels of document 1 must be a mapping, not a list"),
        Arguments.of(
            "metadata.labels is a number",
            text(HEAD + "metadata:\n  name: a\n  labels: 3\n"),
            "unsigned/bad.yaml:5: metadata.labels of document 1 must be a mapping, not the integer"
                + " 3"),
        Arguments.of(
            "an annotation value is a number",
            text(HEAD + "metadata:\n  name: a\n  annotations:\n    example.com/replicas: 3\n"),
            "unsigned/bad.yaml:6: annotation \"example.com/replicas\" of document 1 must be a"
                + " string, not the integer 3"),
        Arguments.of(
            "an annotation value is a list",
            text(HEAD + "metadata:\n  name: a\n  annotations:\n    a: b\n    c: [1]\n"),
            "unsigned/bad.yaml:7: annotation \"c\" of document 1 must be a string, not a list"),
        Arguments.of(
            "a signature annotation value is a number",
            text(
                HEAD
                    + "metadata:\n  name: a\n  annotations:\n"
                    + "    cosign.sigstore.dev/message: H4sI\n"
                    + "    cosign.sigstore.dev/signature: 12\n"),
            "unsigned/bad.yaml:7: annotation \"cosign.sigstore.dev/signature\" of document 1 must"
                + " be a string, not the integer 12"),
        Arguments.of(
            "a label value is a YAML 1.1 boolean",
            text(HEAD + "metadata:\n  name: a\n  labels:\n    enabled: yes\n"),
            "unsigned/bad.yaml:6: label \"enabled\" of document 1 must be a string, not the"
                + " boolean true; YAML 1.1 reads yes/no/on/off/y/n as booleans"),
        Arguments.of(
            "annotations not a mapping in the second document",
            text(
                HEAD
                    + "metadata:\n  name: a\n---\n"
                    + HEAD
                    + "metadata:\n  name: b\n"
                    + "  annotations: [1]\n"),
            "unsigned/bad.yaml:10: metadata.annotations of document 2 must be a mapping, not a"
                + " list"),
        Arguments.of(
            "null key",
            text(HEAD + "data:\n  ~: x\n"),
            "unsigned/bad.yaml:4: uses null as a mapping key, which Kubernetes' YAML reader"
                + " (sigs.k8s.io/yaml) refuses"),
        Arguments.of(
            "uint64 key",
            text(HEAD + "data:\n  9223372036854775808: x\n"),
            "unsigned/bad.yaml:4: uses the integer 9223372036854775808 as a mapping key, which"
                + " Kubernetes' YAML reader (sigs.k8s.io/yaml) refuses"),
        Arguments.of(
            // sigs.k8s.io/yaml makes both "1"; which value it keeps depends on Go's map order.
            "float key that Kubernetes reads as another key",
            text(HEAD + "data:\n  \"1\": a\n  1.0: b\n"),
            "unsigned/bad.yaml:5: duplicate key \"1\" in data (first defined at line 4)"),
        Arguments.of(
            "list document",
            text("- apiVersion: v1\n  kind: ConfigMap\n"),
            "unsigned/bad.yaml:1: document 1 is a list, not a Kubernetes object (a mapping)"),
        Arguments.of(
            "scalar document",
            text(HEAD + "---\njust text\n"),
            "unsigned/bad.yaml:4: document 2 is a scalar, not a Kubernetes object (a mapping)"),
        Arguments.of(
            "binary tag",
            text(HEAD + "data:\n  a: !!binary aGVsbG8=\n"),
            "unsigned/bad.yaml:4: uses the tag tag:yaml.org,2002:binary, which Kubernetes manifests"
                + " do not support"),
        Arguments.of(
            "custom tag",
            text(HEAD + "data: !vault {path: x}\n"),
            "unsigned/bad.yaml:3: uses the tag !vault, which Kubernetes manifests do not support"),
        Arguments.of(
            "bad tagged int",
            text(HEAD + "replicas: !!int three\n"),
            "unsigned/bad.yaml:3: \"three\" is tagged tag:yaml.org,2002:int but is not a integer"),
        Arguments.of("empty file", text(""), "unsigned/bad.yaml: contains no Kubernetes object"),
        Arguments.of(
            "comments only",
            text("# nothing here\n\n# still nothing\n"),
            "unsigned/bad.yaml: contains no Kubernetes object"),
        Arguments.of(
            "empty documents only",
            text("---\n---\n...\n"),
            "unsigned/bad.yaml: contains no Kubernetes object"),
        Arguments.of(
            "symlink",
            (Setup)
                dir -> {
                  Path target = Files.writeString(dir.resolve("real.yaml"), HEAD);
                  return Files.createSymbolicLink(dir.resolve("bad.yaml"), target);
                },
            "unsigned/bad.yaml: is a symbolic link, which countersign does not follow"),
        Arguments.of(
            "directory",
            (Setup) dir -> Files.createDirectory(dir.resolve("bad.yaml")),
            "unsigned/bad.yaml: is not a regular file"),
        Arguments.of(
            "missing file",
            (Setup) dir -> dir.resolve("bad.yaml"),
            "unsigned/bad.yaml: does not exist"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badFiles")
  void read_badFile_isInputProblemNamingFileAndLine(String name, Setup setup, String expected)
      throws IOException {
    Path file = setup.create(dir);
    ManifestReader reader = new ManifestReader();

    assertThatThrownBy(() -> reader.read(file, SHOWN_AS))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem -> {
              assertThat(problem.getMessage()).isEqualTo(expected);
              assertThat(problem.exitCode()).isEqualTo(ExitCode.INVALID_INPUT);
              assertThat(problem.file()).isEqualTo(SHOWN_AS);
              assertThat(problem.hint())
                  .hasValueSatisfying(hint -> assertThat(hint).startsWith("perhaps you should"));
            });
  }

  // ---- decoding signature annotations -------------------------------------------------------

  private static final String MESSAGE = HEAD + "metadata:\n  name: sample-cm\n";
  private static final String GOOD_MESSAGE = base64(gzip(MESSAGE.getBytes(StandardCharsets.UTF_8)));
  private static final String GOOD_SIGNATURE =
      "MEYCIQDE1VjyWuCulKugUo3PYxAZu9h3LnPXkKOkAAAiJMgzGwIhAMrVlCkvtwWT1czBgd5Bh/JiKC+25OWxE5LOG+PjTHX+";
  private static final String GARBAGE_GZIP =
      base64(new byte[] {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff, 1, 2, 3, 4, 5, 6});
  private static final String TRUNCATED_GZIP;
  private static final String TRAILING_BYTE_GZIP;

  static {
    byte[] gz = gzip(MESSAGE.getBytes(StandardCharsets.UTF_8));
    TRUNCATED_GZIP = base64(Arrays.copyOf(gz, gz.length - 12));
    TRAILING_BYTE_GZIP = base64(Arrays.copyOf(gz, gz.length + 1));
  }

  /** The annotation with a zero byte after its gzip stream. */
  private static String trailingByte(String annotation) {
    byte[] gz = Base64.getDecoder().decode(annotation);
    return base64(Arrays.copyOf(gz, gz.length + 1));
  }

  static Map<String, String> set0(String... extra) {
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put("cosign.sigstore.dev/message", GOOD_MESSAGE);
    annotations.put("cosign.sigstore.dev/signature", GOOD_SIGNATURE);
    for (int i = 0; i < extra.length; i += 2) {
      if (extra[i + 1] == null) {
        annotations.remove("cosign.sigstore.dev/" + extra[i]);
      } else {
        annotations.put("cosign.sigstore.dev/" + extra[i], extra[i + 1]);
      }
    }
    return annotations;
  }

  static Stream<Arguments> badMessages() {
    return Stream.of(
        Arguments.of(
            "truncated base64 message",
            set0("message", GOOD_MESSAGE.substring(0, GOOD_MESSAGE.length() - 3)),
            "annotation cosign.sigstore.dev/message is not valid base64"),
        Arguments.of(
            "non-base64 characters in message",
            set0("message", "H4sI*@!!"),
            "annotation cosign.sigstore.dev/message is not valid base64"),
        Arguments.of(
            "garbage gzip message",
            set0("message", GARBAGE_GZIP),
            "annotation cosign.sigstore.dev/message is not valid gzip (invalid stored block"
                + " lengths)"),
        Arguments.of(
            "truncated gzip message",
            set0("message", TRUNCATED_GZIP),
            "annotation cosign.sigstore.dev/message is truncated gzip"),
        Arguments.of(
            "gzip message with a byte after it, which Go's reader refuses",
            set0("message", TRAILING_BYTE_GZIP),
            "annotation cosign.sigstore.dev/message is not valid gzip (1 byte(s) after member 1 do"
                + " not start another member; Kyverno's gzip reader refuses them)"),
        Arguments.of(
            "message that is not YAML",
            set0("message", base64(gzip("a: [b\n".getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/message does not hold a usable manifest:"
                + " cosign.sigstore.dev/message:2: is not valid YAML: expected ',' or ']', but got"
                + " <stream end>"),
        Arguments.of(
            "message without kind",
            set0("message", base64(gzip("apiVersion: v1\n".getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/message does not hold a usable manifest:"
                + " cosign.sigstore.dev/message:1: document 1 has no \"kind\""),
        Arguments.of(
            "message whose annotations are a list",
            set0(
                "message",
                base64(gzip((MESSAGE + "  annotations: [1]\n").getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/message does not hold a usable manifest:"
                + " cosign.sigstore.dev/message:5: metadata.annotations of document 1 must be a"
                + " mapping, not a list"),
        Arguments.of(
            "gzip bomb message",
            set0("message", base64(gzip(new byte[5 * 1024 * 1024]))),
            "annotation cosign.sigstore.dev/message decompresses to more than 1048576 bytes"),
        Arguments.of(
            "legacy tarball that is not tar",
            set0(
                "message",
                base64(
                    gzip(gzip("not a tar archive".repeat(40).getBytes(StandardCharsets.UTF_8))))),
            "annotation cosign.sigstore.dev/message holds a broken legacy tarball: not a tar"
                + " archive (bad header at offset 0)"),
        Arguments.of(
            "signature gap after set 0",
            set0("signature_2", GOOD_SIGNATURE),
            "signature sets must be contiguous: found signature_2 but no signature_1 (annotation"
                + " domain cosign.sigstore.dev)"),
        Arguments.of(
            "signature_1 without signature",
            set0("signature", null, "signature_1", GOOD_SIGNATURE),
            "signature sets must be contiguous: found signature_1 but no signature (annotation"
                + " domain cosign.sigstore.dev)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badMessages")
  void decode_undecodableMessageOrGap_isIllegalArgumentNamingTheAnnotation(
      String name, Map<String, String> annotations, String expected) {
    SignedManifestFormat format =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());

    assertThatThrownBy(() -> format.decode(SignedManifestFormatTest.withAnnotations(annotations)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(expected);
  }

  static Stream<Arguments> badSets() {
    String goodCertificate = keyless("certificate");
    String goodBundle = keyless("bundle");
    return Stream.of(
        Arguments.of(
            "garbage base64 signature",
            set0("signature", "not base64!"),
            "annotation cosign.sigstore.dev/signature is not valid base64"),
        Arguments.of(
            "empty signature",
            set0("signature", ""),
            "annotation cosign.sigstore.dev/signature is empty"),
        Arguments.of(
            "truncated base64 certificate",
            set0("certificate", goodCertificate.substring(1)),
            "annotation cosign.sigstore.dev/certificate is not valid base64"),
        Arguments.of(
            "garbage gzip certificate",
            set0("certificate", GARBAGE_GZIP),
            "annotation cosign.sigstore.dev/certificate is not valid gzip (invalid stored block"
                + " lengths)"),
        Arguments.of(
            "certificate that is not PEM",
            set0("certificate", base64(gzip("hello".getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/certificate does not hold a PEM certificate"),
        Arguments.of(
            "certificate with a byte after its gzip, which Go's reader refuses",
            set0("certificate", trailingByte(goodCertificate)),
            "annotation cosign.sigstore.dev/certificate is not valid gzip (1 byte(s) after member"
                + " 1 do not start another member; Kyverno's gzip reader refuses them)"),
        Arguments.of(
            "truncated gzip bundle",
            set0("certificate", goodCertificate, "bundle", TRUNCATED_GZIP),
            "annotation cosign.sigstore.dev/bundle is truncated gzip"),
        Arguments.of(
            "bundle that is not JSON",
            set0("bundle", base64(gzip("{not json".getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/bundle does not hold a Rekor bundle: bundle is not"
                + " JSON: Unexpected character ('n' (code 110)): was expecting double-quote to"
                + " start field name"),
        Arguments.of(
            "bundle without logIndex",
            set0(
                "bundle",
                base64(
                    gzip(
                        "{\"SignedEntryTimestamp\":\"AA==\",\"Payload\":{\"body\":\"e30=\",\"integratedTime\":1,\"logID\":\"ab\"}}"
                            .getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/bundle does not hold a Rekor bundle: bundle field"
                + " \"logIndex\" is missing or not an integer"),
        Arguments.of(
            "bundle without Payload",
            set0("bundle", base64(gzip("{}".getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/bundle does not hold a Rekor bundle: bundle has no"
                + " \"Payload\" object"),
        Arguments.of(
            "certificates that together decompress past the document's allowance",
            set0(
                "certificate",
                certificateBomb(),
                "signature_1",
                GOOD_SIGNATURE,
                "certificate_1",
                certificateBomb()),
            "annotation cosign.sigstore.dev/certificate_1 is refused: the certificate and bundle"
                + " annotations of the document decompress to more than 1048576 bytes together"),
        Arguments.of(
            "bundle with more JSON after its object",
            set0(
                "certificate",
                goodCertificate,
                "bundle",
                base64(gzip((gunzip(goodBundle) + " {}").getBytes(StandardCharsets.UTF_8)))),
            "annotation cosign.sigstore.dev/bundle does not hold a Rekor bundle: bundle has more"
                + " JSON after its object"),
        Arguments.of(
            "second set broken, first fine",
            set0(
                "certificate",
                goodCertificate,
                "bundle",
                goodBundle,
                "signature_1",
                GOOD_SIGNATURE,
                "bundle_1",
                "%%%"),
            "annotation cosign.sigstore.dev/bundle_1 is not valid base64"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badSets")
  void decode_undecodableSet_isReportedOnThatSetWithoutThrowing(
      String name, Map<String, String> annotations, String expected) {
    SignedManifestFormat format =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());

    SignedContent content =
        format.decode(SignedManifestFormatTest.withAnnotations(annotations)).orElseThrow();

    assertThat(content.messageDocuments())
        .singleElement()
        .extracting(ManifestDocument::name)
        .isEqualTo("sample-cm");
    SignatureSetAnnotations last = content.signatureSets().get(content.signatureSets().size() - 1);
    assertThat(last.problem()).hasValue(expected);
    content
        .signatureSets()
        .subList(0, content.signatureSets().size() - 1)
        .forEach(set -> assertThat(set.problem()).isEmpty());
  }

  /** A ~1 KB annotation that gunzips to a 600 KB "certificate" (many small ones: gigabytes). */
  private static String certificateBomb() {
    return base64(
        gzip(
            ("-----BEGIN CERTIFICATE-----\n" + "A".repeat(600_000))
                .getBytes(StandardCharsets.US_ASCII)));
  }

  private static String gunzip(String annotation) {
    try (java.util.zip.GZIPInputStream in =
        new java.util.zip.GZIPInputStream(
            new java.io.ByteArrayInputStream(Base64.getDecoder().decode(annotation)))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String keyless(String base) {
    return Fixtures.parse("sample-configmap-keyless-multi-signed.yaml")
        .documents()
        .get(0)
        .annotations()
        .get("cosign.sigstore.dev/" + base);
  }

  /** Levels of anchors, each a list of {@code width} aliases to the previous level. */
  private static String aliasBomb(int width, int levels) {
    StringBuilder yaml = new StringBuilder("l0: &l0 [x]\n");
    for (int level = 1; level <= levels; level++) {
      yaml.append("l").append(level).append(": &l").append(level).append(" [");
      for (int i = 0; i < width; i++) {
        yaml.append(i == 0 ? "" : ", ").append("*l").append(level - 1);
      }
      yaml.append("]\n");
    }
    return yaml.toString();
  }

  private static byte[] concat(String before, byte[] middle, String after) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(before.getBytes(StandardCharsets.UTF_8));
    out.writeBytes(middle);
    out.writeBytes(after.getBytes(StandardCharsets.UTF_8));
    return out.toByteArray();
  }

  private static byte[] gzip(byte[] data) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  private static String base64(byte[] data) {
    return Base64.getEncoder().encodeToString(data);
  }
}
