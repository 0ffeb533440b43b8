package dev.countersign.support;

import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Writes a set of files all or nothing. {@link #stage} only remembers bytes; {@link #commit} writes
 * each to a temporary file beside its target, then renames them into place, restoring every earlier
 * file if a later step fails. A JVM stopped while it writes (SIGTERM) removes the temporary files
 * and the directories made for them on its way out ({@link TemporaryFiles}). Not thread-safe.
 */
public final class AtomicWrites {

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Map<Path, byte[]> staged = new LinkedHashMap<>();
  private final Set<Path> ownerOnly = new HashSet<>();
  private final Map<Path, Path> roots = new LinkedHashMap<>();

  /**
   * Remembers {@code bytes} for {@code target}, which must lie under {@code root}; nothing below
   * {@code root} on the way to {@code target} may be a symbolic link ({@link NoFollowPaths}).
   */
  public void stage(Path root, Path target, byte[] bytes) {
    Path file = NoFollowPaths.inside(root, target.toAbsolutePath());
    staged.put(file, bytes.clone());
    roots.put(file, root.toAbsolutePath().normalize());
    ownerOnly.remove(file);
  }

  /**
   * As {@link #stage}, for a secret (a private key): its file is owner-only (rw-------) from the
   * moment it is created, whatever the umask or the permissions of the file it replaces.
   */
  public void stageOwnerOnly(Path root, Path target, byte[] bytes) {
    stage(root, target, bytes);
    ownerOnly.add(NoFollowPaths.inside(root, target.toAbsolutePath()));
  }

  /**
   * Writes one file all or nothing, never through a link. A {@code target} inside {@code tree} (a
   * checkout, whose links a pull request author controls) is checked from {@code tree} down; one
   * elsewhere (a place the workflow author chose) from its own directory down.
   *
   * @throws InputProblem when the target or, inside the tree, a directory on the way is a link
   * @throws EnvironmentProblem when it cannot be written; nothing was changed
   */
  public static void writeFile(Path tree, Path target, byte[] bytes) {
    AtomicWrites write = new AtomicWrites();
    write.stage(rootFor(tree, target), target, bytes);
    write.commit();
  }

  /**
   * Checks now what {@link #writeFile} will check when it writes, so a command can refuse before it
   * does anything else.
   *
   * @throws InputProblem when the target or, inside the tree, a directory on the way is a link
   */
  public static void checkFile(Path tree, Path target) {
    NoFollowPaths.inside(rootFor(tree, target), target.toAbsolutePath());
  }

  /** {@code tree} for a target inside it, else the target's own directory. */
  private static Path rootFor(Path tree, Path target) {
    Path base = tree.toAbsolutePath().normalize();
    Path file = target.toAbsolutePath().normalize();
    return file.startsWith(base) && !file.equals(base) ? base : file.getParent();
  }

  public boolean isEmpty() {
    return staged.isEmpty();
  }

  /**
   * Writes every staged file. On failure nothing staged is left changed: replaced files get their
   * old bytes back, new files are removed, temporary files are deleted.
   *
   * @throws EnvironmentProblem naming the file that could not be written
   */
  public void commit() {
    Map<Path, Path> temporaries = new LinkedHashMap<>();
    List<Path> createdDirectories = new ArrayList<>();
    Map<Path, Optional<byte[]>> previous = new LinkedHashMap<>();
    // What a JVM stopped before the end (SIGTERM) removes on its way out.
    List<Path> removedIfStopped = new ArrayList<>();
    Path current = null;
    try {
      for (Map.Entry<Path, byte[]> entry : staged.entrySet()) {
        current = entry.getKey();
        Path parent = current.getParent();
        // Checked again at write time, and parents are created without following links.
        List<Path> made = NoFollowPaths.createParents(roots.get(current), current);
        List<Path> innermostFirst = new ArrayList<>(made);
        Collections.reverse(innermostFirst); // removed innermost first on rollback
        createdDirectories.addAll(0, innermostFirst);
        for (Path directory : made) {
          removedIfStopped.add(directory);
          TemporaryFiles.register(directory);
        }
        Path temporary = createTemporary(parent, current, ownerOnly.contains(current));
        temporaries.put(current, temporary);
        removedIfStopped.add(temporary);
        TemporaryFiles.register(temporary);
        Files.write(temporary, entry.getValue());
      }
      for (Map.Entry<Path, Path> entry : temporaries.entrySet()) {
        current = entry.getKey();
        previous.put(
            current,
            Files.isRegularFile(current, LinkOption.NOFOLLOW_LINKS)
                ? Optional.of(Files.readAllBytes(current))
                : Optional.empty());
        move(entry.getValue(), current);
      }
    } catch (InputProblem linkAppeared) {
      // A link that appeared between stage and commit: undo what was done, then report it.
      rollback(previous, temporaries, createdDirectories);
      throw linkAppeared;
    } catch (IOException e) {
      rollback(previous, temporaries, createdDirectories);
      throw new EnvironmentProblem(
          "Could not write " + current + " (" + e.getMessage() + "); nothing was changed",
          "check that the directory is writable and the disk is not full",
          e);
    } finally {
      TemporaryFiles.unregister(removedIfStopped);
    }
    staged.clear();
    roots.clear();
    ownerOnly.clear();
  }

  /**
   * A new empty file beside {@code target} to write its bytes to. With {@code secret}, owner-only
   * from its creation; else with the permissions {@code target} has or, for a new target, the ones
   * any program's new file gets there (the umask decides), since what is written here (signed
   * manifests, workflows, policies, reports) is read by other tools and users. Created with
   * CREATE_NEW under an unpredictable name, so never an existing file or a link.
   */
  private static Path createTemporary(Path parent, Path target, boolean secret) throws IOException {
    // Asked of the file system, not of the file store: finding a path's store reads the mount
    // table, about 0.1 ms a file, in a loop over thousands of signed files.
    boolean posix = parent.getFileSystem().supportedFileAttributeViews().contains("posix");
    for (int attempt = 1; ; attempt++) {
      Path temporary =
          parent.resolve(".countersign-" + Long.toUnsignedString(RANDOM.nextLong()) + ".tmp");
      try {
        if (secret && posix) {
          Files.createFile(temporary, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
          Files.createFile(temporary);
        }
      } catch (FileAlreadyExistsException taken) {
        if (attempt < 10) {
          continue;
        }
        throw taken;
      }
      if (secret && posix) {
        // The umask may have taken bits off the mode asked for, never added any: set it exactly.
        Files.setPosixFilePermissions(temporary, OWNER_ONLY);
      } else if (posix && Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
        Files.setPosixFilePermissions(
            temporary, Files.getPosixFilePermissions(target, LinkOption.NOFOLLOW_LINKS));
      }
      return temporary;
    }
  }

  private static void move(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      Files.move(from, to, StandardCopyOption.REPLACE_EXISTING);
    }
  }

  private static void rollback(
      Map<Path, Optional<byte[]>> previous,
      Map<Path, Path> temporaries,
      List<Path> createdDirectories) {
    previous.forEach(
        (target, old) -> {
          try {
            if (old.isPresent()) {
              Files.write(target, old.get());
            } else {
              Files.deleteIfExists(target);
            }
          } catch (IOException ignored) {
            // Best effort: the original failure is what the user needs to see.
          }
        });
    for (Path temporary : temporaries.values()) {
      try {
        Files.deleteIfExists(temporary);
      } catch (IOException ignored) {
        // Best effort, as above.
      }
    }
    for (Path dir : createdDirectories) {
      try {
        Files.deleteIfExists(dir);
      } catch (IOException ignored) {
        // Not empty or already gone: leave it.
      }
    }
  }
}
