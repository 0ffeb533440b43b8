package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.support.ExitCode;
import dev.countersign.verification.FakeSigstore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.bouncycastle.asn1.x509.GeneralName;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The catalogue of bad inputs, through the CLI as a user meets them: each gives a message naming
 * the file (and line where there is one), an exit code of the right kind, and writes nothing.
 *
 * <p>Signing cases put the bad file beside a valid one: all or nothing means the valid one is not
 * written either. Verification cases forge keyless sets whose SET really verifies against a test
 * trusted root, so exactly one thing is wrong in each.
 */
class BadInputCliTest {

  private static final AnnotationDomain D = AnnotationDomain.DEFAULT;
  private static final String VALID =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fine\ndata:\n  a: b\n";
  private static final FakeSigstore SIGSTORE = new FakeSigstore();

  /** A document's first four lines, up to its name: what comes next is metadata's line 5. */
  private static final String NAMED = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n";

  @TempDir Path tmp;
  private Path key;

  @BeforeEach
  void key() {
    key = tmp.resolve("k.key");
    KeyPairFiles.generate(key, tmp.resolve("k.pub"), new char[0], new SecureRandom());
  }

  /** Writes the bad input under {@code dir} and returns its path. */
  interface Setup {
    Path write(Path dir) throws Exception;
  }

  static Stream<Arguments> signingRejections() {
    return Stream.of(
        sign(
            "malformed YAML",
            text("bad.yaml", "apiVersion: v1\nkind: [ConfigMap\n"),
            "bad.yaml:",
            "is not valid YAML"),
        sign(
            "duplicate top-level key",
            text("dup.yaml", VALID + "kind: Secret\n"),
            "dup.yaml:7:",
            "duplicate key \"kind\""),
        sign(
            "duplicate nested key",
            text("dup2.yaml", VALID + "  a: c\n"),
            "dup2.yaml:7:",
            "duplicate key \"a\""),
        sign("YAML alias bomb", text("bomb.yaml", aliasBomb()), "bomb.yaml", "alias"),
        sign(
            "20 MB file",
            dir -> {
              Path f = dir.resolve("huge.yaml");
              Files.write(
                  f,
                  (VALID + "  big: \"" + "x".repeat(20 * 1024 * 1024) + "\"\n")
                      .getBytes(StandardCharsets.UTF_8));
              return f;
            },
            "huge.yaml",
            "larger than"),
        sign(
            "non-UTF-8 bytes",
            bytes(
                "latin1.yaml", (VALID + "  c: caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1)),
            "latin1.yaml:7:",
            "UTF-8"),
        sign(
            "UTF-8 byte order mark",
            bytes("bom.yaml", concat(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF}, VALID)),
            "bom.yaml:1:",
            "byte order mark"),
        sign(
            "CRLF line endings",
            text("crlf.yaml", VALID.replace("\n", "\r\n")),
            "crlf.yaml:1:",
            "CRLF"),
        sign(
            "document without kind",
            text("nokind.yaml", "apiVersion: v1\nmetadata:\n  name: x\n"),
            "nokind.yaml:1:",
            "kind"),
        sign(
            "document without apiVersion",
            text("noapi.yaml", "kind: ConfigMap\nmetadata:\n  name: x\n"),
            "noapi.yaml:1:",
            "apiVersion"),
        sign("empty file", text("empty.yaml", ""), "empty.yaml", "no Kubernetes object"),
        sign(
            "comments only",
            text("comments.yaml", "# nothing here\n---\n# still nothing\n"),
            "comments.yaml",
            "no Kubernetes object"),
        sign(
            "a list instead of an object",
            text("list.yaml", "- a\n- b\n"),
            "list.yaml:1:",
            "mapping"),
        sign("a bare scalar", text("scalar.yaml", "hello\n"), "scalar.yaml:1:", "mapping"),
        sign(
            "symlink",
            dir -> {
              Path target = Files.writeString(dir.getParent().resolve("elsewhere.yaml"), VALID);
              return Files.createSymbolicLink(dir.resolve("link.yaml"), target);
            },
            "link.yaml",
            "symbolic link"),
        sign(
            "metadata.annotations is a list",
            text("annotations.yaml", NAMED + "  annotations: [1]\n"),
            "annotations.yaml:5:",
            "metadata.annotations of document 1 must be a mapping, not a list"),
        sign(
            "metadata.annotations is a string",
            text("annotations.yaml", NAMED + "  annotations: \"s\"\n"),
            "annotations.yaml:5:",
            "metadata.annotations of document 1 must be a mapping, not a string"),
        sign(
            "metadata.labels is a list",
            text("labels.yaml", NAMED + "  labels: [app]\n"),
            "labels.yaml:5:",
            "metadata.labels of document 1 must be a mapping, not a list"),
        sign(
            "an annotation value is a number",
            text("value.yaml", NAMED + "  annotations:\n    replicas: 3\n"),
            "value.yaml:6:",
            "annotation \"replicas\" of document 1 must be a string, not the integer 3"),
        sign(
            "binary tag",
            text("binary.yaml", VALID + "  blob: !!binary aGVsbG8=\n"),
            "binary.yaml:7:",
            "binary"));
  }

  @ParameterizedTest(name = "sign: {0}")
  @MethodSource("signingRejections")
  void sign_badInput_namesTheFile_exitsInvalidInput_andWritesNothing(
      String name, Setup setup, String fileAndLine, String what) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a-valid.yaml"), VALID);
    setup.write(in);
    Path out = tmp.resolve("out");

    CliRun run = signWithKey("--out", out.toString(), in.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.err())
        .contains("error: ")
        .contains(fileAndLine)
        .contains(what)
        .contains("hint: ");
    assertThat(out).doesNotExist();
  }

