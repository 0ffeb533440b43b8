package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed bytes an author puts next to an unsigned manifest are kept only when countersign verifies
 * them for this run's own identity and content; end to end through the Action entry, with a bare
 * origin, keyless signing against the loopback Sigstore stack, and strict verification of what
 * lands on main.
 */
@RequiresSigstoreStack
class SignatureReuseAttackTest {

  private static final String OTHER_WORKFLOW =
      "octo-org/other-repo/.github/workflows/sign.yml@refs/heads/main";
  private static final Pattern SIGNATURE =
      Pattern.compile("(cosign\\.sigstore\\.dev/signature: )(\\S+)");
  private static final Pattern BUNDLE = Pattern.compile("(cosign\\.sigstore\\.dev/bundle: )(\\S+)");

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;

  SignatureReuseAttackTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "hello\n"), Set.of(), "initial");
  }

  @Test
  void authorAddsSignedFileWithTheRightMessageButAGarbageSignature_itIsSignedAgain()
      throws Exception {
    String content = ActionPipelineTest.networkPolicy("payments-egress");
    String garbage = withGarbageSignature(signed(content, Map.of()));
    git.commitToOrigin(
        "main",
        Map.of("unsigned/egress.yaml", content, "signed/egress.yaml", garbage),
        Set.of(),
        "pr");

    CliRun run = runAction();

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files).doesNotContainKey("unsigned/egress.yaml");
    assertThat(files.get("signed/egress.yaml")).isNotEqualTo(garbage);
    assertEverySignedFileVerifiesForTheTrustedIdentityOnly(files);
  }

  @Test
  void authorAddsSignedFileValidlySignedByAnotherRepositorysIdentity_itIsSignedAgain()
      throws Exception {
    String content = ActionPipelineTest.configMap("flags", "on");
    String foreign =
        signed(
            content,
            Map.of("job_workflow_ref", OTHER_WORKFLOW, "repository", "octo-org/other-repo"));
    assertThat(foreign).contains("cosign.sigstore.dev/certificate");
    git.commitToOrigin(
        "main",
        Map.of("unsigned/flags.yaml", content, "signed/flags.yaml", foreign),
        Set.of(),
        "pr");

    CliRun run = runAction();

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isNotEqualTo(foreign);
    assertThat(git.originCommit("main").getFullMessage())
        .contains("unsigned/flags.yaml -> signed/flags.yaml\n")
        .doesNotContain("signature unchanged");
    assertEverySignedFileVerifiesForTheTrustedIdentityOnly(files);
  }

  @Test
  void authorAddsSignedFileForOtherContent_itIsSignedAgainForTheReviewedContent() throws Exception {
    String reviewed = ActionPipelineTest.configMap("flags", "on");
    String other = signed(ActionPipelineTest.configMap("flags", "off"), Map.of());
    git.commitToOrigin(
        "main",
        Map.of("unsigned/flags.yaml", reviewed, "signed/flags.yaml", other),
        Set.of(),
        "pr");

    CliRun run = runAction();

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml"))
        .contains("value: \"on\"")
        .doesNotContain("value: \"off\"");
    assertEverySignedFileVerifiesForTheTrustedIdentityOnly(files);
  }

  @Test
  void control_aSignatureByThisWorkflowOverExactlyThisContent_isKeptAsItIs() throws Exception {
    String content = ActionPipelineTest.configMap("flags", "on");
    String ours = signed(content, Map.of());
    git.commitToOrigin(
        "main", Map.of("unsigned/flags.yaml", content, "signed/flags.yaml", ours), Set.of(), "pr");
    stack.resetStats();

    CliRun run = runAction();

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isEqualTo(ours);
    assertThat(files).doesNotContainKey("unsigned/flags.yaml");
    assertThat(git.originCommit("main").getFullMessage())
        .contains("unsigned/flags.yaml -> signed/flags.yaml (signature unchanged)");
    // Deciding reuse needed the identity (one token) and no log entry. The certificate is asked
    // for in the background while the manifests are read, before reuse is decided, so there may
    // be one; it signs nothing (the run waits for it, so the counters are final here).
    assertThat(stack.stats().logEntries()).isZero();
    assertThat(stack.stats().certificates()).isLessThanOrEqualTo(1);
    assertThat(stack.stats().tokens()).isEqualTo(1);
    assertEverySignedFileVerifiesForTheTrustedIdentityOnly(files);
  }

  @Test
  void keyedRunWithTlogUpload_keepsOurKeysSignatureWhoseLogEntryVerifies() throws Exception {
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String logged = signedWithKey(key, content, true);
    git.commitToOrigin(
        "main",
        Map.of("unsigned/flags.yaml", content, "signed/flags.yaml", logged),
        Set.of(),
        "pr");
    stack.resetStats();

    CliRun run = runKeyedAction(key);

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isEqualTo(logged);
    assertThat(git.originCommit("main").getFullMessage())
        .contains("unsigned/flags.yaml -> signed/flags.yaml (signature unchanged)");
    assertThat(stack.stats().logEntries()).isZero();
    assertEverySignedFileHasAVerifyingLogEntry(files, key);
  }

  @Test
  void keyedRunWithTlogUpload_ourKeysSignatureWithoutALogEntry_isSignedAgainWithOne()
      throws Exception {
    // Signed with the run's own key before the repository turned tlog_upload on (or on a branch
    // that never did): the signature is genuine, but the run asks for every signature logged.
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String unlogged = signedWithKey(key, content, false);
    assertThat(unlogged).doesNotContain("cosign.sigstore.dev/bundle:");
    git.commitToOrigin(
        "main",
        Map.of("unsigned/flags.yaml", content, "signed/flags.yaml", unlogged),
        Set.of(),
        "pr");
    stack.resetStats();

    CliRun run = runKeyedAction(key);

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isNotEqualTo(unlogged);
    assertThat(git.originCommit("main").getFullMessage()).doesNotContain("signature unchanged");
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertEverySignedFileHasAVerifyingLogEntry(files, key);
  }

  @Test
  void keyedRunWithTlogUpload_ourKeysSignatureWithAnotherSignaturesLogEntry_isSignedAgain()
      throws Exception {
    // A genuine log entry, for another of our signatures: the bundle is well formed and its SET
    // verifies, but the entry does not log this signature over this content.
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String otherBundle =
        bundleOf(signedWithKey(key, ActionPipelineTest.configMap("flags", "off"), true));
    Matcher bundle = BUNDLE.matcher(signedWithKey(key, content, true));
    assertThat(bundle.find()).isTrue();
    String forged = bundle.replaceAll("$1" + Matcher.quoteReplacement(otherBundle));
    git.commitToOrigin(
        "main",
        Map.of("unsigned/flags.yaml", content, "signed/flags.yaml", forged),
        Set.of(),
        "pr");
    stack.resetStats();

    CliRun run = runKeyedAction(key);

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isNotEqualTo(forged);
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertEverySignedFileHasAVerifyingLogEntry(files, key);
  }

  // --- helpers -------------------------------------------------------------------------------

  /**
   * Every file under signed/ verifies with {@code key}'s public half and carries a log entry that
   * verifies against the stack's trusted root (verify checks a keyed set's bundle when it has one).
   */
  private void assertEverySignedFileHasAVerifyingLogEntry(SortedMap<String, String> files, Path key)
      throws IOException {
    Path dir = tmp.resolve("verify-" + System.nanoTime());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
      if (f.getKey().startsWith("signed/")) {
        assertThat(f.getValue()).as(f.getKey()).contains("cosign.sigstore.dev/bundle:");
      }
    }
    CliRun logged =
        CliRun.run(
            Map.of(),
            "verify",
            "--key",
            publicKeyOf(key).toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            dir.resolve("signed").toString());
    assertThat(logged.exitCode()).as(logged.all()).isZero();
  }

  /** A new key pair without a password in tmp; returns the private key file. */
  private Path keyPair() throws IOException {
    Path key = tmp.resolve("cosign.key");
    KeyPairFiles.generate(key, publicKeyOf(key), new char[0], new SecureRandom());
    return key;
  }

  private static Path publicKeyOf(Path key) {
    return key.resolveSibling("cosign.pub");
  }

  /** {@code content} signed by {@code sign --key}, logged in the stack's Rekor or not. */
  private String signedWithKey(Path key, String content, boolean logged) throws IOException {
    Path file = tmp.resolve("author/" + System.nanoTime() + "/x.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    List<String> args = new ArrayList<>(List.of("sign", "--key", key.toString()));
    if (logged) {
      args.addAll(
          List.of(
              "--tlog-upload",
              "--rekor-url",
              stack.baseUrl(),
              "--trusted-root",
              stack.trustedRoot().toString()));
    }
    args.add(file.toString());
    CliRun sign = CliRun.run(Map.of("COSIGN_PASSWORD", ""), args.toArray(String[]::new));
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }

  private static String bundleOf(String signedFile) {
    Matcher m = BUNDLE.matcher(signedFile);
    assertThat(m.find()).isTrue();
    return m.group(2);
  }

  /** The Action signing with {@code key} and {@code tlog_upload} to the stack's Rekor. */
  private CliRun runKeyedAction(Path key) throws Exception {
    Path ws = git.clone("ws-" + System.nanoTime(), 1, true);
    Map<String, String> env =
        new HashMap<>(
            ActionTestEnv.of(
                stack,
                tmp,
                ws,
                "pull_request",
                ActionTestEnv.mergedPullRequestEvent(),
                "ghs_reuseAttackTestToken0123456789",
                "output"));
    env.remove("INPUT_SIGNING_CONFIG");
    env.put("INPUT_KEY", key.toString());
    env.put("INPUT_TLOG_UPLOAD", "true");
    env.put("INPUT_REKOR_URL", stack.baseUrl());
    env.put("COSIGN_PASSWORD", "");
    return CliRun.run(env, "action");
  }

  private void assertEverySignedFileVerifiesForTheTrustedIdentityOnly(
      SortedMap<String, String> files) throws IOException {
    Path dir = tmp.resolve("verify-" + System.nanoTime());
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    CliRun trusted = verify(dir.resolve("signed"), stack.identitySan());
    assertThat(trusted.exitCode()).as(trusted.all()).isZero();
    assertThat(verify(dir.resolve("signed"), "https://github.com/" + OTHER_WORKFLOW).exitCode())
        .isEqualTo(ExitCode.REJECTED.code());
  }

  private CliRun verify(Path dir, String san) {
    return CliRun.run(
        Map.of(),
        "verify",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--certificate-identity",
        san,
        "--certificate-oidc-issuer",
        stack.identityIssuer(),
        dir.toString());
  }

  /**
   * {@code content} signed keylessly by the sign command, as the stack's workflow or with other
   * claims.
   */
  private String signed(String content, Map<String, String> claims) throws IOException {
    Path file = tmp.resolve("author/" + System.nanoTime() + "/x.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    List<String> args =
        new ArrayList<>(
            List.of(
                "sign",
                "--trusted-root",
                stack.trustedRoot().toString(),
                "--signing-config",
                stack.signingConfig().toString()));
    if (!claims.isEmpty()) {
      args.add("--identity-token");
      args.add(stack.tokenFor(claims));
    }
    args.add(file.toString());
    CliRun sign = CliRun.run(new HashMap<>(stack.githubEnv()), args.toArray(String[]::new));
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }

  /**
   * The same file with every signature annotation replaced by well-formed base64 that is no
   * signature.
   */
  private static String withGarbageSignature(String signedFile) {
    String garbage =
        Base64.getEncoder()
            .encodeToString(
                ("not a signature, but the message annotation is right")
                    .getBytes(StandardCharsets.US_ASCII));
    Matcher m = SIGNATURE.matcher(signedFile);
    assertThat(m.find()).isTrue();
    return m.replaceAll("$1" + Matcher.quoteReplacement(garbage));
  }

  private CliRun runAction() throws Exception {
    Path ws = git.clone("ws-" + System.nanoTime(), 1, true);
    Map<String, String> env =
        ActionTestEnv.of(
            stack,
            tmp,
            ws,
            "pull_request",
            ActionTestEnv.mergedPullRequestEvent(),
            "ghs_reuseAttackTestToken0123456789",
            "output");
    return CliRun.run(env, "action");
  }
}
