package dev.countersign.signing;

import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Finds manifest files: {@code .yaml} and {@code .yml} below a directory, in path order. */
public final class ManifestPaths {

  private ManifestPaths() {}

  public static boolean isManifestName(Path path) {
    String name = path.getFileName().toString();
    return (name.endsWith(".yaml") || name.endsWith(".yml")) && !name.startsWith(".");
  }

  /**
   * Every manifest file below {@code dir} (recursively; hidden directories such as {@code .git}
   * are skipped), sorted. Symbolic links are included so the reader can refuse them by name
   * instead of silently skipping them.
   */
  public static List<Path> under(Path dir) {
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      return walk.filter(p -> !p.equals(dir))
          .filter(p -> !hiddenBelow(dir, p))
          .filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
          .filter(ManifestPaths::isManifestName)
          .sorted()
          .toList();
    } catch (IOException | UncheckedIOException e) {
      throw new UsageProblem("Could not list manifests under " + dir + ": " + e.getMessage());
    }
  }

  /** Expands files and directories into manifest files; a missing path is a usage error. */
  public static List<Path> expand(List<Path> inputs) {
    return inputs.stream()
        .flatMap(
            input -> {
              if (Files.isDirectory(input, LinkOption.NOFOLLOW_LINKS)) {
                return under(input).stream();
              }
              if (!Files.exists(input, LinkOption.NOFOLLOW_LINKS)) {
                throw new UsageProblem(
                    "No such file or directory: " + input, "check the path (it is resolved against " + Path.of("").toAbsolutePath() + ")");
              }
              return Stream.of(input);
            })
        .map(Path::normalize)
        .distinct()
        .toList();
  }

  private static boolean hiddenBelow(Path root, Path path) {
    for (Path part : root.relativize(path)) {
      if (part.toString().startsWith(".")) {
        return true;
      }
    }
    return false;
  }
}