  static Stream<Arguments> verificationRejections() {
    FakeSigstore.Spec twoSans = new FakeSigstore.Spec();
    twoSans.sans =
        new GeneralName[] {
          new GeneralName(GeneralName.uniformResourceIdentifier, FakeSigstore.SUBJECT),
          new GeneralName(GeneralName.rfc822Name, "mallory@example.com")
        };
    FakeSigstore.Spec selfSigned = new FakeSigstore.Spec();
    selfSigned.selfSigned = true;
    FakeSigstore.Spec unknownLog = new FakeSigstore.Spec();
    unknownLog.logKey = FakeSigstore.ec();
    return Stream.of(
        verify(
            "truncated base64 in message",
            replace(D.message(), v -> v.substring(0, v.length() - 3)),
            "not valid base64"),
        verify(
            "garbage gzip in message",
            replace(
                D.message(),
                v -> b64("\u001f\u008b\u0008garbage".getBytes(StandardCharsets.ISO_8859_1))),
            "gzip"),
        verify(
            "garbage base64 in signature",
            replace(D.signature(0), v -> "not-base64%%"),
            "signature"),
        verify(
            "truncated base64 in certificate",
            replace(D.certificate(0), v -> v.substring(0, v.length() - 5)),
            "certificate"),
        verify(
            "garbage gzip in certificate",
            replace(
                D.certificate(0),
                v -> b64("\u001f\u008b\u0008xx".getBytes(StandardCharsets.ISO_8859_1))),
            "certificate"),
        verify(
            "garbage gzip in bundle",
            replace(
                D.bundle(0),
                v -> b64("\u001f\u008b\u0008yy".getBytes(StandardCharsets.ISO_8859_1))),
            "bundle"),
        verify(
            "truncated base64 in bundle",
            replace(D.bundle(0), v -> v.substring(0, v.length() - 2)),
            "bundle"),
        verify(
            "bundle JSON without Payload",
            replace(D.bundle(0), v -> FakeSigstoreB64.gz("{\"SignedEntryTimestamp\":\"eA==\"}")),
            "Payload"),
        verify(
            "bundle integratedTime beyond any instant a clock can hold",
            replace(
                D.bundle(0),
                v ->
                    FakeSigstoreB64.gz(
                        FakeSigstoreB64.gunzip(v)
                            .replaceAll(
                                "\"integratedTime\":\\d+",
                                "\"integratedTime\":" + Long.MAX_VALUE))),
            "integratedTime"),
        verify(
            "signature set gap: signature and signature_2",
            a -> {
              a.put(D.signature(2), a.get(D.signature(0)));
            },
            "contiguous"),
        verify(
            "certificate with two SANs",
            SIGSTORE.keyless(twoSans),
            "it has 2 subject alternative names"),
        verify(
            "self-signed certificate with an otherwise valid SET",
            SIGSTORE.keyless(selfSigned),
            "does not chain"),
        verify(
            "bundle whose logID is unknown",
            SIGSTORE.keyless(unknownLog),
            "is not a transparency log in the trusted root"));
  }

