package dev.countersign.workflow;

import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads the workflow files of a repository ({@code .github/workflows/*.yml|yaml}). Symbolic links
 * are not followed; files are read as {@link ConfigurationYaml}, bounded in size, depth and
 * aliases. Stateless.
 */
public final class Workflows {

  public static final Path DIRECTORY = Path.of(".github", "workflows");

  /** Read no further than the parser's limit: a longer file is refused however it decodes. */
  private static final int MAX_BYTES = ConfigurationYaml.MAX_CHARS;

  private Workflows() {}

  /**
   * Every workflow file, sorted by name; a file that is not a readable workflow is an {@link
   * InputProblem}.
   */
  public static List<WorkflowFile> read(Path repositoryRoot) {
    Path dir = repositoryRoot.resolve(DIRECTORY);
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return List.of();
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files =
          list.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml"))
              .filter(p -> Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
              .sorted()
              .toList();
    } catch (IOException e) {
      return List.of();
    }
    List<WorkflowFile> workflows = new ArrayList<>();
    for (Path file : files) {
      workflows.add(readOne(file, repositoryRoot.relativize(file)));
    }
    return workflows;
  }

  /** One workflow file. */
  public static WorkflowFile readOne(Path file, Path displayPath) {
    byte[] bytes = NoFollowPaths.readAtMost(file, displayPath, MAX_BYTES);
    if (bytes.length > MAX_BYTES) {
      throw new InputProblem(
          displayPath,
          0,
          "is larger than " + MAX_BYTES + " bytes",
          "perhaps you should split the workflow");
    }
    return parse(new String(bytes, StandardCharsets.UTF_8), displayPath);
  }

  /**
   * Parses workflow text: one YAML mapping, every scalar as its text ({@link
   * ConfigurationYaml.Scalars#TEXT}); a key twice in one mapping is a problem on its line, as
   * GitHub refuses such a file.
   */
  public static WorkflowFile parse(String text, Path displayPath) {
    List<ManifestDocument> documents =
        ConfigurationYaml.readAll(displayPath, text, ConfigurationYaml.Scalars.TEXT);
    if (documents.size() != 1) {
      throw new InputProblem(
          displayPath,
          documents.size() > 1 ? documents.get(1).line() : 1,
          "is not a workflow (one YAML mapping): it holds " + documents.size() + " documents",
          "perhaps you should remove it from .github/workflows, or join its documents");
    }
    ManifestDocument workflow = documents.get(0);
    return new WorkflowFile(displayPath, workflow.content(), workflow.fieldLines());
  }
}
