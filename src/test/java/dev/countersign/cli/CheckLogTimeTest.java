package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The not-older rule with keyed signatures recorded in a transparency log (sign --key
 * --tlog-upload, against the loopback Rekor): a bundle's integratedTime counts only when the
 * trusted root proves it, so a pull request cannot make an old signature look new by editing the
 * number. Each attack has its benign control.
 */
@RequiresSigstoreStack
class CheckLogTimeTest {

  private static final Pattern BUNDLE = Pattern.compile("cosign\\.sigstore\\.dev/bundle: (\\S+)");
  private static final Pattern TIME = Pattern.compile("\"integratedTime\":(\\d+)");

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private PullRequestGate gate;
  private Map<String, String> trustedRoot;

  CheckLogTimeTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
    trustedRoot = Map.of("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString());
  }

  @Test
  void anOlderSignatureWhoseBundleTimeIsEditedToLookNewer_fails() throws Exception {
    // v1 is signed (and logged) first but never committed; v2 is signed later and lands on main.
    String v1 = logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: one"));
    Thread.sleep(1100);
    String v2 = logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: two"));
    onMain(v2);
    String forged = withIntegratedTime(v1, integratedTime(v2) + 1);

    CliRun run = gate.check(pullRequestOf(forged), trustedRoot);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("carries no transparency-log time the trusted root proves");
  }

  @Test
  void aBundleTimeBeyondAnyInstant_isRejectedAsUnreadable_notACrash() throws Exception {
    // A number no clock holds (the SET cannot cover it either): the check names the file and
    // rejects it, instead of stopping with an internal error.
    onMain(logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: two")));
    Thread.sleep(1100);
    String v3 = logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: three"));
    String forged = withIntegratedTime(v3, Long.MAX_VALUE);

    CliRun run = gate.check(pullRequestOf(forged), trustedRoot);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("integratedTime");
  }

  @Test
  void control_anOlderSignatureAsLogged_failsAsOlder() throws Exception {
    String v1 = logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: one"));
    Thread.sleep(1100);
    onMain(logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: two")));

    CliRun run = gate.check(pullRequestOf(v1), trustedRoot);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("is older than the version it replaces");
  }

  @Test
  void control_aNewerLoggedSignature_passes() throws Exception {
    onMain(logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: two")));
    Thread.sleep(1100);
    String v3 = logged(GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: three"));

    CliRun run = gate.check(pullRequestOf(v3), trustedRoot);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  /** {@code content} signed with the trusted key and recorded in the loopback Rekor. */
  private String logged(String content) throws IOException {
    Path file = tmp.resolve("signing/" + System.nanoTime() + "/config.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", "correct horse"),
            "sign",
            "--key",
            gate.signingKey().toString(),
            "--tlog-upload",
            "--rekor-url",
            stack.baseUrl(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            file.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }

  private void onMain(String signed) throws Exception {
    gate.git().commitToOrigin("main", Map.of("signed/app/config.yaml", signed), Set.of(), "sign");
    gate.baseIsMain();
  }

  private Path pullRequestOf(String signed) throws Exception {
    return gate.pullRequest(Map.of("signed/app/config.yaml", signed), Set.of(), 0);
  }

  private static long integratedTime(String signed) throws IOException {
    Matcher time = TIME.matcher(bundleJson(signed));
    assertThat(time.find()).isTrue();
    return Long.parseLong(time.group(1));
  }

  /** {@code signed} with its bundle's integratedTime changed to {@code time}. */
  private static String withIntegratedTime(String signed, long time) throws IOException {
    String json = TIME.matcher(bundleJson(signed)).replaceAll("\"integratedTime\":" + time);
    ByteArrayOutputStream gzipped = new ByteArrayOutputStream();
    try (GZIPOutputStream out = new GZIPOutputStream(gzipped)) {
      out.write(json.getBytes(StandardCharsets.UTF_8));
    }
    Matcher bundle = BUNDLE.matcher(signed);
    assertThat(bundle.find()).isTrue();
    return signed.replace(
        bundle.group(1), Base64.getEncoder().encodeToString(gzipped.toByteArray()));
  }

  private static String bundleJson(String signed) throws IOException {
    Matcher bundle = BUNDLE.matcher(signed);
    assertThat(bundle.find()).as("a bundle annotation").isTrue();
    try (GZIPInputStream in =
        new GZIPInputStream(
            new ByteArrayInputStream(Base64.getDecoder().decode(bundle.group(1))))) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
