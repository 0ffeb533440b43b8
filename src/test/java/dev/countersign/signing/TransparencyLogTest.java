package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.testing.RekorProxy;
import dev.countersign.testing.RekorSets;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import dev.countersign.verification.FakeSigstore;
import dev.countersign.verification.RekorEntryBody;
import dev.countersign.verification.TrustedRoot;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code sign --key --tlog-upload} against the real loopback Rekor: the log's answer is taken only
 * when it is our entry (digest, signature and public key byte for byte) and its SET, inclusion
 * proof, checkpoint and time verify against the trusted root, as keyless signing takes it. The
 * attacks go through a {@link RekorProxy} that changes what is logged or answered on the way.
 */
@RequiresSigstoreStack
class TransparencyLogTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] MESSAGE =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: logged\n"
          .getBytes(StandardCharsets.UTF_8);

  private final SigstoreTestStack stack;
  private final KeyPair pair = p256();

  TransparencyLogTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void cleanStack() {
    stack.clearFaults();
    stack.resetStats();
  }

  @Test
  void upload_throughAProxyThatChangesNothing_logsOurKeyAndASetTheTrustedRootVerifies()
      throws Exception {
    try (RekorProxy proxy = new RekorProxy(stack, (n, forward) -> forward.call())) {
      SignatureMaterial material =
          signer(proxy.base(), this::stackRoot, Clock.systemUTC()).sign(MESSAGE);

      RekorBundle bundle = material.rekorBundle().orElseThrow();
      RekorEntryBody body = RekorEntryBody.parseBase64(bundle.body());
      assertThat(new String(body.publicKeyPem(), StandardCharsets.US_ASCII))
          .isEqualTo(PublicKeys.toPem(pair.getPublic()));
      assertThat(body.signatureBase64())
          .isEqualTo(Base64.getEncoder().encodeToString(material.signature()));
      assertThat(RekorSets.verifies(bundle, stack.trustedRoot())).isTrue();
      assertThat(stack.stats().logEntries()).isEqualTo(1);
    }
  }

  @Test
  void upload_whenTheLogRecordsOurSignatureUnderAnotherKey_isRefused() throws Exception {
    // The stack logs our digest and signature with another public key, and its SET, inclusion
    // proof and checkpoint for that entry are genuine: only the body says whose key it is.
    String otherKeyPem = PublicKeys.toPem(p256().getPublic());
    UnaryOperator<byte[]> anotherKey =
        request ->
            edit(
                request,
                entry ->
                    ((ObjectNode) entry.at("/spec/signature/publicKey"))
                        .put(
                            "content",
                            Base64.getEncoder()
                                .encodeToString(otherKeyPem.getBytes(StandardCharsets.US_ASCII))));
    try (RekorProxy proxy = new RekorProxy(stack, anotherKey, (n, forward) -> forward.call())) {
      KeyMessageSigner signer = signer(proxy.base(), this::stackRoot, Clock.systemUTC());

      assertRefused(() -> signer.sign(MESSAGE), "does not carry the uploaded signature");
      assertThat(stack.stats().logEntries()).isEqualTo(1);
    }
  }

  @Test
  void upload_whenTheAnswersSetDoesNotVerify_isRefused() throws Exception {
    try (RekorProxy proxy =
        new RekorProxy(
            stack,
            (n, forward) ->
                editAnswer(
                    forward.call(),
                    entry -> {
                      ObjectNode verification = (ObjectNode) entry.path("verification");
                      byte[] set =
                          Base64.getDecoder()
                              .decode(verification.path("signedEntryTimestamp").asText());
                      set[set.length - 1] ^= 1;
                      verification.put(
                          "signedEntryTimestamp", Base64.getEncoder().encodeToString(set));
                    }))) {
      KeyMessageSigner signer = signer(proxy.base(), this::stackRoot, Clock.systemUTC());

      assertRefused(() -> signer.sign(MESSAGE), "signed entry timestamp does not verify");
    }
  }

  @Test
  void upload_whenTheAnswerNamesAnotherLog_isRefused() throws Exception {
    try (RekorProxy proxy =
        new RekorProxy(
            stack,
            (n, forward) ->
                editAnswer(forward.call(), entry -> entry.put("logID", "00".repeat(32))))) {
      KeyMessageSigner signer = signer(proxy.base(), this::stackRoot, Clock.systemUTC());

      assertRefused(() -> signer.sign(MESSAGE), "is not a transparency log in the trusted root");
    }
  }

  @Test
  void upload_whenTheInclusionProofLeadsToAnotherRoot_isRefused() throws Exception {
    try (RekorProxy proxy =
        new RekorProxy(
            stack,
            (n, forward) ->
                editAnswer(
                    forward.call(),
                    entry ->
                        ((ObjectNode) entry.at("/verification/inclusionProof"))
                            .put("rootHash", "ab".repeat(32))))) {
      KeyMessageSigner signer = signer(proxy.base(), this::stackRoot, Clock.systemUTC());

      assertRefused(() -> signer.sign(MESSAGE), "inclusion proof");
    }
  }

  @Test
  void upload_toALogTheTrustedRootDoesNotName_isRefused() {
    Supplier<TrustedRoot> anotherSigstore =
        () ->
            TrustedRoot.fromJson(
                new FakeSigstore().trustedRootJson().getBytes(StandardCharsets.UTF_8), "other");
    KeyMessageSigner signer = signer(stack.baseUrl(), anotherSigstore, Clock.systemUTC());

    assertRefused(() -> signer.sign(MESSAGE), "is not a transparency log in the trusted root");
  }

  @Test
  void upload_whoseEntryIsDatedAnHourFromTheUpload_isRefused() {
    // The stack's Rekor dates the entry now; our clock says an hour later.
    Clock anHourAhead = Clock.offset(Clock.systemUTC(), Duration.ofHours(1));
    KeyMessageSigner signer = signer(stack.baseUrl(), this::stackRoot, anHourAhead);

    assertRefused(() -> signer.sign(MESSAGE), "is not the time of the upload");
  }

  @Test
  void upload_whoseEntryIsDatedWithinTheClocksDifference_isTaken() {
    Clock aMinuteAhead = Clock.offset(Clock.systemUTC(), Duration.ofMinutes(1));
    KeyMessageSigner signer = signer(stack.baseUrl(), this::stackRoot, aMinuteAhead);

    assertThat(signer.sign(MESSAGE).rekorBundle()).isPresent();
  }

  private KeyMessageSigner signer(String rekor, Supplier<TrustedRoot> root, Clock clock) {
    return new KeyMessageSigner(
        pair.getPrivate(),
        pair.getPublic(),
        Optional.of(
            new TransparencyLog(
                URI.create(rekor), root, "the stack's root", clock, wait -> {}, warning -> {})));
  }

  private TrustedRoot stackRoot() {
    return TrustedRoot.fromFile(stack.trustedRoot());
  }

  @Test
  void publicGood_isTheOneLogThePublicGoodRootNames_bySchemeHostAndPort() {
    assertThat(TransparencyLog.isPublicGood(URI.create("https://rekor.sigstore.dev"))).isTrue();
    assertThat(TransparencyLog.isPublicGood(URI.create("https://REKOR.sigstore.dev/"))).isTrue();
    assertThat(TransparencyLog.isPublicGood(URI.create("https://rekor.sigstore.dev:443"))).isTrue();

    assertThat(TransparencyLog.isPublicGood(URI.create("http://rekor.sigstore.dev"))).isFalse();
    assertThat(TransparencyLog.isPublicGood(URI.create("https://rekor.sigstore.dev:8443")))
        .isFalse();
    assertThat(TransparencyLog.isPublicGood(URI.create("https://rekor.sigstore.dev.example")))
        .isFalse();
    assertThat(TransparencyLog.isPublicGood(URI.create(stack.baseUrl()))).isFalse();
  }

  private static void assertRefused(Runnable signing, String reason) {
    assertThatThrownBy(signing::run)
        .isInstanceOfSatisfying(
            RemoteProblem.class,
            problem -> assertThat(problem.exitCode()).isEqualTo(ExitCode.REMOTE))
        .hasMessageContaining(reason)
        .hasMessageContaining("while signing with a key");
  }

  /** Rekor's answer ({UUID: entry}) with its one entry changed by {@code change}. */
  private static RekorProxy.Reply editAnswer(RekorProxy.Reply answer, Consumer<ObjectNode> change) {
    byte[] body = edit(answer.body(), root -> change.accept((ObjectNode) root.elements().next()));
    return new RekorProxy.Reply(answer.status(), answer.headers(), body);
  }

  private static byte[] edit(byte[] json, Consumer<ObjectNode> change) {
    try {
      ObjectNode root = (ObjectNode) JSON.readTree(json);
      change.accept(root);
      return JSON.writeValueAsBytes(root);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair p256() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"));
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }
}
