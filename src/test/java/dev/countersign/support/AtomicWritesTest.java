package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@link AtomicWrites} leaves on disk besides the bytes: the files sign, init, publish's
 * emitted manifest and the SARIF report write are read by other tools and users, so they get the
 * permissions any program's new file gets there (the process umask decides, as for the control file
 * each test makes), and a replaced file keeps its own; a secret (keygen's private key) is
 * owner-only.
 */
class AtomicWritesTest {

  @TempDir Path dir;

  @Test
  void writeFile_newFile_hasItsBytesAndThePermissionsOfAnyNewFileThere() throws IOException {
    Path control = Files.createFile(dir.resolve("control.yaml"));

    AtomicWrites.writeFile(dir, dir.resolve("sub/new.yaml"), bytes("kind: ConfigMap\n"));

    assertThat(dir.resolve("sub/new.yaml")).hasContent("kind: ConfigMap\n");
    assertThat(Files.getPosixFilePermissions(dir.resolve("sub/new.yaml")))
        .isEqualTo(Files.getPosixFilePermissions(control));
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void writeFile_replacingAFile_keepsItsPermissions() throws IOException {
    Path target = Files.writeString(dir.resolve("signed.yaml"), "old\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r-----"));

    AtomicWrites.writeFile(dir, target, bytes("new\n"));

    assertThat(target).hasContent("new\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-r-----");
    assertThat(leftovers()).isEmpty();
  }

  @Test
  void stageOwnerOnly_replacingAReadableFile_isOwnerOnly() throws IOException {
    Path target = Files.writeString(dir.resolve("cosign.key"), "old\n");
    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));

    AtomicWrites writes = new AtomicWrites();
    writes.stageOwnerOnly(dir, target, bytes("secret\n"));
    writes.commit();

    assertThat(target).hasContent("secret\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");
  }

  private Stream<Path> leftovers() throws IOException {
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk
          .filter(p -> p.getFileName().toString().startsWith(".countersign-"))
          .toList()
          .stream();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
