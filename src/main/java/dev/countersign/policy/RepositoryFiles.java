package dev.countersign.policy;

import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Read-only files of one version of the repository, by repository-relative path: the work tree, or
 * a commit's tree read from git objects (the base branch whose rules judge a pull request). The
 * trust policy, its key files and the governance policies are read through this ({@link
 * #readRuleFile}), so the gate can take its rules from a commit the pull request cannot change.
 */
public interface RepositoryFiles {

  /** How findings and messages name this version, e.g. "the work tree" or "base commit 1a2b3c". */
  String describe();

  /**
   * The bytes of the regular file at {@code relative}, if there is one (links are not followed).
   */
  Optional<byte[]> read(Path relative);

  /**
   * A file of the gate's rules (the trust policy, a key file, a governance policy or parameter
   * file) at {@code relative}, if there is a regular file there: as {@link #read}, but no more than
   * {@link ConfigurationYaml#MAX_BYTES} bytes of it are read or held, since configuration over that
   * is refused however it decodes (a pull request's own versions are read too). Signed manifests
   * are read with {@link #read}: the gate judges their size by its own rule.
   *
   * @throws InputProblem naming the file ({@link ConfigurationYaml#tooLarge}) when it holds more
   */
  Optional<byte[]> readRuleFile(Path relative);

  /**
   * The regular files at {@code relative}, by repository-relative path, sorted, none of them read:
   * {@code relative} itself when it is one, every one under it, recursively, when it is a
   * directory, none otherwise. Links are neither followed nor listed.
   */
  SortedSet<Path> filesAt(Path relative);

  /** True when {@code relative} is a directory in this version. */
  boolean isDirectory(Path relative);

  /**
   * Every regular file under the directory {@code relative}, recursively, by repository-relative
   * path, sorted. Links are neither followed nor listed.
   */
  SortedMap<Path, byte[]> filesUnder(Path relative);

  /**
   * {@code relative}, normalised, as a path inside the repository: what every version looks up.
   *
   * @throws InputProblem when it is absolute, leaves the repository or names its root
   */
  static Path insideRepository(Path relative) {
    Path normal = relative.normalize();
    if (normal.isAbsolute() || normal.startsWith("..")) {
      throw new InputProblem(
          relative,
          0,
          "is outside the repository",
          "perhaps you should use a repository-relative path");
    }
    if (normal.toString().isEmpty()) {
      throw new InputProblem(
          relative,
          0,
          "is the repository root",
          "perhaps you should name a file or directory inside it");
    }
    return normal;
  }

  /** The work tree at {@code root}. */
  static RepositoryFiles workTree(Path root) {
    return new WorkTree(root.toAbsolutePath().normalize());
  }

  /** The work tree: files on disk below the root; never follows a link. */
  record WorkTree(Path root) implements RepositoryFiles {

    @Override
    public String describe() {
      return "the work tree";
    }

    @Override
    public Optional<byte[]> read(Path relative) {
      Path file = inside(relative);
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      try {
        return Optional.of(Files.readAllBytes(file));
      } catch (IOException e) {
        throw new InputProblem(
            relative, 0, "cannot be read (" + e.getClass().getSimpleName() + ")", null, e);
      }
    }

    @Override
    public Optional<byte[]> readRuleFile(Path relative) {
      Path file = inside(relative);
      if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
        return Optional.empty();
      }
      // Bounded as it is read: the file may have grown since it was looked at.
      byte[] bytes = NoFollowPaths.readAtMost(file, relative, ConfigurationYaml.MAX_BYTES);
      if (bytes.length > ConfigurationYaml.MAX_BYTES) {
        throw ConfigurationYaml.tooLarge(relative);
      }
      return Optional.of(bytes);
    }

    @Override
    public SortedSet<Path> filesAt(Path relative) {
      SortedSet<Path> files = new TreeSet<>();
      Path target = inside(relative);
      Optional<BasicFileAttributes> attributes = NoFollowPaths.lstat(target);
      if (attributes.isPresent() && attributes.get().isRegularFile()) {
        files.add(root.relativize(target));
      } else if (attributes.isPresent() && attributes.get().isDirectory()) {
        try (Stream<Path> walk = Files.walk(target)) {
          walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
              .forEach(p -> files.add(root.relativize(p)));
        } catch (IOException | UncheckedIOException e) {
          throw new InputProblem(
              relative, 0, "cannot list the directory (" + e.getMessage() + ")", null, e);
        }
      }
      return files;
    }

    @Override
    public boolean isDirectory(Path relative) {
      return Files.isDirectory(inside(relative), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public SortedMap<Path, byte[]> filesUnder(Path relative) {
      SortedMap<Path, byte[]> files = new TreeMap<>();
      Path dir = inside(relative);
      if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
        return files;
      }
      try (Stream<Path> walk = Files.walk(dir)) {
        for (Path file :
            walk.filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)).toList()) {
          Path rel = root.relativize(file);
          files.put(rel, Files.readAllBytes(file));
        }
        return files;
      } catch (IOException e) {
        throw new InputProblem(
            relative, 0, "cannot list the directory (" + e.getMessage() + ")", null, e);
      }
    }

    /**
     * {@code relative} under the root, reached without following a link: a link anywhere on the way
     * (a linked {@code .countersign} directory, say) is refused, not read through.
     */
    private Path inside(Path relative) {
      return NoFollowPaths.inside(root, root.resolve(RepositoryFiles.insideRepository(relative)));
    }
  }
}