  @ParameterizedTest(name = "verify: {0}")
  @MethodSource("verificationRejections")
  void verify_forgedOrBrokenSignature_namesTheFile_andExitsRejected(
      String name, Map<String, String> annotations, String why) throws Exception {
    Path trustedRoot =
        Files.writeString(tmp.resolve("trusted_root.json"), SIGSTORE.trustedRootJson());
    Path file =
        Files.writeString(
            tmp.resolve("signed-" + name.replaceAll("[^a-z0-9]+", "-") + ".yaml"),
            FakeSigstore.liveYaml(annotations));

    CliRun run =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            trustedRoot.toString(),
            "--certificate-identity",
            FakeSigstore.SUBJECT,
            "--certificate-oidc-issuer",
            FakeSigstore.ISSUER,
            file.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("FAIL " + file).contains(why).contains("0 verified, 1 rejected");
  }

  @org.junit.jupiter.api.Test
  void verify_wellFormedForgeryControl_passes() throws Exception {
    // The positive control for the table above: the same construction without a defect verifies.
    Path trustedRoot =
        Files.writeString(tmp.resolve("trusted_root.json"), SIGSTORE.trustedRootJson());
    Path file =
        Files.writeString(
            tmp.resolve("ok.yaml"),
            FakeSigstore.liveYaml(SIGSTORE.keyless(new FakeSigstore.Spec())));

    CliRun run =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            trustedRoot.toString(),
            "--certificate-identity",
            FakeSigstore.SUBJECT,
            "--certificate-oidc-issuer",
            FakeSigstore.ISSUER,
            file.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
  }

