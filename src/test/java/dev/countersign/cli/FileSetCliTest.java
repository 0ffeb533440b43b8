package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sign} and {@code verify} on directories use the same file set as {@code run} and {@code
 * check} (any-case extensions, dot-files included) and never follow a link below the directory,
 * neither to read nor to write.
 */
class FileSetCliTest {

  private static final String CONFIG_MAP =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  a: b\n";

  @TempDir Path tmp;
  private Path key;
  private Path outside;

  @BeforeEach
  void setUp() throws Exception {
    key = tmp.resolve("k.key");
    KeyPairFiles.generate(key, tmp.resolve("k.pub"), new char[0], new SecureRandom());
    outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("victim.yaml"), "precious: true\n");
  }

  @Test
  void signAndVerifyADirectory_coverDotFilesAndAnyCaseExtensions() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    write(in.resolve(".hidden/a.yaml"), "a");
    write(in.resolve(".b.YAML"), "b");
    write(in.resolve("c.Yml"), "c");
    Path out = tmp.resolve("out");

    CliRun sign = sign("--out", out.toString(), in.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    assertThat(sign.out()).contains("3 signed, 0 unchanged");
    CliRun verify =
        CliRun.run(Map.of(), "verify", "--key", tmp.resolve("k.pub").toString(), out.toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
    assertThat(verify.out()).contains("3 verified, 0 rejected");
  }

  @Test
  void signOutDirectoryWithALinkedSubdirectory_exits6_andWritesNothingOutside() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    write(in.resolve("team/a.yaml"), "a");
    Path out = Files.createDirectories(tmp.resolve("out"));
    Files.createSymbolicLink(out.resolve("team"), outside);

    CliRun sign = sign("--out", out.toString(), in.toString());

    assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(sign.err()).contains("team: is a symbolic link");
    try (var files = Files.list(outside)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("victim.yaml");
    }
    assertThat(Files.readString(outside.resolve("victim.yaml"))).isEqualTo("precious: true\n");
  }

  @Test
  void signOrVerifyADirectoryHoldingALink_exits6NamingIt() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    write(in.resolve("a.yaml"), "a");
    Files.createSymbolicLink(in.resolve("linked"), outside);

    CliRun sign = sign(in.toString());
    CliRun verify =
        CliRun.run(Map.of(), "verify", "--key", tmp.resolve("k.pub").toString(), in.toString());

    for (CliRun run : new CliRun[] {sign, verify}) {
      assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
      assertThat(run.err()).contains("linked: is a symbolic link");
    }
    assertThat(Files.readString(in.resolve("a.yaml"))).doesNotContain("cosign.sigstore.dev");
  }

  @Test
  void signAKindList_exits6_asCheckRejectsIt() throws Exception {
    Path in = Files.createDirectories(tmp.resolve("in"));
    Files.writeString(in.resolve("list.yaml"), "apiVersion: v1\nkind: ConfigMapList\nitems: []\n");

    CliRun sign = sign(in.toString());

    assertThat(sign.exitCode()).as(sign.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(sign.err())
        .contains(
            "list.yaml:1: is a ConfigMapList holding 0 objects, but countersign signs one object"
                + " per document");
  }

  private CliRun sign(String... args) {
    String[] all = new String[args.length + 3];
    all[0] = "sign";
    all[1] = "--key";
    all[2] = key.toString();
    System.arraycopy(args, 0, all, 3, args.length);
    return CliRun.run(Map.of("COSIGN_PASSWORD", ""), all);
  }

  private static void write(Path file, String name) throws Exception {
    Files.createDirectories(file.getParent());
    Files.writeString(file, String.format(CONFIG_MAP, name));
  }
}
