package dev.countersign.run;

import dev.countersign.pipeline.DirPair;
import dev.countersign.signing.SignJob;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.CountersignException;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;

/**
 * Starts what keyless signing needs short of a certificate (trust material, key, identity token) on
 * background threads as soon as a run may sign, before the repository is even opened: on a
 * one-manifest run the token and certificate round trips are most of the wait, and opening the
 * repository and planning the commit take long enough to hide the first of them.
 *
 * <p>Nothing is certified here: the signing step asks Fulcio only once the inputs have passed their
 * checks ({@link SignJob#prepareSigner}). Whether to start at all is a hint from the work tree
 * alone (no git object is read, no link followed); what is signed is decided by the plan, from the
 * commit. {@link #close} stops what the run turned out not to need.
 */
public record EarlySigning(SignJob job, boolean started) implements AutoCloseable {

  /**
   * Starts the preparation when the run signs keylessly ({@code mode} not a refresh, neither {@code
   * noSign} nor {@code dryRun}) and some unsigned directory of {@code workTree} holds an entry.
   *
   * @param keyless the job's signer is keyless; a keyed one has nothing to fetch, and making it
   *     early would read its key and may ask for its password in a run that signs nothing
   */
  public static EarlySigning start(
      SignJob job,
      boolean keyless,
      RunMode mode,
      boolean noSign,
      boolean dryRun,
      Path workTree,
      List<DirPair> dirs) {
    boolean start =
        keyless
            && !noSign
            && !dryRun
            && mode != RunMode.REFRESH
            && workTreeMayHaveWork(workTree, dirs);
    if (start) {
      job.prepareSignerIdentity();
    }
    return new EarlySigning(job, start);
  }

  /** Stops a preparation still under way; see {@link SignJob#cancelPreparation}. */
  @Override
  public void close() {
    if (started) {
      job.cancelPreparation();
    }
  }

  /**
   * Some unsigned directory is a directory (no link on the way) holding an entry that is not a dot
   * file. Cheap on purpose: jgit's first reads cost a noticeable part of a cold start.
   */
  public static boolean workTreeMayHaveWork(Path root, List<DirPair> dirs) {
    for (DirPair pair : dirs) {
      try {
        Path dir = NoFollowPaths.inside(root, Path.of(pair.from()));
        if (NoFollowPaths.lstat(dir).filter(BasicFileAttributes::isDirectory).isEmpty()) {
          continue;
        }
        try (DirectoryStream<Path> entries =
            Files.newDirectoryStream(
                dir, entry -> !entry.getFileName().toString().startsWith("."))) {
          if (entries.iterator().hasNext()) {
            return true;
          }
        }
      } catch (IOException | CountersignException notAHint) {
        // The plan meets it again and reports it properly.
      }
    }
    return false;
  }
}