  @org.junit.jupiter.api.Test
  void verify_documentsEachCarryingAnotherLargeMessage_areRefusedPastOneDocumentsWorth()
      throws Exception {
    // Each document's message is a ~1.4 KB annotation that gunzips to almost the 1 MiB limit.
    // Decoded one after the other, a 1 MiB file of them made verify parse gigabytes of YAML; the
    // file as a whole may now decode no more than one document could (2 x 1 MiB + 1 MiB).
    Path bombs =
        Files.writeString(
            tmp.resolve("bombs.yaml"), documentsEachCarryingAnotherLargeMessage(6, D.signature(0)));

    CliRun run =
        CliRun.run(Map.of(), "verify", "--key", tmp.resolve("k.pub").toString(), bombs.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("FAIL " + bombs + ":25 ConfigMap/x3: the signature annotations cannot be decoded")
        .contains("decompress to more than 3145728 bytes together")
        .contains("0 verified, 6 rejected");
  }

  @org.junit.jupiter.api.Test
  void verify_largeSignedFileOfSeveralDocuments_control_passes() throws Exception {
    // Almost the largest message, carried by every document of a genuinely signed file: decoded
    // once, not four times (which would exceed the file's allowance).
    Path in = Files.createDirectories(tmp.resolve("large"));
    Path large = Files.writeString(in.resolve("large.yaml"), largeFileOfFourDocuments());
    CliRun sign = signWithKey(large.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();

    CliRun run =
        CliRun.run(Map.of(), "verify", "--key", tmp.resolve("k.pub").toString(), large.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("4 verified, 0 rejected");
  }

  @org.junit.jupiter.api.Test
  void sign_documentsEachCarryingAnotherBrokenLargeMessage_costNoMoreThanOneDocumentsWorth()
      throws Exception {
    // Pre-set annotations that gunzip to almost 1 MiB each and then fail (signature_1 without
    // signature): signing looked at every document for an earlier signature, and a 1 MB file of
    // 600 took over a minute. The file's documents now share one allowance, so 24 such documents
    // cost what 4 do. Measured in bytes allocated while signing, not in time.
    signWithKey(Files.writeString(tmp.resolve("warm-up.yaml"), VALID).toString());
    long few = allocatedSigning(4);
    long many = allocatedSigning(24);

    assertThat(many).as("bytes allocated for 24 documents, 4 took %d", few).isLessThan(2 * few);
  }

  @org.junit.jupiter.api.Test
  void sign_largeSignedFileOfSeveralDocuments_control_isUnchanged() throws Exception {
    // Every document carries the same message of almost 1 MiB: decoded once for the file, it is
    // recognised as already signed (four decodings would exceed the file's allowance).
    Path large = Files.writeString(tmp.resolve("large.yaml"), largeFileOfFourDocuments());
    assertThat(signWithKey(large.toString()).exitCode()).isZero();
    byte[] signed = Files.readAllBytes(large);

    CliRun again = signWithKey(large.toString());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("0 signed, 1 unchanged");
    assertThat(Files.readAllBytes(large)).isEqualTo(signed);
  }

  /** Four ConfigMaps of 245 KB each: signed, every document carries almost 1 MiB of message. */
  private static String largeFileOfFourDocuments() {
    StringBuilder file = new StringBuilder();
    for (int i = 0; i < 4; i++) {
      file.append(i == 0 ? "" : "---\n")
          .append(NAMED.replace("name: x", "name: x" + i))
          .append("data:\n  k: ")
          .append("x".repeat(245_000))
          .append("\n");
    }
    return file.toString();
  }

  /** Bytes this thread allocates signing a file of {@code documents} broken large messages. */
  private long allocatedSigning(int documents) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve("bombs-" + documents));
    Path bombs =
        Files.writeString(
            dir.resolve("bombs.yaml"),
            documentsEachCarryingAnotherLargeMessage(documents, D.signature(1)));
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    CliRun run = signWithKey(bombs.toString());
    long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("1 signed");
    return allocated;
  }

  /**
   * A file of {@code count} small ConfigMaps, each carrying a different message annotation that
   * gunzips to almost the 1 MiB limit, and {@code signatureKey}.
   */
  private static String documentsEachCarryingAnotherLargeMessage(int count, String signatureKey) {
    StringBuilder file = new StringBuilder();
    for (int i = 0; i < count; i++) {
      String message =
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x"
              + i
              + "\ndata:\n  k: "
              + "x".repeat(1_000_000)
              + "\n";
      file.append(i == 0 ? "" : "---\n")
          .append(NAMED.replace("name: x", "name: x" + i))
          .append("  annotations:\n    ")
          .append(D.message())
          .append(": ")
          .append(FakeSigstoreB64.gz(message))
          .append("\n    ")
          .append(signatureKey)
          .append(": MEUCIQ==\n");
    }
    return file.toString();
  }

  @ParameterizedTest(name = "verify {0}")
  @MethodSource("halfOrBrokenIdentities")
  void verify_halfOrBrokenIdentity_isAUsageError_neverAnySigner(
      String given, List<String> options, String message) throws Exception {
    Path file = tmp.resolve("signed.yaml");
    Files.writeString(file, VALID);
    List<String> args = new ArrayList<>(List.of("verify"));
    args.addAll(options);
    args.add(file.toString());

    CliRun run = CliRun.run(Map.of(), args.toArray(String[]::new));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains(message);
    assertThat(run.out()).doesNotContain("PASS");
  }

  static Stream<Arguments> halfOrBrokenIdentities() {
    String issuer = "https://token.actions.githubusercontent.com";
    String san = "https://github.com/o/r/.github/workflows/sign.yml@refs/heads/main";
    return Stream.of(
        Arguments.of(
            "with an issuer only",
            List.of("--certificate-oidc-issuer", issuer),
            "A keyless identity needs both a subject and an issuer"),
        Arguments.of(
            "with an identity regexp only",
            List.of("--certificate-identity-regexp", ".*"),
            "A keyless identity needs both a subject and an issuer"),
        Arguments.of(
            "with an identity regexp that does not compile",
            List.of("--certificate-identity-regexp", "[", "--certificate-oidc-issuer", issuer),
            "Invalid --certificate-identity-regexp \"[\""),
        Arguments.of(
            "with an issuer regexp that does not compile",
            List.of("--certificate-identity", san, "--certificate-oidc-issuer-regexp", "(a"),
            "Invalid --certificate-oidc-issuer-regexp \"(a\""));
  }

  @org.junit.jupiter.api.Test
  void sign_outputExistsAndDiffers_isAUsageErrorAndWritesNothing() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.yaml"), VALID);
    Files.writeString(in.resolve("b.yaml"), VALID.replace("fine", "other"));
    Path out = Files.createDirectories(tmp.resolve("out"));
    String handWritten = VALID.replace("fine", "hand-written");
    Files.writeString(out.resolve("b.yaml"), handWritten);

    CliRun run = signWithKey("--out", out.toString(), in.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("Refusing to overwrite " + out.resolve("b.yaml"))
        .contains("--force");
    assertThat(out.resolve("a.yaml")).doesNotExist();
    assertThat(Files.readString(out.resolve("b.yaml"))).isEqualTo(handWritten);
  }

  /** The keyless control is KeylessCliTest's, which finds the sidecar beside the signed file. */
  @org.junit.jupiter.api.Test
  void sign_bundleSidecarWithKey_isAUsageErrorAndWritesNothing() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.yaml"), VALID);
    Path out = tmp.resolve("out");

    CliRun run = signWithKey("--bundle-sidecar", "--out", out.toString(), in.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--bundle-sidecar").contains("--key");
    assertThat(out).doesNotExist();
  }

  @ParameterizedTest(name = "--parallel {0}")
  @CsvSource({
    "0, lets no signature be made",
    "-1, lets no signature be made",
    "1025, at most 1024",
    "2147483647, at most 1024"
  })
  void sign_parallelBelowOneOrAboveTheMaximum_isAUsageErrorNamingTheOption_andWritesNothing(
      String parallel, String why) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.yaml"), VALID);
    Path out = tmp.resolve("out");

    CliRun run = signWithKey("--parallel", parallel, "--out", out.toString(), in.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--parallel " + parallel).contains(why);
    assertThat(out).doesNotExist();
  }

  @ParameterizedTest(name = "--parallel {0}")
  @CsvSource({"1", "1024"})
  void sign_parallelFromOneToTheMaximum_signsEveryFile(String parallel) throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("a.yaml"), VALID);
    Files.writeString(in.resolve("b.yaml"), VALID.replace("fine", "other"));
    Path out = tmp.resolve("out");

