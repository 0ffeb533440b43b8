package dev.countersign.support;

import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.Channels;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Resolving paths for writing without following symbolic links: every component from a root down to
 * the target is looked at with {@code lstat}, and a link (or a file where a directory must be)
 * anywhere below the root is refused before anything is written. The root itself may be reached
 * through links (a workspace under {@code /tmp} on macOS); nothing below it may.
 *
 * <p>This is how every writer (the git work tree, signed files written by {@code sign}) makes sure
 * that content an author controls cannot redirect a write outside the tree it belongs to.
 */
public final class NoFollowPaths {

  private NoFollowPaths() {}

  /**
   * {@code target} as an absolute path, after checking that it lies under {@code root} and that no
   * existing component below {@code root}, the target included, is a symbolic link, and no parent
   * is a non-directory.
   *
   * @throws InputProblem naming the offending component relative to {@code root}
   * @throws InternalProblem when {@code target} is not under {@code root} (a bug: callers build
   *     targets from checked relative paths)
   */
  public static Path inside(Path root, Path target) {
    Path base = root.toAbsolutePath().normalize();
    Path file = base.resolve(target).normalize();
    if (!file.startsWith(base) || file.equals(base)) {
      throw new InternalProblem("Refusing to write outside " + base + ": " + target);
    }
    Path current = base;
    for (Path segment : base.relativize(file)) {
      current = current.resolve(segment);
      Optional<BasicFileAttributes> attributes = lstat(current);
      if (attributes.isEmpty()) {
        break;
      }
      if (attributes.get().isSymbolicLink()) {
        throw new InputProblem(
            base.relativize(current),
            0,
            "is a symbolic link; countersign never writes through links",
            "perhaps you should replace the link with the directory or file it points to");
      }
      if (!current.equals(file) && !attributes.get().isDirectory()) {
        throw new InputProblem(
            base.relativize(current),
            0,
            "is not a directory, but " + base.relativize(file) + " is to be written below it",
            "perhaps you should remove or rename it");
      }
    }
    return file;
  }

  /**
   * Creates the missing parents of {@code file} below {@code root}, one directory at a time and
   * without following links (checked with {@link #inside} first).
   *
   * @return the directories created, outermost first
   */
  public static List<Path> createParents(Path root, Path file) throws IOException {
    Path checked = inside(root, file);
    Path base = root.toAbsolutePath().normalize();
    List<Path> created = new ArrayList<>();
    if (lstat(base).isEmpty()) {
      // The root is the caller's choice (an --out directory); above it, links are allowed.
      Files.createDirectories(base);
      created.add(base);
    }
    Path current = base;
    Path parent = checked.getParent();
    for (Path segment : base.relativize(parent)) {
      current = current.resolve(segment);
      if (lstat(current).isEmpty()) {
        // Fails rather than follows if something appeared here since the check.
        Files.createDirectory(current);
        created.add(current);
      }
    }
    return created;
  }

  /**
   * At most {@code limit + 1} bytes of the regular file {@code file}, opened without following a
   * link and read with a bound (it may have been swapped or grown since it was looked at); a result
   * longer than {@code limit} means the file is too large, which the caller words.
   *
   * @param displayPath how problems name the file
   * @throws InputProblem when it cannot be opened or read (a link, permissions)
   */
  public static byte[] readAtMost(Path file, Path displayPath, long limit) {
    try (InputStream in =
        Channels.newInputStream(
            Files.newByteChannel(
                file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
      return in.readNBytes((int) (Math.min(limit, Integer.MAX_VALUE - 9L) + 1));
    } catch (IOException e) {
      throw InputProblem.unreadable(displayPath, e);
    }
  }

  /**
   * The attributes of {@code path} itself, links not followed ({@code lstat}); empty when nothing
   * is there.
   *
   * @throws dev.countersign.support.problems.EnvironmentProblem when it cannot be inspected
   */
  public static Optional<BasicFileAttributes> lstat(Path path) {
    try {
      return Optional.of(
          Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not inspect " + path + ": " + e.getMessage(),
          "perhaps you should check that the directory is readable",
          e);
    }
  }
}
