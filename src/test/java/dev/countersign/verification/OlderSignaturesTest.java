package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.cli.Main;
import dev.countersign.support.Env;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Clock;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Signatures made before today's formats: a 2021 kubectl-sigstore keyless signature (Fulcio
 * certificate without the OIDC issuer extension, legacy {@code rekord} entry), and a keyed
 * signature logged as a {@code rekord} entry, verified offline through the CLI.
 */
class OlderSignaturesTest {

  private static final String DIR = "/verification/kubectl-sigstore-2021/";
  private static final String ROOT = "/verification/sigstore/trusted_root_public_good.json";

  @TempDir Path tmp;
  private String out;

  private int verify(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    String[] all = new String[args.length + 1];
    all[0] = "verify";
    System.arraycopy(args, 0, all, 1, args.length);
    int code =
        Main.run(
            dev.countersign.cli.Runtime.of(
                Env.empty(), Clock.systemUTC(), new PrintWriter(o, true), new PrintWriter(e, true)),
            all);
    out = o + e.toString();
    return code;
  }

  private Path resource(String name) throws Exception {
    Path file = tmp.resolve(Path.of(name).getFileName().toString());
    try (InputStream in = getClass().getResourceAsStream(name)) {
      Files.write(file, in.readAllBytes());
    }
    return file;
  }

  @Test
  void kubectlSigstore2021Keyless_verifiesWithInsecureIgnoreIdentity() throws Exception {
    Path root = resource(ROOT);

    assertThat(
            verify(
                "--insecure-ignore-identity",
                "--trusted-root",
                root.toString(),
                resource(DIR + "sample-configmap-with-keyless-sig.yaml").toString()))
        .as(out)
        .isZero();
    assertThat(out).contains("hirokuni.kitahara1@gmail.com");
    // The signature still protects the content.
    assertThat(
            verify(
                "--insecure-ignore-identity",
                "--trusted-root",
                root.toString(),
                resource(DIR + "sample-configmap-modified.yaml").toString()))
        .as(out)
        .isEqualTo(1);
  }

  @Test
  void kubectlSigstore2021Keyless_withIdentityRules_matchesOnTheSanWhenTheIssuerMayBeAny()
      throws Exception {
    Path root = resource(ROOT);
    Path file = resource(DIR + "sample-configmap-with-keyless-sig.yaml");

    assertThat(
            verify(
                "--certificate-identity",
                "hirokuni.kitahara1@gmail.com",
                "--certificate-oidc-issuer-regexp",
                ".*",
                "--trusted-root",
                root.toString(),
                file.toString()))
        .as(out)
        .isZero();
    // An exact issuer cannot be proven by a certificate that names none.
    assertThat(
            verify(
                "--certificate-identity",
                "hirokuni.kitahara1@gmail.com",
                "--certificate-oidc-issuer",
                "https://github.com/login/oauth",
                "--trusted-root",
                root.toString(),
                file.toString()))
        .isEqualTo(1);
    assertThat(out).contains("no OIDC issuer extension", "--certificate-oidc-issuer-regexp '.*'");
    assertThat(
            verify(
                "--certificate-identity",
                "someone.else@example.com",
                "--certificate-oidc-issuer-regexp",
                ".*",
                "--trusted-root",
                root.toString(),
                file.toString()))
        .isEqualTo(1);
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void keyedSignatureWithARekordEntry_verifiesWithTrustedRoot_andATamperedEntryDoesNot(
      boolean contentInsteadOfHash) throws Exception {
    FakeSigstore sigstore = new FakeSigstore();
    KeyPair key = FakeSigstore.ec();
    Map<String, String> annotations = sigstore.keyedRekord(key, contentInsteadOfHash);
    Path root = tmp.resolve("trusted_root.json");
    Files.writeString(root, sigstore.trustedRootJson());
    Path publicKey = tmp.resolve("cosign.pub");
    Files.writeString(
        publicKey,
        "-----BEGIN PUBLIC KEY-----\n"
            + Base64.getMimeEncoder().encodeToString(key.getPublic().getEncoded())
            + "\n-----END PUBLIC KEY-----\n");
    Path manifest = tmp.resolve("cm.yaml");
    Files.writeString(manifest, FakeSigstore.liveYaml(annotations), StandardCharsets.UTF_8);

    assertThat(
            verify(
                "--key",
                publicKey.toString(),
                "--trusted-root",
                root.toString(),
                manifest.toString()))
        .as(out)
        .isZero();

    // Another log's SET over the same entry must not pass.
    FakeSigstore otherLog = new FakeSigstore();
    Path otherRoot = tmp.resolve("other_root.json");
    Files.writeString(otherRoot, otherLog.trustedRootJson());
    assertThat(
            verify(
                "--key",
                publicKey.toString(),
                "--trusted-root",
                otherRoot.toString(),
                manifest.toString()))
        .isEqualTo(1);
    assertThat(out).contains("is not a transparency log in the trusted root");
  }
}
