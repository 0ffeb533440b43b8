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
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Signed bytes an author puts next to an unsigned manifest are kept only when countersign verifies
 * them for this run's own identity and content; end to end through the Action entry, with a bare
 * origin, keyless signing against the loopback Sigstore stack, and strict verification of what
 * lands on main. The {@code sign} command keeps an existing output by the same rule (a workflow of
 * one's own: {@code countersign sign unsigned/ --out signed/}, then commit).
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
    mergedPullRequestWith("egress.yaml", content, garbage);

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
    mergedPullRequestWith("flags.yaml", content, foreign);

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
    mergedPullRequestWith("flags.yaml", reviewed, other);

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
    mergedPullRequestWith("flags.yaml", content, ours);

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
    mergedPullRequestWith("flags.yaml", content, logged);

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
    mergedPullRequestWith("flags.yaml", content, unlogged);

    assertKeyedRunSignsAgainWithALogEntry(key, unlogged);
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
    mergedPullRequestWith("flags.yaml", content, forged);

    assertKeyedRunSignsAgainWithALogEntry(key, forged);
  }

  // --- the sign command: an existing output is kept by the same rule as run's -----------------

  @Test
  void signCommand_outputWithTheRightMessageButAGarbageSignature_isSignedAgain() throws Exception {
    String content = ActionPipelineTest.configMap("flags", "on");
    String garbage = withGarbageSignature(signed(content, Map.of()));
    Path repo = repositoryWith(content, garbage);

    assertSignCommandSignsAgainKeylessly(repo, garbage);
  }

  @Test
  void signCommand_outputValidlySignedByAnotherRepositorysIdentity_isSignedAgain()
      throws Exception {
    String content = ActionPipelineTest.configMap("flags", "on");
    String foreign =
        signed(
            content,
            Map.of("job_workflow_ref", OTHER_WORKFLOW, "repository", "octo-org/other-repo"));
    Path repo = repositoryWith(content, foreign);

    assertSignCommandSignsAgainKeylessly(repo, foreign);
  }

  @Test
  void signCommand_control_ourOwnSignatureOverExactlyThisContent_isUnchanged() throws Exception {
    String content = ActionPipelineTest.configMap("flags", "on");
    String ours = signed(content, Map.of());
    Path repo = repositoryWith(content, ours);
    stack.resetStats();

    CliRun sign = signKeylessly(repo);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("0 signed, 1 unchanged");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml"))).isEqualTo(ours);
    // Knowing who this run signs as takes the identity token; nothing is certified or logged.
    assertThat(stack.stats().tokens()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void signCommandWithKey_outputValidlySignedByAnotherKey_isSignedAgain() throws Exception {
    Path key = keyPair();
    Path otherKey = keyPair("other");
    String content = ActionPipelineTest.configMap("flags", "on");
    String foreign = signedWithKey(otherKey, content, false);
    Path repo = repositoryWith(content, foreign);

    CliRun sign = signWithKey(repo, key, false);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed, 0 unchanged");
    assertThat(verifyWithKey(repo.resolve("signed"), key).exitCode()).isZero();
    assertThat(verifyWithKey(repo.resolve("signed"), otherKey).exitCode())
        .isEqualTo(ExitCode.REJECTED.code());
  }

  @Test
  void signCommandWithKey_outputWithTheRightMessageButAGarbageSignature_isSignedAgain()
      throws Exception {
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String garbage = withGarbageSignature(signedWithKey(key, content, false));
    Path repo = repositoryWith(content, garbage);

    CliRun sign = signWithKey(repo, key, false);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed, 0 unchanged");
    assertThat(verifyWithKey(repo.resolve("signed"), key).exitCode()).isZero();
  }

  @Test
  void signCommandWithKey_inPlace_aFileSignedByAnotherKey_isSignedAgain() throws Exception {
    Path key = keyPair();
    Path otherKey = keyPair("other");
    String foreign = signedWithKey(otherKey, ActionPipelineTest.configMap("flags", "on"), false);
    Path repo = repositoryWith(ActionPipelineTest.configMap("unused", "x"), foreign);

    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", ""),
            "sign",
            "--key",
            key.toString(),
            repo.resolve("signed").toString());

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed, 0 unchanged");
    assertThat(verifyWithKey(repo.resolve("signed"), key).exitCode()).isZero();
  }

  @Test
  void signCommandWithKey_control_ourKeysSignatureOverExactlyThisContent_isUnchanged()
      throws Exception {
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String ours = signedWithKey(key, content, false);
    Path repo = repositoryWith(content, ours);

    // No --trusted-root: a key without a log is checked with the key alone, no root is fetched.
    CliRun sign = signWithKey(repo, key, false);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("0 signed, 1 unchanged");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml"))).isEqualTo(ours);
  }

  @Test
  void signCommandWithTlogUpload_ourKeysSignatureWithoutALogEntry_isSignedAgainWithOne()
      throws Exception {
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String unlogged = signedWithKey(key, content, false);
    Path repo = repositoryWith(content, unlogged);
    stack.resetStats();

    CliRun sign = signWithKey(repo, key, true);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed, 0 unchanged");
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertEverySignedFileHasAVerifyingLogEntry(filesUnder(repo), key);
  }

  @Test
  void signCommandWithTlogUpload_control_ourKeysLoggedSignature_isUnchanged() throws Exception {
    Path key = keyPair();
    String content = ActionPipelineTest.configMap("flags", "on");
    String logged = signedWithKey(key, content, true);
    Path repo = repositoryWith(content, logged);
    stack.resetStats();

    CliRun sign = signWithKey(repo, key, true);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("0 signed, 1 unchanged");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml"))).isEqualTo(logged);
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void signCommandWithAppend_addsOurSetBesideAnotherKeysSet_withoutJudgingIt() throws Exception {
    // --append is how a second signer co-signs: the sets already there are another signer's,
    // which this one has no rule to judge, so they are kept as they are and ours is added.
    Path key = keyPair();
    Path otherKey = keyPair("other");
    String theirs = signedWithKey(otherKey, ActionPipelineTest.configMap("flags", "on"), false);
    Path repo = repositoryWith(ActionPipelineTest.configMap("unused", "x"), theirs);

    List<String> args = keyedSign(key, false);
    args.addAll(List.of("--append", repo.resolve("signed").toString()));
    CliRun append = CliRun.run(Map.of("COSIGN_PASSWORD", ""), args.toArray(String[]::new));

    assertThat(append.exitCode()).as(append.all()).isZero();
    assertThat(append.out()).contains("1 signed, 0 unchanged");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml")))
        .contains("cosign.sigstore.dev/signature_1:");
    assertThat(verifyWithKey(repo.resolve("signed"), key).exitCode()).isZero();
    assertThat(verifyWithKey(repo.resolve("signed"), otherKey).exitCode()).isZero();
  }

  @Test
  void signCommandWithAppend_ontoAFileEditedAfterItWasSigned_isRefusedAndLeftAsItIs()
      throws Exception {
    // Its message still names the input's content, but its body no longer is that content: adding
    // our set would put a valid signature of ours on a file whose objects we did not sign.
    Path key = keyPair();
    Path otherKey = keyPair("other");
    String content = ActionPipelineTest.configMap("flags", "on");
    String theirs = signedWithKey(otherKey, content, false);
    String edited = theirs.replaceFirst("(?m)^(\\s*value:).*$", "$1 \"off\"");
    assertThat(edited).isNotEqualTo(theirs);
    Path repo = repositoryWith(content, edited);

    List<String> args = keyedSign(key, false);
    args.addAll(
        List.of(
            "--append",
            "--out",
            repo.resolve("signed").toString(),
            repo.resolve("unsigned").toString()));
    CliRun append = CliRun.run(Map.of("COSIGN_PASSWORD", ""), args.toArray(String[]::new));

    assertThat(append.exitCode()).as(append.all()).isEqualTo(2);
    assertThat(append.err()).contains("flags.yaml", "its content changed since it was signed");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml"))).isEqualTo(edited);
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
    return keyPair("cosign");
  }

  /** A new key pair without a password in tmp/{@code name}; returns the private key file. */
  private Path keyPair(String name) throws IOException {
    Path key = Files.createDirectories(tmp.resolve("keys/" + name)).resolve("cosign.key");
    KeyPairFiles.generate(key, publicKeyOf(key), new char[0], new SecureRandom());
    return key;
  }

  private static Path publicKeyOf(Path key) {
    return key.resolveSibling("cosign.pub");
  }

  /** A directory holding unsigned/flags.yaml and signed/flags.yaml, as a workflow checks out. */
  private Path repositoryWith(String unsigned, String signed) throws IOException {
    Path repo = tmp.resolve("repo-" + System.nanoTime());
    Files.createDirectories(repo.resolve("unsigned"));
    Files.createDirectories(repo.resolve("signed"));
    Files.writeString(repo.resolve("unsigned/flags.yaml"), unsigned);
    Files.writeString(repo.resolve("signed/flags.yaml"), signed);
    return repo;
  }

  /** Every file under {@code repo} by its path there. */
  private static SortedMap<String, String> filesUnder(Path repo) throws IOException {
    SortedMap<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(repo)) {
      for (Path p : walk.filter(Files::isRegularFile).toList()) {
        files.put(repo.relativize(p).toString(), Files.readString(p));
      }
    }
    return files;
  }

  /**
   * {@code sign unsigned/ --out signed/} in {@code repo} signs {@code signed/flags.yaml} again,
   * replacing {@code planted}, and every signed file then verifies for this workflow's identity.
   */
  private void assertSignCommandSignsAgainKeylessly(Path repo, String planted) throws IOException {
    CliRun sign = signKeylessly(repo);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed, 0 unchanged");
    assertThat(Files.readString(repo.resolve("signed/flags.yaml"))).isNotEqualTo(planted);
    assertEverySignedFileVerifiesForTheTrustedIdentityOnly(filesUnder(repo));
  }

  /** {@code sign unsigned/ --out signed/} in {@code repo}, keylessly as the stack's workflow. */
  private CliRun signKeylessly(Path repo) {
    return CliRun.run(
        new HashMap<>(stack.githubEnv()),
        "sign",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--signing-config",
        stack.signingConfig().toString(),
        "--out",
        repo.resolve("signed").toString(),
        repo.resolve("unsigned").toString());
  }

  /** {@code sign unsigned/ --out signed/} in {@code repo} with {@code key}, logged or not. */
  private CliRun signWithKey(Path repo, Path key, boolean logged) {
    List<String> args = keyedSign(key, logged);
    args.addAll(
        List.of("--out", repo.resolve("signed").toString(), repo.resolve("unsigned").toString()));
    return CliRun.run(Map.of("COSIGN_PASSWORD", ""), args.toArray(String[]::new));
  }

  private static CliRun verifyWithKey(Path dir, Path key) {
    return CliRun.run(Map.of(), "verify", "--key", publicKeyOf(key).toString(), dir.toString());
  }

  /** {@code content} signed by {@code sign --key}, logged in the stack's Rekor or not. */
  private String signedWithKey(Path key, String content, boolean logged) throws IOException {
    Path file = tmp.resolve("author/" + System.nanoTime() + "/x.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    List<String> args = keyedSign(key, logged);
    args.add(file.toString());
    CliRun sign = CliRun.run(Map.of("COSIGN_PASSWORD", ""), args.toArray(String[]::new));
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }

  /** {@code sign --key KEY}, with {@code --tlog-upload} to the stack's Rekor when logged. */
  private List<String> keyedSign(Path key, boolean logged) {
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
    return args;
  }

  private static String bundleOf(String signedFile) {
    Matcher m = BUNDLE.matcher(signedFile);
    assertThat(m.find()).isTrue();
    return m.group(2);
  }

  /**
   * Merges a pull request that adds {@code content} as {@code unsigned/NAME} and {@code signedFile}
   * as {@code signed/NAME}, as an author could, and starts the test stack's counters from there.
   */
  private void mergedPullRequestWith(String name, String content, String signedFile)
      throws Exception {
    git.commitToOrigin(
        "main", Map.of("unsigned/" + name, content, "signed/" + name, signedFile), Set.of(), "pr");
    stack.resetStats();
  }

  /**
   * The keyed Action with {@code tlog_upload} signs {@code signed/flags.yaml} again, replacing
   * {@code planted}, with one new log entry that verifies, and says so in its commit.
   */
  private void assertKeyedRunSignsAgainWithALogEntry(Path key, String planted) throws Exception {
    CliRun run = runKeyedAction(key);

    assertThat(run.exitCode()).as(run.all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.get("signed/flags.yaml")).isNotEqualTo(planted);
    assertThat(git.originCommit("main").getFullMessage()).doesNotContain("signature unchanged");
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertEverySignedFileHasAVerifyingLogEntry(files, key);
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
