package dev.countersign.support;

import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Files the user names by path in an option (a key, a trusted root). Links are followed: the path
 * is the user's own choice, not content under review (that is {@link NoFollowPaths}' job).
 */
public final class NamedFiles {

  private NamedFiles() {}

  /**
   * The bytes of {@code file}, read with a bound.
   *
   * @param kind what the file should be, for messages ({@code "key file"})
   * @param limit the largest size accepted
   * @param hint for a missing or too large file
   * @throws UsageProblem when the file does not exist
   * @throws InputProblem when it cannot be read or is larger than {@code limit}
   */
  public static byte[] read(Path file, String kind, long limit, String hint) {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) (Math.min(limit, Integer.MAX_VALUE - 9L) + 1));
    } catch (NoSuchFileException e) {
      throw new UsageProblem(
          Character.toUpperCase(kind.charAt(0))
              + kind.substring(1)
              + " "
              + file
              + " does not exist",
          hint,
          e);
    } catch (IOException e) {
      throw InputProblem.unreadable(file, e);
    }
    if (bytes.length > limit) {
      throw new InputProblem(
          file, 0, "is too large to be a " + kind + " (more than " + limit + " bytes)", hint);
    }
    return bytes;
  }
}
