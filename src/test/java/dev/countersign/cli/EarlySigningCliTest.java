package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What {@code run} starts before it opens the repository stays with keyless signing: a keyed run
 * that turns out to have nothing to sign never reads its key (nor asks for its password).
 */
class EarlySigningCliTest {

  @TempDir Path tmp;

  @Test
  void keyedRunWithNoManifestUnderUnsigned_isANoOp_andNeverReadsTheKey() throws Exception {
    GitFixture git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main", Map.of("unsigned/NOTES.txt", "not a manifest\n"), Set.of(), "notes only");
    Path ws = git.clone("ws", 0, false);
    Path missingKey = tmp.resolve("no-such.key");

    CliRun run =
        CliRun.run(
            Map.of(), "run", "--repo", ws.toString(), "--no-push", "--key", missingKey.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("No-op: no manifests under unsigned/");
    assertThat(run.all()).doesNotContain("no-such.key");
    assertThat(Files.exists(ws.resolve("unsigned/NOTES.txt"))).isTrue();
  }
}
