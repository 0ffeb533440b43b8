package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.AtomicWrites;
import dev.countersign.testing.ChildJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Commands that write files outside git ({@code sign}, {@code keygen}: {@link AtomicWrites}) run as
 * a process and stopped by SIGTERM, as a cancelled job's {@code docker stop} stops them, while
 * their files are written beside the targets: what they leave for the job's next steps. Each child
 * is held by a debugger at its first rename into place, when every file is written beside its
 * target and none is in place yet, so the signal comes at that point every time.
 */
class StoppedCommandTest {

  private static final String PASSWORD = "stopped-command-test";
  private static final Map<String, String> ENV = Map.of("COSIGN_PASSWORD", PASSWORD);
  private static final String FLAGS =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  a: b\n";
  private static final String EGRESS =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: egress\ndata:\n  c: d\n";

  @TempDir Path tmp;
  private Path key;
  private Path manifests;

  @BeforeEach
  void setUp() throws Exception {
    key = tmp.resolve("keys/cosign.key");
    Files.createDirectories(key.getParent());
    KeyPairFiles.generate(
        key, tmp.resolve("keys/cosign.pub"), PASSWORD.toCharArray(), new SecureRandom());
    manifests = Files.createDirectories(tmp.resolve("manifests"));
    Files.writeString(manifests.resolve("flags.yaml"), FLAGS);
    Files.writeString(manifests.resolve("egress.yaml"), EGRESS);
  }

  @Test
  void control_sign_inAProcessLeftToFinish_signsEveryFileInPlace() throws Exception {
    ChildJvm child =
        ChildJvm.start(
            tmp.resolve("child.out"),
            ENV,
            Main.class,
            "sign",
            "--key",
            key.toString(),
            manifests.toString());

    assertThat(child.awaitExit()).as(child.output()).isZero();
    assertThat(child.output()).contains("2 signed, 0 unchanged");
    assertThat(verify(manifests).exitCode()).isZero();
    assertThat(ChildJvm.temporaryFiles(tmp)).isEmpty();
  }

  @Test
  void sign_inAProcessStoppedBySigtermWhileWritingFiles_leavesNoTemporaryFileBehind()
      throws Exception {
    ChildJvm child = heldAtTheFirstRename("sign", "--key", key.toString(), manifests.toString());
    try {
      // Both signed files are written in full beside the manifests: validly signed bytes that a
      // later step committing everything would push.
      assertThat(ChildJvm.temporaryFiles(manifests)).as(child.output()).hasSize(2);

      assertThat(child.stopWithSigterm()).isEqualTo(143);
    } finally {
      child.kill();
    }

    assertThat(ChildJvm.temporaryFiles(tmp)).isEmpty();
    assertThat(manifests.resolve("flags.yaml")).hasContent(FLAGS);
    assertThat(manifests.resolve("egress.yaml")).hasContent(EGRESS);
  }

  @Test
  void control_keygen_inAProcessLeftToFinish_writesBothKeys() throws Exception {
    ChildJvm child =
        ChildJvm.start(
            tmp.resolve("child.out"),
            ENV,
            Main.class,
            "keygen",
            "--output-key-prefix",
            tmp.resolve("new").toString());

    assertThat(child.awaitExit()).as(child.output()).isZero();
    assertThat(tmp.resolve("new.key")).exists();
    assertThat(tmp.resolve("new.pub")).exists();
    assertThat(ChildJvm.temporaryFiles(tmp)).isEmpty();
  }

  @Test
  void keygen_inAProcessStoppedBySigtermWhileWritingFiles_leavesNoTemporaryFileBehind()
      throws Exception {
    ChildJvm child =
        heldAtTheFirstRename("keygen", "--output-key-prefix", tmp.resolve("new").toString());
    try {
      // The encrypted private key among them.
      assertThat(ChildJvm.temporaryFiles(tmp)).as(child.output()).hasSize(2);

      assertThat(child.stopWithSigterm()).isEqualTo(143);
    } finally {
      child.kill();
    }

    assertThat(ChildJvm.temporaryFiles(tmp)).isEmpty();
    assertThat(tmp.resolve("new.key")).doesNotExist();
    assertThat(tmp.resolve("new.pub")).doesNotExist();
  }

  /**
   * countersign with {@code args} in a new JVM working in {@link #tmp}, held where {@link
   * AtomicWrites} first renames a file it wrote into place.
   */
  private ChildJvm heldAtTheFirstRename(String... args) throws Exception {
    return ChildJvm.startHeld(
        tmp.resolve("child.out"),
        ENV,
        "java.nio.file.Files",
        "move",
        AtomicWrites.class,
        Main.class,
        args);
  }

  private CliRun verify(Path directory) {
    return CliRun.run(
        Map.of(),
        "verify",
        "--key",
        tmp.resolve("keys/cosign.pub").toString(),
        directory.toString());
  }
}
