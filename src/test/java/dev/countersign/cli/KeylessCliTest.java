package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code countersign sign} keylessly against the loopback Sigstore stack, then {@code verify}: one
 * certificate for the whole run, strict identity checks, any edit caught, and sidecar bundles an
 * independent verifier (sigstore-js) accepts.
 */
@RequiresSigstoreStack
class KeylessCliTest {

  private static final int FILES = 24;

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private Path in;
  private Path out;

  KeylessCliTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void signTwentyFourFiles() throws Exception {
    in = Files.createDirectories(tmp.resolve("in"));
    for (int i = 0; i < FILES; i++) {
      Path dir = Files.createDirectories(in.resolve("team-" + (i % 3)));
      Files.writeString(
          dir.resolve("cm-" + i + ".yaml"), ActionPipelineTest.configMap("cm-" + i, "v" + i));
    }
    out = tmp.resolve("out");
    stack.resetStats();

    CliRun sign =
        CliRun.run(
            new HashMap<>(stack.githubEnv()),
            "sign",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            "--bundle-sidecar",
            "--out",
            out.toString(),
            in.toString());

    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains(FILES + " signed, 0 unchanged");
  }

  @Test
  void signingManyFiles_usesOneCertificate_andOneLogEntryPerFile() {
    SigstoreTestStack.Stats stats = stack.stats();
    assertThat(stats.certificates()).isEqualTo(1);
    assertThat(stats.tokens()).isEqualTo(1);
    assertThat(stats.logEntries()).isEqualTo(FILES);
  }

  @Test
  void verify_rightIdentity_passes_wrongSanOrIssuer_fails() {
    CliRun right = verify(stack.identitySan(), stack.identityIssuer(), out);
    assertThat(right.exitCode()).as(right.all()).isZero();
    assertThat(right.out()).contains(FILES + " verified, 0 rejected");

    CliRun wrongSan =
        verify(
            "https://github.com/octo-org/octo-repo/.github/workflows/release.yml@refs/heads/dev",
            stack.identityIssuer(),
            out);
    assertThat(wrongSan.exitCode()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(wrongSan.out())
        .contains("0 verified, " + FILES + " rejected")
        .contains("does not match the allowed identities");

    CliRun wrongIssuer = verify(stack.identitySan(), "https://accounts.google.com", out);
    assertThat(wrongIssuer.exitCode()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(wrongIssuer.out()).contains("0 verified, " + FILES + " rejected");

    CliRun regex =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--certificate-identity-regexp",
            "https://github\\.com/octo-org/octo-repo/\\.github/workflows/[^/]+@refs/heads/main",
            "--certificate-oidc-issuer",
            stack.identityIssuer(),
            out.toString());
    assertThat(regex.exitCode()).as(regex.all()).isZero();
  }

  @Test
  void verify_anyEditedField_fails() throws Exception {
    Path file = out.resolve("team-0/cm-0.yaml");
    String signed = Files.readString(file);
    List<String[]> edits =
        List.of(
            new String[] {"value: v0", "value: v0x"},
            new String[] {"name: cm-0", "name: cm-0x"},
            new String[] {"namespace: apps", "namespace: other"},
            new String[] {"kind: ConfigMap", "kind: Secret"});
    for (String[] edit : edits) {
      assertThat(signed).contains(edit[0]);
      Files.writeString(file, signed.replace(edit[0], edit[1]));
      CliRun run = verify(stack.identitySan(), stack.identityIssuer(), file);
      assertThat(run.exitCode()).as(edit[1] + "\n" + run.all()).isEqualTo(ExitCode.REJECTED.code());
    }
    // Signature annotations themselves: a flipped character in the certificate.
    String certLine =
        signed
            .lines()
            .filter(l -> l.contains("cosign.sigstore.dev/certificate:"))
            .findFirst()
            .orElseThrow();
    String flipped =
        certLine.substring(0, certLine.length() - 10)
            + (certLine.charAt(certLine.length() - 10) == 'A' ? 'B' : 'A')
            + certLine.substring(certLine.length() - 9);
    Files.writeString(file, signed.replace(certLine, flipped));
    assertThat(verify(stack.identitySan(), stack.identityIssuer(), file).exitCode())
        .isEqualTo(ExitCode.REJECTED.code());
  }

  @Test
  void sidecarBundles_passTheIndependentSigstoreJsVerifier_overTheMessage() throws Exception {
    SignedManifestFormat format =
        new SignedManifestFormat(AnnotationDomain.DEFAULT, new ManifestReader());
    List<Path> signed;
    try (Stream<Path> walk = Files.walk(out)) {
      signed = walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(signed).hasSize(FILES);
    for (Path file : signed.subList(0, 3)) {
      Path sidecar = file.resolveSibling(file.getFileName() + ".sigstore.json");
      assertThat(sidecar).exists();
      ManifestFile manifest = new ManifestReader().read(file, file);
      Path message =
          Files.write(
              tmp.resolve(file.getFileName() + ".message"),
              format.decode(manifest.documents().get(0)).orElseThrow().message());

      SigstoreTestStack.ToolResult ok =
          stack.verifyWithSigstoreJs(sidecar, message, stack.identitySan(), stack.identityIssuer());
      assertThat(ok.exitCode()).as(ok.output()).isZero();
      SigstoreTestStack.ToolResult wrong =
          stack.verifyWithSigstoreJs(
              sidecar,
              message,
              "https://github.com/someone/else/.github/workflows/x.yml@refs/heads/main",
              stack.identityIssuer());
      assertThat(wrong.exitCode()).as(wrong.output()).isNotZero();
    }
  }

  @Test
  void signingAgain_isUnchanged_andAsksOnlyForTheIdentityToken() {
    stack.resetStats();
    CliRun again =
        CliRun.run(
            new HashMap<>(stack.githubEnv()),
            "sign",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            "--out",
            out.toString(),
            in.toString());
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("0 signed, " + FILES + " unchanged");
    // Whether the outputs are this signer's takes its identity (one token for every file); no
    // certificate is asked for and nothing is logged.
    assertThat(stack.stats().tokens()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().logEntries()).isZero();
  }

  private CliRun verify(String san, String issuer, Path target) {
    return CliRun.run(
        Map.of(),
        "verify",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--certificate-identity",
        san,
        "--certificate-oidc-issuer",
        issuer,
        target.toString());
  }
}
