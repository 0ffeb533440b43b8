package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@code --trusted-root} that makes every signature of this run fail its checks (no certificate
 * transparency log for keyless signing, every Rekor log's {@code validFor} over, no certificate
 * authority valid now) is refused when signing reads it, before Fulcio or Rekor is asked for
 * anything: counted on the loopback Sigstore stack. Verifying signatures made while a log was valid
 * still works with such a root.
 */
@RequiresSigstoreStack
class SigningTrustedRootTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ENDED = Instant.now().minus(Duration.ofDays(1)).toString();

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private Path manifest;
  private String unsigned;

  SigningTrustedRootTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void manifest() throws IOException {
    manifest = Files.createDirectories(tmp.resolve("unsigned")).resolve("flags.yaml");
    unsigned = ActionPipelineTest.configMap("flags", "on");
    Files.writeString(manifest, unsigned);
  }

  @Test
  void keylessSign_withARootNamingNoCtLog_isAUsageErrorBeforeFulcioIsAsked() throws Exception {
    Path root = rootWhere(r -> r.putArray("ctlogs"));
    stack.resetStats();

    CliRun sign = signKeylessly(root);

    assertRefusedBeforeAnyRequest(sign, root, "ctlogs");
  }

  @Test
  void keylessSign_withARootWhoseEveryRekorLogHasEnded_isAUsageErrorBeforeFulcioIsAsked()
      throws Exception {
    Path root = rootWhere(r -> endAll(r.withArray("tlogs"), ENDED));
    stack.resetStats();

    CliRun sign = signKeylessly(root);

    assertRefusedBeforeAnyRequest(sign, root, "tlogs");
  }

  @Test
  void keylessSign_withARootWhoseEveryCertificateAuthorityHasEnded_isAUsageError()
      throws Exception {
    Path root =
        rootWhere(
            r -> {
              for (JsonNode ca : r.withArray("certificateAuthorities")) {
                ((ObjectNode) ca).putObject("validFor").put("end", ENDED);
              }
            });
    stack.resetStats();

    CliRun sign = signKeylessly(root);

    assertRefusedBeforeAnyRequest(sign, root, "certificateAuthorities");
  }

  @Test
  void control_keylessSign_withEndedLogsBesideTheLiveOnes_signs() throws Exception {
    // A root that has rotated keeps its old logs, ended, for the entries they hold.
    Path root =
        rootWhere(
            r -> {
              addEndedCopyWithAnotherKey(r.withArray("tlogs"));
              addEndedCopyWithAnotherKey(r.withArray("ctlogs"));
            });

    CliRun sign = signKeylessly(root);

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("1 signed");
    CliRun verify =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            root.toString(),
            "--certificate-identity",
            stack.identitySan(),
            "--certificate-oidc-issuer",
            stack.identityIssuer(),
            manifest.toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
  }

  @Test
  void keyedTlogUpload_withARootWhoseEveryRekorLogHasEnded_isAUsageErrorBeforeRekorIsAsked()
      throws Exception {
    Path key = keyPair();
    Path root = rootWhere(r -> endAll(r.withArray("tlogs"), ENDED));
    stack.resetStats();

    CliRun sign = signWithLoggedKey(key, root);

    assertRefusedBeforeAnyRequest(sign, root, "tlogs");
  }

  @Test
  void verify_withARootWhoseRekorLogEndedAfterTheEntries_stillAcceptsThem_whileSigningRefusesIt()
      throws Exception {
    // The log's validFor ends after it logged this signature: a verifier of old entries may
    // rightly hold such a root, so only signing (whose entries would be new) refuses it.
    Path key = keyPair();
    CliRun logged = signWithLoggedKey(key, stack.trustedRoot());
    assertThat(logged.exitCode()).as(logged.all()).isZero();
    Thread.sleep(1_100); // integratedTime has whole seconds: end the log strictly after it
    String endedNow = Instant.now().toString();
    Path root = rootWhere(r -> endAll(r.withArray("tlogs"), endedNow));

    CliRun verify =
        CliRun.run(
            Map.of(),
            "verify",
            "--key",
            key.resolveSibling("cosign.pub").toString(),
            "--trusted-root",
            root.toString(),
            manifest.toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();

    Files.writeString(manifest, unsigned);
    CliRun sign = signWithLoggedKey(key, root);
    assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.USAGE.code());
  }

  // --- helpers -------------------------------------------------------------------------------

  /** Exit 2 naming {@code root} and {@code field}, the manifest untouched, no Fulcio or Rekor. */
  private void assertRefusedBeforeAnyRequest(CliRun sign, Path root, String field)
      throws IOException {
    assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(sign.err()).contains(root.toString()).contains(field);
    assertThat(Files.readString(manifest)).isEqualTo(unsigned);
    List<String> asked = new ArrayList<>();
    stack
        .stats()
        .raw()
        .path("requests")
        .properties()
        .forEach(
            e -> {
              if ((e.getKey().startsWith("fulcio.") || e.getKey().startsWith("rekor."))
                  && e.getValue().asInt() > 0) {
                asked.add(e.getKey() + "=" + e.getValue().asInt());
              }
            });
    assertThat(asked).as("Fulcio and Rekor requests").isEmpty();
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().logEntries()).isZero();
  }

  /** The stack's trusted root, changed by {@code change}, in a file of its own. */
  private Path rootWhere(Consumer<ObjectNode> change) throws IOException {
    ObjectNode root = (ObjectNode) JSON.readTree(stack.trustedRoot().toFile());
    change.accept(root);
    Path file = tmp.resolve("roots/" + System.nanoTime() + "/trusted_root.json");
    Files.createDirectories(file.getParent());
    JSON.writeValue(file.toFile(), root);
    return file;
  }

  private static void endAll(ArrayNode logs, String end) {
    for (JsonNode log : logs) {
      ((ObjectNode) log.path("publicKey")).withObject("validFor").put("end", end);
    }
  }

  /**
   * Adds a log like the first of {@code logs}, ended, with the key of the stack's TSA (so another
   * log id).
   */
  private void addEndedCopyWithAnotherKey(ArrayNode logs) {
    ObjectNode old = logs.get(0).deepCopy();
    ObjectNode key = (ObjectNode) old.path("publicKey");
    key.put("rawBytes", tsaPublicKey());
    key.withObject("validFor").put("start", "2020-01-01T00:00:00Z").put("end", ENDED);
    old.withObject("logId").put("keyId", "");
    logs.add(old);
  }

  /** The stack's TSA root's public key, base64 DER: a real key no log signs with. */
  private String tsaPublicKey() {
    try {
      JsonNode chain =
          JSON.readTree(stack.trustedRoot().toFile())
              .at("/timestampAuthorities/0/certChain/certificates");
      byte[] der =
          java.util.Base64.getDecoder()
              .decode(chain.get(chain.size() - 1).path("rawBytes").asText());
      var certificate =
          (java.security.cert.X509Certificate)
              java.security.cert.CertificateFactory.getInstance("X.509")
                  .generateCertificate(new java.io.ByteArrayInputStream(der));
      return java.util.Base64.getEncoder().encodeToString(certificate.getPublicKey().getEncoded());
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private CliRun signKeylessly(Path root) {
    return CliRun.run(
        new HashMap<>(stack.githubEnv()),
        "sign",
        "--trusted-root",
        root.toString(),
        "--signing-config",
        stack.signingConfig().toString(),
        manifest.toString());
  }

  private CliRun signWithLoggedKey(Path key, Path root) {
    return CliRun.run(
        Map.of("COSIGN_PASSWORD", ""),
        "sign",
        "--key",
        key.toString(),
        "--tlog-upload",
        "--rekor-url",
        stack.baseUrl(),
        "--trusted-root",
        root.toString(),
        manifest.toString());
  }

  private Path keyPair() throws IOException {
    Path key = tmp.resolve("cosign.key");
    KeyPairFiles.generate(key, key.resolveSibling("cosign.pub"), new char[0], new SecureRandom());
    return key;
  }
}
