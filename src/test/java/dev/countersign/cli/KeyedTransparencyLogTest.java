package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RekorProxy;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sign --key --tlog-upload}: keyed signatures recorded in Rekor, and checked against it. */
@RequiresSigstoreStack
class KeyedTransparencyLogTest {

  private final SigstoreTestStack stack;
  @TempDir Path tmp;

  KeyedTransparencyLogTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @Test
  void keyedSignature_withTlogUpload_carriesABundle_whoseEntryVerifiesAgainstTheTrustedRoot()
      throws Exception {
    Path key = tmp.resolve("k.key");
    Path pub = tmp.resolve("k.pub");
    KeyPairFiles.generate(key, pub, new char[0], new SecureRandom());
    Path file =
        Files.writeString(tmp.resolve("cm.yaml"), ActionPipelineTest.configMap("logged", "1"));
    stack.resetStats();

    CliRun sign = signWithLog(key, stack.baseUrl(), file);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("rekor#");
    String signed = Files.readString(file);
    assertThat(signed)
        .contains("cosign.sigstore.dev/bundle:")
        .doesNotContain("cosign.sigstore.dev/certificate:");
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isZero();

    CliRun withLog =
        CliRun.run(
            Map.of(),
            "verify",
            "--key",
            pub.toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            file.toString());
    assertThat(withLog.exitCode()).as(withLog.all()).isZero();

    // Another log's trusted root: the entry's log is unknown, so the set is rejected.
    Path other =
        Files.writeString(
            tmp.resolve("other_root.json"),
            new dev.countersign.verification.FakeSigstore().trustedRootJson());
    CliRun unknownLog =
        CliRun.run(
            Map.of(),
            "verify",
            "--key",
            pub.toString(),
            "--trusted-root",
            other.toString(),
            file.toString());
    assertThat(unknownLog.exitCode()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(unknownLog.out()).contains("is not a transparency log in the trusted root");

    // Without a trusted root the key alone decides (the air-gapped check Kyverno does for keys).
    CliRun keyOnly = CliRun.run(Map.of(), "verify", "--key", pub.toString(), file.toString());
    assertThat(keyOnly.exitCode()).as(keyOnly.all()).isZero();
  }

  @Test
  void keyedSignature_whenTheLogRecordsItUnderAnotherKey_isNotWritten() throws Exception {
    Path key = tmp.resolve("k.key");
    KeyPairFiles.generate(key, tmp.resolve("k.pub"), new char[0], new SecureRandom());
    Path otherPub = tmp.resolve("other.pub");
    KeyPairFiles.generate(tmp.resolve("other.key"), otherPub, new char[0], new SecureRandom());
    String otherKey = Base64.getEncoder().encodeToString(Files.readAllBytes(otherPub));
    // Between us and the log: the entry is logged with the other public key (a genuine entry,
    // SET and proofs), so the log says someone else made our signature.
    UnaryOperator<byte[]> anotherKey =
        request ->
            new String(request, StandardCharsets.UTF_8)
                .replaceFirst("(\"publicKey\":\\{\"content\":\")[^\"]+", "$1" + otherKey)
                .getBytes(StandardCharsets.UTF_8);
    String unsigned = ActionPipelineTest.configMap("logged", "1");
    Path file = Files.writeString(tmp.resolve("cm.yaml"), unsigned);

    try (RekorProxy proxy = new RekorProxy(stack, anotherKey, (n, forward) -> forward.call())) {
      CliRun sign = signWithLog(key, proxy.base(), file);

      assertThat(proxy.posts()).isEqualTo(1);
      assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.REMOTE.code());
      assertThat(sign.err())
          .contains("Rekor's entry does not carry the uploaded signature while signing with a key")
          .contains("--rekor-url");
    }
    assertThat(Files.readString(file)).isEqualTo(unsigned);
  }

  @Test
  void aLogOfYourOwn_withoutTheTrustedRootNamingItsKey_isAUsageErrorBeforeAnythingIsLogged()
      throws Exception {
    // The public-good root names no private log, so every entry this log wrote would be refused
    // after the fact: the run is refused before it signs or uploads anything.
    Path key = tmp.resolve("k.key");
    KeyPairFiles.generate(key, tmp.resolve("k.pub"), new char[0], new SecureRandom());
    String unsigned = ActionPipelineTest.configMap("logged", "1");
    Path file = Files.writeString(tmp.resolve("cm.yaml"), unsigned);
    stack.resetStats();

    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", ""),
            "sign",
            "--key",
            key.toString(),
            "--tlog-upload",
            "--rekor-url",
            stack.baseUrl(),
            file.toString());

    assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(sign.err()).contains("--rekor-url " + stack.baseUrl()).contains("--trusted-root");
    assertThat(stack.stats().logEntries()).isZero();
    assertThat(stack.stats().raw().path("requests").toString()).doesNotContain("rekor");
    assertThat(Files.readString(file)).isEqualTo(unsigned);
  }

  @Test
  void trustedRoot_withKeyButNoLog_isAUsageError() throws Exception {
    Path key = tmp.resolve("k.key");
    KeyPairFiles.generate(key, tmp.resolve("k.pub"), new char[0], new SecureRandom());

    CliRun run =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", ""),
            "sign",
            "--key",
            key.toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            tmp.toString());

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--trusted-root goes with --key only with --tlog-upload");
  }

  @Test
  void tlogUpload_withoutKey_isAUsageError() {
    CliRun run = CliRun.run(Map.of(), "sign", "--tlog-upload", tmp.toString());
    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--tlog-upload and --rekor-url go with --key");
  }

  /** {@code sign --key key --tlog-upload} of {@code file} to the log at {@code rekorUrl}. */
  private CliRun signWithLog(Path key, String rekorUrl, Path file) {
    return CliRun.run(
        Map.of("COSIGN_PASSWORD", ""),
        "sign",
        "--key",
        key.toString(),
        "--tlog-upload",
        "--rekor-url",
        rekorUrl,
        "--trusted-root",
        stack.trustedRoot().toString(),
        file.toString());
  }
}
