package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.PublicKeys;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code keygen}: both files or neither, never through a link, replaced only with --force. */
class KeygenCommandTest {

  private static final Map<String, String> PASSWORD = Map.of("COSIGN_PASSWORD", "pw");

  @TempDir Path dir;

  private CliRun keygen(String... extra) {
    String[] args = new String[extra.length + 3];
    args[0] = "keygen";
    args[1] = "--output-key-prefix";
    args[2] = dir.resolve("k").toString();
    System.arraycopy(extra, 0, args, 3, extra.length);
    return CliRun.run(PASSWORD, args);
  }

  @Test
  void newPair_privateKeyOwnerOnly_publicKeyReadable() throws Exception {
    CliRun run = keygen();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("k.key"))))
        .isEqualTo("rw-------");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("k.pub"))))
        .isEqualTo("rw-r--r--");
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsOnly("k.key", "k.pub");
    }
  }

  @Test
  void existingPair_withoutForce_isKept() throws Exception {
    assertThat(keygen().exitCode()).isZero();
    byte[] before = Files.readAllBytes(dir.resolve("k.key"));

    CliRun again = keygen();

    assertThat(again.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(again.err()).contains("Refusing to overwrite", "--force");
    assertThat(Files.readAllBytes(dir.resolve("k.key"))).isEqualTo(before);
  }

  @Test
  void existingPair_withForce_isReplacedByANewPair() throws Exception {
    assertThat(keygen().exitCode()).isZero();
    String before = PublicKeys.fingerprint(PublicKeys.read(dir.resolve("k.pub")));

    CliRun forced = keygen("--force");

    assertThat(forced.exitCode()).as(forced.all()).isZero();
    String after = PublicKeys.fingerprint(PublicKeys.read(dir.resolve("k.pub")));
    assertThat(after).isNotEqualTo(before);
    assertThat(forced.out()).contains(after);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("k.key"))))
        .isEqualTo("rw-------");
  }

  @Test
  void danglingLinkAtThePublicKeyPath_writesNothing_notEvenThePrivateKey() throws Exception {
    Files.createSymbolicLink(dir.resolve("k.pub"), dir.resolve("elsewhere.pub"));

    CliRun run = keygen();
    CliRun forced = keygen("--force");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("Refusing to overwrite", "k.pub");
    assertThat(forced.exitCode()).as(forced.all()).isNotZero();
    assertThat(forced.err()).contains("k.pub", "link");
    assertThat(dir.resolve("k.key")).doesNotExist();
    assertThat(dir.resolve("elsewhere.pub")).doesNotExist();
  }

  @Test
  void linkAtThePrivateKeyPath_isNeverWrittenThrough_evenWithForce() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "not a key\n");
    Files.createSymbolicLink(dir.resolve("k.key"), victim);

    CliRun run = keygen("--force");

    assertThat(run.exitCode()).as(run.all()).isNotZero();
    assertThat(run.err()).contains("k.key", "link");
    assertThat(Files.readString(victim)).isEqualTo("not a key\n");
    assertThat(Files.isSymbolicLink(dir.resolve("k.key"))).isTrue();
    assertThat(dir.resolve("k.pub")).doesNotExist();
  }

  @Test
  void linkToAnExistingFileAtThePrivateKeyPath_withoutForce_isRefusedAsExisting() throws Exception {
    Path victim = Files.writeString(dir.resolve("victim"), "not a key\n");
    Files.createSymbolicLink(dir.resolve("k.key"), victim);

    CliRun run = keygen();

    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(Files.readString(victim)).isEqualTo("not a key\n");
    assertThat(Files.exists(dir.resolve("k.pub"), LinkOption.NOFOLLOW_LINKS)).isFalse();
  }
}
