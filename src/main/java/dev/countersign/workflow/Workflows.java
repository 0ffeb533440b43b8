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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
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
   * The workflow files of a repository, each read on its own: one that cannot be read does not hide
   * the others.
   *
   * @param workflows the readable ones, sorted by name
   * @param unreadable a problem naming each file (and line) that is not a readable workflow: not
   *     valid YAML, too large, a symbolic link, not one mapping
   */
  public record Directory(List<WorkflowFile> workflows, List<InputProblem> unreadable) {
    public Directory {
      workflows = List.copyOf(workflows);
      unreadable = List.copyOf(unreadable);
    }
  }

  /**
   * Every {@code *.yml} and {@code *.yaml} entry of {@code .github/workflows} under {@code
   * repositoryRoot}, sorted by name; none when that is not a directory (a link to one is not
   * followed) or cannot be listed. A subdirectory is not a workflow; a link is listed and is an
   * unreadable one (it is never followed).
   */
  public static Directory read(Path repositoryRoot) {
    Path dir = repositoryRoot.resolve(DIRECTORY);
    if (!Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)) {
      return new Directory(List.of(), List.of());
    }
    List<Path> files;
    try (Stream<Path> list = Files.list(dir)) {
      files =
          list.filter(p -> p.getFileName().toString().matches(".*\\.ya?ml"))
              .filter(p -> !Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS))
              .sorted()
              .toList();
    } catch (IOException e) {
      return new Directory(List.of(), List.of());
    }
    List<WorkflowFile> workflows = new ArrayList<>();
    List<InputProblem> unreadable = new ArrayList<>();
    for (Path file : files) {
      try {
        workflows.add(readOne(file, repositoryRoot.relativize(file)));
      } catch (InputProblem problem) {
        unreadable.add(problem);
      }
    }
    return new Directory(workflows, unreadable);
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
    refuseJobIdsDifferingOnlyInCase(workflow, displayPath);
    return new WorkflowFile(displayPath, workflow.content(), workflow.fieldLines());
  }

  /**
   * GitHub compares job ids without regard to case (they name the job in {@code needs} and in
   * expressions) and refuses a workflow with two of them; reading both would check a workflow that
   * never runs.
   */
  private static void refuseJobIdsDifferingOnlyInCase(ManifestDocument workflow, Path displayPath) {
    if (!(workflow.content().get("jobs") instanceof Map<?, ?> jobs)) {
      return;
    }
    Map<String, String> firstByFoldedId = new HashMap<>();
    for (Object id : jobs.keySet()) {
      String jobId = (String) id;
      String first = firstByFoldedId.putIfAbsent(jobId.toLowerCase(Locale.ROOT), jobId);
      if (first != null) {
        throw new InputProblem(
            displayPath,
            workflow.fieldLines().getOrDefault("jobs." + jobId, 1),
            "the job id \""
                + jobId
                + "\" differs from \""
                + first
                + "\" only in case, and GitHub refuses that",
            "perhaps you should rename one");
      }
    }
  }
}
