package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Rotating the signing key, and creating keys where nobody can type a password. */
class KeyRotationTest {

  private static final Map<String, String> EMPTY_PASSWORD = Map.of("COSIGN_PASSWORD", "");

  @TempDir Path dir;

  @Test
  void signAgainWithANewKey_replacesTheOldKeysSignature_andForceSignsOurOwnAgain()
      throws Exception {
    assertThat(
            CliRun.run(
                    EMPTY_PASSWORD, "keygen", "--output-key-prefix", dir.resolve("old").toString())
                .exitCode())
        .isZero();
    assertThat(
            CliRun.run(
                    EMPTY_PASSWORD, "keygen", "--output-key-prefix", dir.resolve("new").toString())
                .exitCode())
        .isZero();
    Path manifest = dir.resolve("cm.yaml");
    Files.writeString(
        manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  a: b\n");
    assertThat(
            CliRun.run(
                    EMPTY_PASSWORD,
                    "sign",
                    "--key",
                    dir.resolve("old.key").toString(),
                    manifest.toString())
                .exitCode())
        .isZero();

    // The old key's signature covers the content but is not the new signer's: it is replaced.
    CliRun rotated =
        CliRun.run(
            EMPTY_PASSWORD,
            "sign",
            "--key",
            dir.resolve("new.key").toString(),
            manifest.toString());

    assertThat(rotated.exitCode()).as(rotated.all()).isZero();
    assertThat(rotated.out()).contains("1 signed, 0 unchanged");
    assertThat(verify("new.pub", manifest)).isZero();
    assertThat(verify("old.pub", manifest)).isEqualTo(1);

    CliRun unchanged =
        CliRun.run(
            EMPTY_PASSWORD,
            "sign",
            "--key",
            dir.resolve("new.key").toString(),
            manifest.toString());
    assertThat(unchanged.exitCode()).isZero();
    assertThat(unchanged.out())
        .contains(
            "0 signed, 1 unchanged (already signed by this signer for this content; --force signs"
                + " them again");

    CliRun forced =
        CliRun.run(
            EMPTY_PASSWORD,
            "sign",
            "--force",
            "--key",
            dir.resolve("new.key").toString(),
            manifest.toString());
    assertThat(forced.exitCode()).as(forced.all()).isZero();
    assertThat(forced.out()).contains("1 signed, 0 unchanged");
    assertThat(verify("new.pub", manifest)).isZero();
  }

  @Test
  void keygen_withoutATerminalOrPassword_refuses_unlessNoPasswordIsExplicit() {
    CliRun refused =
        CliRun.run(Map.of(), "keygen", "--output-key-prefix", dir.resolve("k").toString());

    assertThat(refused.exitCode()).isEqualTo(2);
    assertThat(refused.err())
        .contains("COSIGN_PASSWORD is not set and there is no terminal", "--no-password");
    assertThat(dir.resolve("k.key")).doesNotExist();

    CliRun explicit =
        CliRun.run(
            Map.of(),
            "keygen",
            "--no-password",
            "--output-key-prefix",
            dir.resolve("k").toString());
    assertThat(explicit.exitCode()).as(explicit.all()).isZero();
    assertThat(dir.resolve("k.key")).isRegularFile();
    // The key really has the empty password.
    Path manifest = dir.resolve("x.yaml");
    try {
      Files.writeString(manifest, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    assertThat(
            CliRun.run(
                    EMPTY_PASSWORD,
                    "sign",
                    "--key",
                    dir.resolve("k.key").toString(),
                    manifest.toString())
                .exitCode())
        .isZero();
  }

  private int verify(String publicKey, Path manifest) {
    return CliRun.run(
            Map.of(), "verify", "--key", dir.resolve(publicKey).toString(), manifest.toString())
        .exitCode();
  }
}
