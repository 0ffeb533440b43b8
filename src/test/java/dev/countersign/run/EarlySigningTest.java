package dev.countersign.run;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.pipeline.DirPair;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignProgress;
import dev.countersign.signing.SignatureMaterial;
import dev.countersign.signing.SignerIdentity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * When a run starts its keyless preparation before the repository is opened: only for runs that
 * sign, only from what the work tree itself shows (never through a link), and always undone by
 * close.
 */
class EarlySigningTest {

  @TempDir Path repo;

  private final ManifestReader reader = new ManifestReader();
  private final RecordingSigner signer = new RecordingSigner();
  private final SignJob job =
      new SignJob(
          reader,
          new SignedManifestFormat(AnnotationDomain.DEFAULT, reader),
          () -> signer,
          (kept, message) -> false,
          SignProgress.NONE);

  @Test
  void aManifestInUnsigned_startsTheIdentityPreparation_andCloseCancelsIt() throws Exception {
    write("unsigned/config/limits.yaml");

    try (EarlySigning early = start(RunMode.PUSH, false, false)) {
      assertThat(early.started()).isTrue();
      assertThat(signer.calls).containsExactly("prepareIdentity");
    }
    // Never a certificate from here: the signing step asks for one after the inputs' checks.
    assertThat(signer.calls).containsExactly("prepareIdentity", "cancelPreparation");
  }

  @Test
  void nothingButDotFilesOrNoDirectory_startsNothing() throws Exception {
    write("unsigned/.gitkeep");
    try (EarlySigning early = start(RunMode.PUSH, false, false)) {
      assertThat(early.started()).isFalse();
    }
    Files.delete(repo.resolve("unsigned/.gitkeep"));
    Files.delete(repo.resolve("unsigned"));
    try (EarlySigning early = start(RunMode.PUSH, false, false)) {
      assertThat(early.started()).isFalse();
    }
    assertThat(signer.calls).isEmpty();
  }

  @Test
  void runsThatSignNothingOrWithAKey_startNothing() throws Exception {
    write("unsigned/a.yaml");
    for (EarlySigning early :
        List.of(
            start(RunMode.PUSH, true, false),
            start(RunMode.PUSH, false, true),
            start(RunMode.REFRESH, false, false),
            EarlySigning.start(
                job, false, RunMode.PUSH, false, false, repo, List.of(DirPair.DEFAULT)))) {
      try (early) {
        assertThat(early.started()).isFalse();
      }
    }
    assertThat(signer.calls).isEmpty();
  }

  /** An unsigned directory that is a link is not looked into, wherever it points. */
  @Test
  void unsignedDirectoryALink_isNotFollowed(@TempDir Path elsewhere) throws Exception {
    Files.writeString(elsewhere.resolve("a.yaml"), "kind: ConfigMap\n");
    Files.createSymbolicLink(repo.resolve("unsigned"), elsewhere);
    try (EarlySigning early = start(RunMode.PUSH, false, false)) {
      assertThat(early.started()).isFalse();
    }

    Files.delete(repo.resolve("unsigned"));
    Files.createSymbolicLink(repo.resolve("envs"), elsewhere);
    Files.createDirectories(elsewhere.resolve("unsigned"));
    Files.writeString(elsewhere.resolve("unsigned/b.yaml"), "kind: ConfigMap\n");
    try (EarlySigning early =
        EarlySigning.start(
            job,
            true,
            RunMode.PUSH,
            false,
            false,
            repo,
            List.of(DirPair.parse("envs/unsigned:envs/signed")))) {
      assertThat(early.started()).as("a link on the way to the directory").isFalse();
    }
    assertThat(signer.calls).isEmpty();
  }

  private EarlySigning start(RunMode mode, boolean noSign, boolean dryRun) {
    return EarlySigning.start(job, true, mode, noSign, dryRun, repo, List.of(DirPair.DEFAULT));
  }

  private void write(String path) throws Exception {
    Path file = repo.resolve(path);
    Files.createDirectories(file.getParent());
    Files.writeString(file, "kind: ConfigMap\n");
  }

  /** Records which preparation calls reach the signer; signs nothing. */
  private static final class RecordingSigner implements MessageSigner {
    final List<String> calls = new CopyOnWriteArrayList<>();

    @Override
    public void prepare() {
      calls.add("prepare");
    }

    @Override
    public void prepareIdentity() {
      calls.add("prepareIdentity");
    }

    @Override
    public void cancelPreparation() {
      calls.add("cancelPreparation");
    }

    @Override
    public SignatureMaterial sign(byte[] message) {
      throw new AssertionError("nothing is signed here");
    }

    @Override
    public String signerDescription() {
      return "recording";
    }

    @Override
    public SignerIdentity identity() {
      throw new AssertionError("no identity is asked for here");
    }
  }
}
