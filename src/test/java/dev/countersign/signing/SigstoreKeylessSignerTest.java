package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.RekorProxy;
import dev.countersign.testing.RekorSets;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import dev.sigstore.KeylessVerificationException;
import dev.sigstore.KeylessVerifier;
import dev.sigstore.TrustedRootProvider;
import dev.sigstore.VerificationOptions;
import dev.sigstore.bundle.Bundle;
import dev.sigstore.strings.StringMatcher;
import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Keyless signing against the real loopback Sigstore stack (Fulcio gRPC/TLS, Rekor v1, OIDC). */
@RequiresSigstoreStack
class SigstoreKeylessSignerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SigstoreTestStack stack;
  private final List<String> fetchedTokens = new CopyOnWriteArrayList<>();
  private final List<Runnable> headStartDrains = new ArrayList<>();
  // What the signers' Rekor retries waited (recorded, not slept).
  private final List<Duration> waits = new CopyOnWriteArrayList<>();
  private final List<String> warnings = new CopyOnWriteArrayList<>();
  private final ManifestReader reader = new ManifestReader();
  private final SignedManifestFormat format =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);

  SigstoreKeylessSignerTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void cleanStack() {
    stack.clearFaults();
    stack.resetStats();
  }

  @AfterEach
  void clearFaults() {
    // A head start's token request that no signer took may still be on its way: let it land in
    // this test's counters, not the next test's.
    headStartDrains.forEach(Runnable::run);
    stack.clearFaults();
  }

  @Test
  void sign_manyMessagesFromAPool_usesOneTokenOneCertificateAndOneLogEntryEach(@TempDir Path dir)
      throws Exception {
    List<byte[]> messages = new ArrayList<>();
    for (int i = 0; i < 25; i++) {
      messages.add(
          ("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + i + "\n")
              .getBytes(StandardCharsets.UTF_8));
    }
    List<SignatureMaterial> materials = new ArrayList<>();
    try (SigstoreKeylessSigner signer = githubSigner()) {
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<SignatureMaterial>> futures = new ArrayList<>();
        for (byte[] message : messages) {
          futures.add(pool.submit(() -> signer.sign(message)));
        }
        for (Future<SignatureMaterial> future : futures) {
          materials.add(future.get(120, TimeUnit.SECONDS));
        }
      } finally {
        pool.shutdownNow();
      }
      assertThat(signer.signerDescription()).isEqualTo(stack.identitySan());
    }

    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.tokens()).as("tokens issued, %s", stats.raw()).isEqualTo(1);
    assertThat(stats.certificates()).as("certificates issued, %s", stats.raw()).isEqualTo(1);
    assertThat(stats.logEntries()).as("log entries, %s", stats.raw()).isEqualTo(25);
    assertThat(fetchedTokens).hasSize(1);
    assertThat(materials)
        .extracting(m -> m.certificatePem().orElseThrow())
        .containsOnly(materials.get(0).certificatePem().orElseThrow());
    assertThat(materials)
        .extracting(m -> m.rekorBundle().orElseThrow().logIndex())
        .doesNotHaveDuplicates();

    KeylessVerifier verifier = javaVerifier();
    for (int i = 0; i < messages.size(); i++) {
      byte[] message = messages.get(i);
      SignatureMaterial material = materials.get(i);
      assertThat(material.signer()).isEqualTo(stack.identitySan());
      assertAnnotationMaterialConsistent(message, material);

      Bundle bundle = Bundle.from(new StringReader(material.sigstoreBundleJson().orElseThrow()));
      byte[] digest = SigstoreKeylessSigner.sha256(message);
      assertThatCode(() -> verifier.verify(digest, bundle, identity(stack.identitySan())))
          .as("sigstore-java verifies message %d", i)
          .doesNotThrowAnyException();
      assertThatThrownBy(
              () ->
                  verifier.verify(
                      digest,
                      bundle,
                      identity(
                          "https://github.com/evil/repo/.github/workflows/x.yml@refs/heads/main")))
          .isInstanceOf(KeylessVerificationException.class);

      Path artifact = dir.resolve("m" + i + ".yaml");
      Files.write(artifact, message);
      Path sidecar = dir.resolve("m" + i + ".yaml.sigstore.json");
      Files.writeString(sidecar, material.sigstoreBundleJson().orElseThrow());
      SigstoreTestStack.ToolResult js =
          stack.verifyWithSigstoreJs(
              sidecar, artifact, stack.identitySan(), SigstoreTestStack.GITHUB_ISSUER);
      assertThat(js.exitCode()).as("sigstore-js verify of message %d: %s", i, js.output()).isZero();
    }

    Path artifact = dir.resolve("m0.yaml");
    Path sidecar = dir.resolve("m0.yaml.sigstore.json");
    SigstoreTestStack.ToolResult wrongSan =
        stack.verifyWithSigstoreJs(
            sidecar,
            artifact,
            "https://github.com/evil/repo/.github/workflows/x.yml@refs/heads/main",
            SigstoreTestStack.GITHUB_ISSUER);
    assertThat(wrongSan.exitCode())
        .as("sigstore-js with a wrong SAN: %s", wrongSan.output())
        .isNotZero();
    Files.write(artifact, "tampered".getBytes(StandardCharsets.UTF_8));
    SigstoreTestStack.ToolResult tampered =
        stack.verifyWithSigstoreJs(
            sidecar, artifact, stack.identitySan(), SigstoreTestStack.GITHUB_ISSUER);
    assertThat(tampered.exitCode())
        .as("sigstore-js with another artifact: %s", tampered.output())
        .isNotZero();
  }

  @Test
  void construction_alone_talksToNoService() {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      assertThat(signer.signerDescription()).doesNotContain("https://");
    }
    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.tokens() + stats.certificates() + stats.logEntries())
        .as("%s", stats.raw())
        .isZero();
  }

  /**
   * prepare() gets the token and the certificate ahead of the first signature, but logs nothing: a
   * certificate alone signs nothing, only a Rekor entry over a digest does.
   */
  @Test
  void prepare_fetchesTheTokenAndCertificateButLogsNothing_andSignUsesThem() throws Exception {
    List<String> fetched = new CopyOnWriteArrayList<>();
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options(), Env.of(stack.githubEnv()), Clock.systemUTC(), fetched::add)) {
      signer.prepare();
      // The background thread asks Fulcio after the token; wait for its certificate.
      for (int i = 0; i < 600 && stack.stats().certificates() == 0; i++) {
        Thread.sleep(50);
      }
      assertThat(fetched).as("token fetched by prepare()").hasSize(1);
      SigstoreTestStack.Stats prepared = stack.stats();
      assertThat(prepared.certificates()).as("%s", prepared.raw()).isEqualTo(1);
      assertThat(prepared.logEntries()).as("%s", prepared.raw()).isZero();
      // The identity comes from the prepared token: no second token request.
      assertThat(signer.identity())
          .isEqualTo(SigstoreKeylessSigner.identityFromToken(fetched.get(0)));

      signer.sign("a".getBytes(StandardCharsets.UTF_8));
      signer.sign("b".getBytes(StandardCharsets.UTF_8));
    }
    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.tokens()).as("%s", stats.raw()).isEqualTo(1);
    assertThat(stats.certificates()).isEqualTo(1);
    assertThat(stats.logEntries()).isEqualTo(2);
    assertThat(fetched).hasSize(1);
  }

  /**
   * A run that finds it has nothing to sign cancels: when cancelPreparation returns, no request is
   * under way or to come, and nothing was logged; signing later still works with one certificate.
   */
  @Test
  void cancelPreparation_leavesNoRequestBehind_andNothingLogged() {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      signer.prepare();
      signer.cancelPreparation();
      SigstoreTestStack.Stats cancelled = stack.stats();
      assertThat(cancelled.logEntries()).as("%s", cancelled.raw()).isZero();
      assertThat(cancelled.certificates()).isLessThanOrEqualTo(1);
      assertThat(cancelled.tokens()).isLessThanOrEqualTo(1);

      signer.sign("a".getBytes(StandardCharsets.UTF_8));
    }
    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.certificates()).as("%s", stats.raw()).isEqualTo(1);
    assertThat(stats.logEntries()).isEqualTo(1);
  }

  /**
   * prepareIdentity() gets the token but asks Fulcio nothing, even once it has finished: a run
   * refused on its inputs after it holds no certificate. A later prepare() certifies with that same
   * token, and signing uses that certificate.
   */
  @Test
  void prepareIdentity_fetchesTheTokenOnly_andALaterPrepareCertifiesWithIt() throws Exception {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      signer.prepareIdentity();
      for (int i = 0; i < 600 && fetchedTokens.isEmpty(); i++) {
        Thread.sleep(50);
      }
      assertThat(fetchedTokens).as("token fetched by prepareIdentity()").hasSize(1);
      // Give a wrong implementation time to reach Fulcio before looking.
      Thread.sleep(500);
      SigstoreTestStack.Stats identityOnly = stack.stats();
      assertThat(identityOnly.certificates()).as("%s", identityOnly.raw()).isZero();
      assertThat(identityOnly.tokens()).isEqualTo(1);

      signer.prepare();
      for (int i = 0; i < 600 && stack.stats().certificates() == 0; i++) {
        Thread.sleep(50);
      }
      signer.sign("a".getBytes(StandardCharsets.UTF_8));
    }
    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.tokens()).as("%s", stats.raw()).isEqualTo(1);
    assertThat(stats.certificates()).isEqualTo(1);
    assertThat(stats.logEntries()).isEqualTo(1);
  }

  /** Cancelling after prepareIdentity() leaves no request behind and no certificate at all. */
  @Test
  void prepareIdentity_thenCancel_noCertificateEver() throws Exception {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      signer.prepareIdentity();
      signer.cancelPreparation();
      SigstoreTestStack.Stats cancelled = stack.stats();
      // Nothing may arrive after cancelPreparation has returned.
      Thread.sleep(300);
      SigstoreTestStack.Stats later = stack.stats();
      assertThat(List.of(later.tokens(), later.certificates(), later.logEntries()))
          .as("%s", later.raw())
          .containsExactly(cancelled.tokens(), cancelled.certificates(), cancelled.logEntries());
      assertThat(cancelled.certificates()).as("%s", cancelled.raw()).isZero();
      assertThat(cancelled.logEntries()).isZero();
      assertThat(cancelled.tokens()).isLessThanOrEqualTo(1);
    }
  }

  @Test
  void prepare_whenTheTokenEndpointFails_signReportsTheSameProblem() {
    stack.injectFault("{\"oidc\":{\"after\":0,\"status\":500}}");
    try (SigstoreKeylessSigner signer = githubSigner()) {
      signer.prepare();
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("OIDC")
          .hasMessageContaining("500");
    }
    assertThat(stack.stats().certificates()).isZero();
  }

  @Test
  void tokenCallback_runsBeforeFulcioIsAsked() {
    List<Integer> certificatesWhenTokenArrived = new CopyOnWriteArrayList<>();
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options(),
            Env.of(stack.githubEnv()),
            Clock.systemUTC(),
            token -> certificatesWhenTokenArrived.add(stack.stats().certificates()))) {
      signer.sign("a".getBytes(StandardCharsets.UTF_8));
      signer.sign("b".getBytes(StandardCharsets.UTF_8));
    }
    assertThat(certificatesWhenTokenArrived).containsExactly(0);
    assertThat(stack.stats().certificates()).isEqualTo(1);
  }

  @Test
  void sign_withExplicitToken_usesThatTokensIdentityAndNoGitHubEnvironment() throws Exception {
    String workflowRef = "octo-org/other-repo/.github/workflows/sign.yml@refs/heads/release";
    String token =
        stack.tokenFor(
            Map.of("job_workflow_ref", workflowRef, "repository", "octo-org/other-repo"));
    byte[] message = "kind: Secret\n".getBytes(StandardCharsets.UTF_8);

    SignatureMaterial material;
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options().withIdentityToken(token),
            Env.empty(),
            Clock.systemUTC(),
            fetchedTokens::add)) {
      material = signer.sign(message);
    }

    String expectedSan = "https://github.com/" + workflowRef;
    assertThat(material.signer()).isEqualTo(expectedSan);
    assertThat(fetchedTokens).containsExactly(token);
    assertThat(stack.stats().raw().path("requests").path("oidc.token").asInt()).isZero();
    assertAnnotationMaterialConsistent(message, material);
    Bundle bundle = Bundle.from(new StringReader(material.sigstoreBundleJson().orElseThrow()));
    assertThatCode(
            () ->
                javaVerifier()
                    .verify(SigstoreKeylessSigner.sha256(message), bundle, identity(expectedSan)))
        .doesNotThrowAnyException();
  }

  @Test
  void sign_withSigstoreIdTokenVariable_signsWithThatToken() {
    String token = stack.tokenFor(Map.of());
    Map<String, String> env = new HashMap<>(stack.githubEnv());
    env.put("SIGSTORE_ID_TOKEN", token); // wins over the GitHub runner variables
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(options(), Env.of(env), Clock.systemUTC(), fetchedTokens::add)) {
      SignatureMaterial material = signer.sign("a: b\n".getBytes(StandardCharsets.UTF_8));
      assertThat(material.signer()).isEqualTo(stack.identitySan());
    }
    assertThat(fetchedTokens).containsExactly(token);
    assertThat(stack.stats().raw().path("requests").path("oidc.token").asInt()).isZero();
  }

  @Test
  void sign_whenRekorKeepsFailing_givesUpAfterFourTries_namingRekorAndItsStatus() {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      stack.injectFault("{\"rekor\":{\"after\":2,\"status\":503}}");
      signer.sign("one".getBytes(StandardCharsets.UTF_8));
      signer.sign("two".getBytes(StandardCharsets.UTF_8));

      assertThatThrownBy(() -> signer.sign("three".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("Rekor")
          .hasMessageContaining("503")
          .hasMessageContaining("(4 tries)")
          .satisfies(
              e -> assertThat(((CountersignException) e).exitCode()).isEqualTo(ExitCode.REMOTE))
          .satisfies(e -> assertThat(((CountersignException) e).hint()).isPresent());
    }
    assertThat(rekorStatuses()).containsEntry("201", 2).containsEntry("503", 4);
    // Jittered exponential backoff: 1 s, 2 s, 4 s, each times 0.5 to 1.5.
    assertThat(waits).hasSize(3);
    assertThat(waits.get(0)).isBetween(Duration.ofMillis(400), Duration.ofMillis(1500));
    assertThat(waits.get(1)).isBetween(Duration.ofMillis(900), Duration.ofMillis(3000));
    assertThat(waits.get(2)).isBetween(Duration.ofMillis(1900), Duration.ofMillis(6000));
  }

  @Test
  void sign_whenRekorThrottlesTwice_waitsAndThenLogsTheEntry() throws Exception {
    stack.injectFault("{\"rekor\":{\"after\":0,\"status\":429,\"count\":2}}");
    byte[] message = "apiVersion: v1\nkind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);
    SignatureMaterial material;
    try (SigstoreKeylessSigner signer = githubSigner()) {
      material = signer.sign(message);
    }

    assertThat(rekorStatuses()).containsEntry("429", 2).containsEntry("201", 1);
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertThat(waits).hasSize(2);
    // The waits here are recorded, not slept: the second failure comes while the first hold is
    // still running, so it extends that hold without a second line.
    assertThat(warnings)
        .singleElement()
        .asString()
        .matches(
            "Rekor answered a log entry upload with HTTP 429; every upload waits [12] s, then"
                + " tries again \\(try 2 of 4\\)");
    assertVerifies(message, material);
  }

  @Test
  void sign_whenRekorAsksToWaitLongerThanCountersignWaits_failsAtOnce() throws Exception {
    try (RekorProxy proxy =
            new RekorProxy(stack, (n, forward) -> RekorProxy.Reply.status(429, "3600"));
        SigstoreKeylessSigner signer = githubSigner(proxy.options())) {
      assertRemoteProblem(signer, "HTTP 429, asking to wait 3600 s", "--parallel");
      assertThat(proxy.posts()).isEqualTo(1);
    }
    assertThat(waits).isEmpty();
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void sign_whenTheTlsConnectionToRekorFails_failsAtOnceWithoutTryingAgain() throws Exception {
    // https to the stack's plain http port: the handshake fails, and no new try can mend that.
    String plainPortOverTls = stack.baseUrl().replace("http://", "https://");
    try (SigstoreKeylessSigner signer =
        githubSigner(RekorProxy.withRekor(stack, plainPortOverTls))) {
      assertRemoteProblem(signer, "Could not open a TLS connection to Rekor", "trust store");
    }
    assertThat(waits).isEmpty();
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void sign_whenRekorSaysRetryAfter_waitsWhatItAsks() throws Exception {
    try (RekorProxy proxy =
            new RekorProxy(
                stack,
                (n, forward) -> n == 1 ? RekorProxy.Reply.status(503, "2") : forward.call());
        SigstoreKeylessSigner signer = githubSigner(proxy.options())) {
      signer.sign("x".getBytes(StandardCharsets.UTF_8));
      assertThat(proxy.posts()).isEqualTo(2);
    }
    assertThat(waits).hasSize(1);
    assertThat(waits.get(0)).isBetween(Duration.ofMillis(1500), Duration.ofSeconds(2));
  }

  @Test
  void sign_whenRekorsAnswerIsLost_theRetryTakesTheLoggedEntryFromTheConflict() throws Exception {
    byte[] message = "apiVersion: v1\nkind: Secret\n".getBytes(StandardCharsets.UTF_8);
    SignatureMaterial material;
    // The log takes the first upload, but its answer is lost on the way (a gateway's 502).
    try (RekorProxy proxy =
            new RekorProxy(
                stack,
                (n, forward) -> {
                  RekorProxy.Reply answer = forward.call();
                  return n == 1 ? RekorProxy.Reply.status(502, null) : answer;
                });
        SigstoreKeylessSigner signer = githubSigner(proxy.options())) {
      material = signer.sign(message);
      assertThat(proxy.posts()).isEqualTo(2);
    }

    assertThat(rekorStatuses()).containsEntry("201", 1).containsEntry("409", 1);
    assertThat(stack.stats().raw().path("requests").path("rekor.v1.getEntry").asInt()).isOne();
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertVerifies(message, material);
  }

  @Test
  void sign_whenAConflictPointsAtAnotherServer_refusesToFetchFromThere() throws Exception {
    try (RekorProxy proxy =
            new RekorProxy(
                stack,
                (n, forward) -> {
                  forward.call();
                  return n == 1
                      ? RekorProxy.Reply.status(502, null)
                      : RekorProxy.Reply.conflict("http://127.0.0.2:9/api/v1/log/entries/00");
                });
        SigstoreKeylessSigner signer = githubSigner(proxy.options())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("points at another server");
    }
    assertThat(stack.stats().raw().path("requests").path("rekor.v1.getEntry").asInt()).isZero();
  }

  @Test
  void signJob_whenUploadsEndInAnotherOrderThanTheyStarted_everyFileCarriesItsOwnSignature(
      @TempDir Path dir) throws Exception {
    int files = 8;
    List<SignJob.Item> items = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      Path file = dir.resolve("cm-" + i + ".yaml");
      Files.writeString(file, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-" + i + "\n");
      items.add(new SignJob.Item(reader.read(file, file), file, Optional.empty(), true));
    }
    // The first upload to arrive is logged only after every other file's entry, the second one's
    // answer is lost after the log took it (its retry meets a 409), the third is refused with a
    // 503 before the log sees it (its retry is logged among the others).
    CountDownLatch othersLogged = new CountDownLatch(files - 1);
    List<SignJob.Outcome> outcomes;
    try (RekorProxy proxy =
            new RekorProxy(
                stack,
                (n, forward) -> {
                  if (n == 3) {
                    return RekorProxy.Reply.status(503, null);
                  }
                  if (n == 1) {
                    assertThat(othersLogged.await(60, TimeUnit.SECONDS)).isTrue();
                    return forward.call();
                  }
                  RekorProxy.Reply answer = forward.call();
                  if (answer.status() == 201) {
                    othersLogged.countDown();
                  }
                  return n == 2 ? RekorProxy.Reply.status(502, null) : answer;
                });
        SigstoreKeylessSigner signer = githubSigner(proxy.options())) {
      outcomes =
          new SignJob(reader, format, () -> signer, (kept, message) -> false, SignProgress.NONE)
              .sign(items, false, Parallelism.of(3), false);
      assertThat(proxy.posts()).isEqualTo(files + 2);
    }

    assertThat(rekorStatuses()).containsEntry("201", files).containsEntry("409", 1);
    ManifestVerifier verifier = identityVerifier();
    List<Long> logIndexes = new ArrayList<>();
    for (int i = 0; i < files; i++) {
      SignJob.Outcome outcome = outcomes.get(i);
      assertThat(outcome.item()).isSameAs(items.get(i));
      ManifestFile signed = signedFile(outcome);
      assertThat(verifier.covers(signed, format.message(items.get(i).input().documents())))
          .as("cm-%d's signed file covers cm-%d", i, i)
          .isTrue();
      assertThat(
              verifier.covers(
                  signed, format.message(items.get((i + 1) % files).input().documents())))
          .as("cm-%d's signed file covers no other file", i)
          .isFalse();
      logIndexes.add(outcome.entry().rekorLogIndex().orElseThrow());
    }
    // Logged in another order than signed: the held upload's entry is the last of the log.
    assertThat(logIndexes)
        .doesNotHaveDuplicates()
        .isNotEqualTo(logIndexes.stream().sorted().toList());
  }

  /** Verifies for exactly the stack's workflow identity, as the gate does. */
  private ManifestVerifier identityVerifier() {
    return new ManifestVerifier(
        TrustedRoot.fromFile(stack.trustedRoot()),
        new TrustPolicy(
            List.of(IdentityRule.exact(stack.identitySan(), stack.identityIssuer())),
            List.of(),
            1,
            List.of(),
            format.domain(),
            false),
        format);
  }

  private ManifestFile signedFile(SignJob.Outcome outcome) {
    byte[] bytes = outcome.signedBytes().orElseThrow();
    Path at = outcome.item().output();
    return new ManifestFile(at, at, reader.parse(bytes, at), bytes);
  }

  @Test
  void suggestedInFlight_isTheOwnLogsNumberForALogSigstoreDoesNotRun() {
    try (SigstoreKeylessSigner signer = githubSigner()) {
      assertThat(signer.suggestedInFlight()).isEqualTo(RekorUploads.OWN_LOG_IN_FLIGHT);
    }
    assertThat(stack.stats().tokens() + stack.stats().certificates()).isZero();
  }

  /** The annotation material is consistent, and sigstore-java verifies the bundle. */
  private void assertVerifies(byte[] message, SignatureMaterial material) throws Exception {
    assertAnnotationMaterialConsistent(message, material);
    Bundle bundle = Bundle.from(new StringReader(material.sigstoreBundleJson().orElseThrow()));
    KeylessVerifier verifier = javaVerifier();
    assertThatCode(
            () ->
                verifier.verify(
                    SigstoreKeylessSigner.sha256(message), bundle, identity(stack.identitySan())))
        .doesNotThrowAnyException();
  }

  /** Signing fails with a remote problem whose message and hint say what happened. */
  private static void assertRemoteProblem(
      SigstoreKeylessSigner signer, String message, String hintPart) {
    assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(RemoteProblem.class)
        .hasMessageContaining(message)
        .satisfies(
            e ->
                assertThat(((CountersignException) e).hint())
                    .hasValueSatisfying(hint -> assertThat(hint).contains(hintPart)));
  }

  private Map<String, Integer> rekorStatuses() {
    Map<String, Integer> statuses = new HashMap<>();
    stack
        .stats()
        .raw()
        .path("status")
        .path("rekor.v1.createEntry")
        .fields()
        .forEachRemaining(e -> statuses.put(e.getKey(), e.getValue().asInt()));
    return statuses;
  }

  @Test
  void sign_whenFulcioFails_throwsRemoteProblemNamingFulcio() {
    stack.injectFault("{\"fulcio\":{\"after\":0,\"status\":503}}");
    try (SigstoreKeylessSigner signer = githubSigner()) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("Fulcio")
          .hasMessageContaining("503");
    }
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void sign_whenTheGitHubTokenEndpointFails_throwsRemoteProblemNamingOidc() {
    stack.injectFault("{\"oidc\":{\"after\":0,\"status\":500}}");
    try (SigstoreKeylessSigner signer = githubSigner()) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("OIDC")
          .hasMessageContaining("500");
    }
  }

  @Test
  void sign_whenFulcioRejectsTheToken_throwsEnvironmentProblemWithoutTheToken() {
    String token = stack.tokenFor(Map.of());
    // Same header and claims, signature of another token: Fulcio's signature check fails.
    String other = stack.tokenFor(Map.of("jti", "another"));
    String forged =
        token.substring(0, token.lastIndexOf('.')) + other.substring(other.lastIndexOf('.'));
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options().withIdentityToken(forged), Env.empty(), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessageContaining("Fulcio rejected the OIDC identity token")
          .satisfies(
              e ->
                  assertThat(e.getMessage())
                      .doesNotContain(forged)
                      .doesNotContain(forged.substring(forged.lastIndexOf('.') + 1)))
          .satisfies(
              e ->
                  assertThat(((CountersignException) e).hint().orElseThrow())
                      .doesNotContain(forged));
    }
  }

  @Test
  void sign_withATrustedRootForAnotherFulcio_throwsRemoteProblemAboutTheTrustedRoot(
      @TempDir Path dir) throws Exception {
    // Same services, but the CA entry is the TSA's root: Fulcio's certificates no longer chain.
    ObjectNode root = (ObjectNode) JSON.readTree(stack.trustedRoot().toFile());
    JsonNode tsaChain = root.at("/timestampAuthorities/0/certChain/certificates");
    ArrayNode caChain = (ArrayNode) root.at("/certificateAuthorities/0/certChain/certificates");
    caChain.removeAll().add(tsaChain.get(tsaChain.size() - 1));
    Path otherRoot = dir.resolve("trusted_root.json");
    JSON.writeValue(otherRoot.toFile(), root);

    KeylessOptions options = KeylessOptions.custom(otherRoot, stack.signingConfig());
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(options, Env.of(stack.githubEnv()), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("does not verify against the trusted root")
          .satisfies(
              e ->
                  assertThat(((CountersignException) e).hint().orElseThrow())
                      .contains("--trusted-root"));
    }
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void sign_withATrustedRootForAnotherCtLog_rejectsFulciosCertificateBeforeLogging(
      @TempDir Path dir) throws Exception {
    // The CT log's key replaced by the TSA's key: the embedded SCT no longer verifies.
    Path otherRoot = trustedRootWithTsaKeyAt("/ctlogs/0/publicKey", dir);
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            KeylessOptions.custom(otherRoot, stack.signingConfig()),
            Env.of(stack.githubEnv()),
            Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("does not verify against the trusted root")
          .hasMessageContaining("no embedded SCT verifies");
    }
    assertThat(stack.stats().logEntries()).isZero();
  }

  @Test
  void sign_withATrustedRootForAnotherRekor_rejectsTheLogEntry(@TempDir Path dir) throws Exception {
    // The Rekor key replaced by the TSA's key: the entry's log is not one the root names.
    Path otherRoot = trustedRootWithTsaKeyAt("/tlogs/0/publicKey", dir);
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            KeylessOptions.custom(otherRoot, stack.signingConfig()),
            Env.of(stack.githubEnv()),
            Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(RemoteProblem.class)
          .hasMessageContaining("Rekor returned a log entry that does not verify")
          .hasMessageContaining("is not a transparency log in the trusted root");
    }
  }

  /** The stack's trusted root with the TSA root's key at {@code keyPointer}. */
  private Path trustedRootWithTsaKeyAt(String keyPointer, Path dir) throws Exception {
    ObjectNode root = (ObjectNode) JSON.readTree(stack.trustedRoot().toFile());
    JsonNode tsaChain = root.at("/timestampAuthorities/0/certChain/certificates");
    X509Certificate tsa =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(
                        Base64.getDecoder()
                            .decode(tsaChain.get(tsaChain.size() - 1).path("rawBytes").asText())));
    ((ObjectNode) root.at(keyPointer))
        .put("rawBytes", Base64.getEncoder().encodeToString(tsa.getPublicKey().getEncoded()));
    Path file = dir.resolve("trusted_root.json");
    JSON.writeValue(file.toFile(), root);
    return file;
  }

  @Test
  void sign_withNoTokenAnywhere_throwsEnvironmentProblemWithIdTokenHint() {
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options(), Env.of(Map.of("GITHUB_ACTIONS", "true")), Clock.systemUTC())) {
      assertThatThrownBy(() -> signer.sign("x".getBytes(StandardCharsets.UTF_8)))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessage("No OIDC identity token is available while signing keylessly")
          .satisfies(
              e ->
                  assertThat(((CountersignException) e).hint().orElseThrow())
                      .contains("permissions: id-token: write")
                      .contains("--identity-token")
                      .contains("--key"));
    }
    assertThat(stack.stats().certificates()).isZero();
  }

  // --- the head start (KeylessHeadStart): the token and key started with the process ---

  @Test
  void sign_withTheStartUpToken_usesItInsteadOfAskingTheRunnerAgain() {
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = headStart(env);

    try (SigstoreKeylessSigner signer = signer(env, early)) {
      assertThat(signer.sign(bytes("one")).signer()).isEqualTo(stack.identitySan());
      assertThat(signer.sign(bytes("two")).signer()).isEqualTo(stack.identitySan());
    }

    assertThat(tokenRequests()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isEqualTo(1);
    // Handed to the callback (the Action's ::add-mask::) like a token the signer asked for.
    assertThat(fetchedTokens).hasSize(1);
    assertThat(fetchedTokens.get(0)).matches("[\\w-]+\\.[\\w-]+\\.[\\w-]+");
  }

  @Test
  void sign_withTheStartUpTokenRequestedOverHttps_usesIt() {
    // The runner's token endpoint is https: the request has its connection after the handshake.
    Map<String, String> https = new HashMap<>(stack.githubEnv());
    https.computeIfPresent(
        "ACTIONS_ID_TOKEN_REQUEST_URL",
        (name, url) -> url.replace(stack.baseUrl(), stack.tlsBaseUrl()));
    Env env = Env.of(https);
    assertThat(env.get("ACTIONS_ID_TOKEN_REQUEST_URL").orElseThrow()).startsWith("https://");
    KeylessHeadStart early = headStart(env);

    try (SigstoreKeylessSigner signer = signer(env, early)) {
      assertThat(signer.sign(bytes("one")).signer()).isEqualTo(stack.identitySan());
    }

    assertThat(tokenRequests()).isEqualTo(1);
    assertThat(fetchedTokens).hasSize(1);
  }

  @Test
  void sign_whenTheStartUpRequestFailed_asksTheRunnerAgainAndSigns() {
    stack.injectFault("{\"oidc\":{\"after\":0,\"status\":500,\"count\":1}}");
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = headStart(env);

    try (SigstoreKeylessSigner signer = signer(env, early)) {
      assertThat(signer.sign(bytes("one")).signer()).isEqualTo(stack.identitySan());
    }

    assertThat(tokenRequests()).isEqualTo(2);
    assertThat(fetchedTokens).hasSize(1);
  }

  @Test
  void sign_whenTheRunAsksWithAnotherRunnerToken_doesNotUseTheStartUpToken() {
    KeylessHeadStart early = headStart(Env.of(stack.githubEnv()));
    Map<String, String> other = new HashMap<>(stack.githubEnv());
    other.put("ACTIONS_ID_TOKEN_REQUEST_TOKEN", "not-the-runners-token");

    try (SigstoreKeylessSigner signer = signer(Env.of(other), early)) {
      // The runner refuses the run's own bearer: the start-up token must not paper over that.
      assertThatThrownBy(() -> signer.sign(bytes("one")))
          .isInstanceOf(EnvironmentProblem.class)
          .hasMessageContaining("HTTP 401");
    }

    assertThat(stack.stats().certificates()).isZero();
    assertThat(fetchedTokens).isEmpty();
  }

  @Test
  void sign_withAnExplicitToken_signsWithItAndLeavesTheStartUpTokenUnused() {
    Env env = Env.of(stack.githubEnv());
    KeylessHeadStart early = headStart(env);
    String explicit = stack.tokenFor(Map.of());

    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            options().withIdentityToken(explicit),
            env,
            Clock.systemUTC(),
            waits::add,
            fetchedTokens::add,
            early)) {
      signer.sign(bytes("one"));
    }

    assertThat(fetchedTokens).containsExactly(explicit);
  }

  @Test
  void request_withoutTheRunnerVariablesOrWithSigstoreIdToken_asksNothing() {
    Map<String, String> withSigstoreToken = new HashMap<>(stack.githubEnv());
    withSigstoreToken.put("SIGSTORE_ID_TOKEN", stack.tokenFor(Map.of()));
    Map<String, String> notInActions = new HashMap<>(stack.githubEnv());
    notInActions.remove("GITHUB_ACTIONS");

    assertThat(KeylessHeadStart.request(Env.of(withSigstoreToken))).isSameAs(KeylessHeadStart.NONE);
    assertThat(KeylessHeadStart.request(Env.of(notInActions))).isSameAs(KeylessHeadStart.NONE);
    assertThat(KeylessHeadStart.request(Env.empty())).isSameAs(KeylessHeadStart.NONE);
    assertThat(tokenRequests()).isZero();
  }

  private SigstoreKeylessSigner githubSigner() {
    return githubSigner(options());
  }

  private SigstoreKeylessSigner githubSigner(KeylessOptions options) {
    return new SigstoreKeylessSigner(
        options,
        Env.of(stack.githubEnv()),
        Clock.systemUTC(),
        waits::add,
        SignerEvents.of(fetchedTokens::add, warnings::add),
        KeylessHeadStart.NONE);
  }

  private KeylessOptions options() {
    return KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig());
  }

  private KeylessVerifier javaVerifier() throws Exception {
    return KeylessVerifier.builder()
        .trustedRootProvider(TrustedRootProvider.from(stack.trustedRoot()))
        .build();
  }

  private static VerificationOptions identity(String san) {
    return VerificationOptions.builder()
        .addCertificateMatchers(
            VerificationOptions.CertificateMatcher.fulcio()
                .subjectAlternativeName(StringMatcher.string(san))
                .issuer(StringMatcher.string(SigstoreTestStack.GITHUB_ISSUER))
                .build())
        .build();
  }

  /**
   * What Kyverno checks, without sigstore-java: the DER signature verifies over the raw message
   * with the certificate's key; the Rekor body carries the same signature string, the same
   * certificate PEM and the message hash; the SET verifies with the trusted root's log key.
   */
  private void assertAnnotationMaterialConsistent(byte[] message, SignatureMaterial material)
      throws Exception {
    String pem = material.certificatePem().orElseThrow();
    assertThat(pem).startsWith("-----BEGIN CERTIFICATE-----").containsOnlyOnce("BEGIN CERTIFICATE");
    X509Certificate certificate =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
    Signature ecdsa = Signature.getInstance("SHA256withECDSA");
    ecdsa.initVerify(certificate.getPublicKey());
    ecdsa.update(message);
    assertThat(ecdsa.verify(material.signature())).as("DER ECDSA over the raw message").isTrue();

    RekorBundle rekor = material.rekorBundle().orElseThrow();
    JsonNode body = JSON.readTree(Base64.getDecoder().decode(rekor.body()));
    assertThat(body.path("kind").asText()).isEqualTo("hashedrekord");
    assertThat(body.at("/spec/signature/content").asText())
        .isEqualTo(Base64.getEncoder().encodeToString(material.signature()));
    assertThat(
            new String(
                Base64.getDecoder().decode(body.at("/spec/signature/publicKey/content").asText()),
                StandardCharsets.UTF_8))
        .isEqualTo(pem);
    assertThat(body.at("/spec/data/hash/value").asText())
        .isEqualTo(HexFormat.of().formatHex(SigstoreKeylessSigner.sha256(message)));
    assertThat(rekor.logId()).matches("[0-9a-f]{64}");
    assertThat(RekorSets.verifies(rekor, stack.trustedRoot())).as("SET verifies").isTrue();
    RekorBundle forgedTime =
        new RekorBundle(
            rekor.signedEntryTimestamp(),
            rekor.body(),
            rekor.integratedTime() + 1,
            rekor.logIndex(),
            rekor.logId());
    assertThat(RekorSets.verifies(forgedTime, stack.trustedRoot()))
        .as("SET over another time")
        .isFalse();
  }

  /** A head start in {@code env}, drained after the test. */
  private KeylessHeadStart headStart(Env env) {
    KeylessHeadStart early = KeylessHeadStart.request(env);
    headStartDrains.add(() -> early.takeToken(env));
    return early;
  }

  private SigstoreKeylessSigner signer(Env env, KeylessHeadStart early) {
    return new SigstoreKeylessSigner(
        options(), env, Clock.systemUTC(), waits::add, fetchedTokens::add, early);
  }

  private int tokenRequests() {
    return stack.stats().raw().path("requests").path("oidc.token").asInt();
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
