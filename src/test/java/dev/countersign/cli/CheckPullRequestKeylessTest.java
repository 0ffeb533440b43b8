package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.git.GitFixture;
import dev.countersign.signing.KeylessOptions;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SigstoreKeylessSigner;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate's "not older" rule with real transparency-log times: keylessly signed manifests on main
 * (loopback Sigstore stack), a pull request that puts back an older, validly signed version,
 * checked out shallow so that the history search cannot see the older version: the log time alone
 * rejects it.
 */
@RequiresSigstoreStack
class CheckPullRequestKeylessTest {

  private final SigstoreTestStack stack;
  private final List<SigstoreKeylessSigner> signers = new ArrayList<>();
  @TempDir Path tmp;
  private PullRequestGate gate;
  private GitFixture git;
  private GateRepository seed;

  CheckPullRequestKeylessTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    stack.clearFaults();
    seed =
        GateRepository.createKeyless(
            tmp.resolve("seed"),
            tmp.resolve("scratch"),
            signer(),
            stack.identitySan(),
            stack.identityIssuer());
    gate = new PullRequestGate(tmp, seed);
    git = gate.git();
  }

  @AfterEach
  void closeSigners() {
    signers.forEach(SigstoreKeylessSigner::close);
  }

  @Test
  void rollbackToAnOlderKeylessSignature_failsOnItsLogTime_evenWithoutHistory() throws Exception {
    String v1 = seed.read("signed/app/config.yaml");
    // Log times have one-second resolution: let the next signature be logged a second later.
    Thread.sleep(1_100);
    seed.sign(
        "app/config.yaml", GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: hi"));
    git.commitToOrigin(
        "main",
        Map.of("signed/app/config.yaml", seed.read("signed/app/config.yaml")),
        Set.of(),
        "v2");
    String base = git.originHead("main");
    git.branchOnOrigin("rollback", "main");
    git.commitToOrigin("rollback", Map.of("signed/app/config.yaml", v1), Set.of(), "put v1 back");
    Path ws = git.cloneBranch("ws", "rollback", 1);

    CliRun run = check(ws, base);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("is older than the version it replaces")
        .doesNotContain("replays an earlier signed version");
  }

  @Test
  void rollbackWithAMadeUpNewerSignatureSetAppended_stillFailsOnItsLogTime() throws Exception {
    String v1 = seed.read("signed/app/config.yaml");
    Thread.sleep(1_100);
    seed.sign(
        "app/config.yaml", GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: hi"));
    git.commitToOrigin(
        "main",
        Map.of("signed/app/config.yaml", seed.read("signed/app/config.yaml")),
        Set.of(),
        "v2");
    String base = git.originHead("main");
    // The old, valid set 0 stays (so the file still verifies); set 1 claims a log time in 2100.
    String bundle =
        new dev.countersign.manifest.RekorBundle("AAAA", "e30=", 4_102_444_800L, 1, "00".repeat(32))
            .toJson();
    String forged =
        v1.replaceAll(
            "(?m)^(\\s*)(cosign\\.sigstore\\.dev/signature: \\S+)$",
            "$1$2\n$1cosign.sigstore.dev/signature_1: "
                + java.util.Base64.getEncoder()
                    .encodeToString("forged".getBytes(StandardCharsets.US_ASCII))
                + "\n$1cosign.sigstore.dev/bundle_1: "
                + java.util.Base64.getEncoder().encodeToString(gzip(bundle)));
    assertThat(forged).contains("signature_1").contains("bundle_1");
    git.branchOnOrigin("rollback", "main");
    git.commitToOrigin(
        "rollback", Map.of("signed/app/config.yaml", forged), Set.of(), "put v1 back, dressed up");

    CliRun run = check(git.cloneBranch("ws", "rollback", 1), base);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/app/config.yaml,")
        .contains("is older than the version it replaces");
  }

  private static byte[] gzip(String text) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream out = new java.util.zip.GZIPOutputStream(bytes)) {
      out.write(text.getBytes(StandardCharsets.UTF_8));
    }
    return bytes.toByteArray();
  }

  @Test
  void control_aNewerKeylessSignatureOfChangedContent_passes() throws Exception {
    String base = git.originHead("main");
    Thread.sleep(1_100);
    seed.sign(
        "app/config.yaml",
        GateRepository.CONFIG_MAP.replace("greeting: hello", "greeting: refreshed"));
    git.branchOnOrigin("refresh", "main");
    git.commitToOrigin(
        "refresh",
        Map.of("signed/app/config.yaml", seed.read("signed/app/config.yaml")),
        Set.of(),
        "refresh");
    Path ws = git.cloneBranch("ws", "refresh", 1);

    CliRun run = check(ws, base);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  private CliRun check(Path ws, String baseSha) throws IOException {
    gate.baseSha(baseSha);
    return gate.check(ws, Map.of("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString()));
  }

  private Supplier<MessageSigner> signer() {
    return () -> {
      SigstoreKeylessSigner signer =
          new SigstoreKeylessSigner(
              KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig())
                  .withIdentityToken(stack.tokenFor(Map.of())),
              Env.empty(),
              Clock.systemUTC(),
              token -> {});
      signers.add(signer);
      return signer;
    };
  }
}