    CliRun run = signWithKey("--parallel", parallel, "--out", out.toString(), in.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("2 signed, 0 unchanged");
    assertThat(out.resolve("a.yaml")).exists();
    assertThat(out.resolve("b.yaml")).exists();
  }

  @ParameterizedTest(name = "run: {0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "annotations: [1]     | 5 | metadata.annotations of document 1 must be a mapping, not a"
            + " list",
        "annotations: \"s\"    | 5 | metadata.annotations of document 1 must be a mapping, not a"
            + " string",
        "labels: [app]        | 5 | metadata.labels of document 1 must be a mapping, not a list",
        "annotations: {a: 1}  | 5 | annotation \"a\" of document 1 must be a string, not the"
            + " integer 1",
      })
  void run_annotationsOrLabelsNotAMappingOfStrings_exits6NamingTheLine_andChangesNothing(
      String field, int line, String what) throws Exception {
    GitFixture git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main",
        Map.of("unsigned/a-valid.yaml", VALID, "unsigned/odd.yaml", NAMED + "  " + field + "\n"),
        Set.of(),
        "add manifests");
    String before = git.originHead("main");
    Path ws = git.clone("ws", 0, false);

    CliRun run =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", ""), "run", "--repo", ws.toString(), "--key", key.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.err())
        .contains("error: unsigned/odd.yaml:" + line + ": " + what)
        .doesNotContain("this is a bug in countersign");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(ws.resolve("unsigned/odd.yaml")).exists();
    assertThat(ws.resolve("unsigned/a-valid.yaml")).exists();
    assertThat(ws.resolve("signed")).doesNotExist();
  }

  /** {@code countersign sign --key K ARGS...}, with the key's empty password. */
  private CliRun signWithKey(String... args) {
    List<String> command = new ArrayList<>(List.of("sign", "--key", key.toString()));
    command.addAll(List.of(args));
    return CliRun.run(Map.of("COSIGN_PASSWORD", ""), command.toArray(String[]::new));
  }

  // --- case builders ---

  private static Arguments sign(String name, Setup setup, String fileAndLine, String what) {
    return Arguments.of(name, setup, fileAndLine, what);
  }

  private static Arguments verify(String name, Map<String, String> annotations, String why) {
    return Arguments.of(name, annotations, why);
  }

  private static Arguments verify(
      String name, java.util.function.Consumer<Map<String, String>> edit, String why) {
    Map<String, String> annotations =
        new LinkedHashMap<>(SIGSTORE.keyless(new FakeSigstore.Spec()));
    edit.accept(annotations);
    return Arguments.of(name, annotations, why);
  }

  private static java.util.function.Consumer<Map<String, String>> replace(
      String key, java.util.function.UnaryOperator<String> f) {
    return a -> a.put(key, f.apply(a.get(key)));
  }

  private static Setup text(String file, String content) {
    return dir -> Files.writeString(dir.resolve(file), content);
  }

  private static Setup bytes(String file, byte[] content) {
    return dir -> Files.write(dir.resolve(file), content);
  }

  private static byte[] concat(byte[] prefix, String rest) {
    byte[] tail = rest.getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[prefix.length + tail.length];
    System.arraycopy(prefix, 0, all, 0, prefix.length);
    System.arraycopy(tail, 0, all, prefix.length, tail.length);
    return all;
  }

  private static String b64(byte[] bytes) {
    return Base64.getEncoder().encodeToString(bytes);
  }

  private static String aliasBomb() {
    StringBuilder y =
        new StringBuilder("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n");
    y.append("  a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for (int i = 1; i < 12; i++) {
      y.append("  a").append(i).append(": &a").append(i).append(" [");
      for (int j = 0; j < 10; j++) {
        y.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
      }
      y.append("]\n");
    }
    return y.toString();
  }

  /** gzip+base64 of a string, as an annotation value. */
  private static final class FakeSigstoreB64 {
    static String gz(String json) {
      try {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        try (java.util.zip.GZIPOutputStream gz = new java.util.zip.GZIPOutputStream(bytes)) {
          gz.write(json.getBytes(StandardCharsets.UTF_8));
        }
        return b64(bytes.toByteArray());
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    static String gunzip(String annotation) {
      try (java.util.zip.GZIPInputStream in =
          new java.util.zip.GZIPInputStream(
              new java.io.ByteArrayInputStream(Base64.getDecoder().decode(annotation)))) {
        return new String(in.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }
}
