package dev.countersign.workflow;

import dev.countersign.manifest.AliasExpansion;
import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads the workflow files of a repository ({@code .github/workflows/*.yml|yaml}). Symbolic links
 * are not followed; files are bounded in size, depth and aliases like manifests are. Stateless.
 */
public final class Workflows {

  public static final Path DIRECTORY = Path.of(".github", "workflows");

  private static final int MAX_BYTES = 1024 * 1024;
  private static final int MAX_DEPTH = 64;

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

  /** Parses workflow text. */
  public static WorkflowFile parse(String text, Path displayPath) {
    LoaderOptions options = new LoaderOptions();
    options.setMaxAliasesForCollections(50);
    options.setAllowDuplicateKeys(false);
    options.setCodePointLimit(MAX_BYTES * 2);
    Node node;
    try {
      node = new Yaml(options).compose(new StringReader(text));
    } catch (RuntimeException e) {
      throw new InputProblem(
          displayPath,
          0,
          "is not valid YAML: " + firstLine(e.getMessage()),
          "perhaps you should fix the syntax (quote values that contain \": \")",
          e);
    }
    if (!(node instanceof MappingNode)) {
      throw new InputProblem(
          displayPath,
          1,
          "is not a workflow (a YAML mapping)",
          "perhaps you should remove it from .github/workflows");
    }
    Map<String, Integer> lines = new HashMap<>();
    @SuppressWarnings("unchecked")
    Map<String, Object> root =
        (Map<String, Object>)
            convert(node, "", lines, 0, displayPath, new AliasExpansion(displayPath));
    return new WorkflowFile(displayPath, root, lines);
  }

  private static Object convert(
      Node node,
      String path,
      Map<String, Integer> lines,
      int depth,
      Path displayPath,
      AliasExpansion expansion) {
    expansion.count(node);
    if (depth > MAX_DEPTH) {
      throw new InputProblem(
          displayPath,
          node.getStartMark().getLine() + 1,
          "is nested too deeply",
          "perhaps you should simplify it");
    }
    if (node instanceof ScalarNode scalar) {
      return scalar.getValue();
    }
    if (node instanceof SequenceNode sequence) {
      List<Object> list = new ArrayList<>();
      int i = 0;
      for (Node item : sequence.getValue()) {
        String itemPath = join(path, Integer.toString(i++));
        lines.putIfAbsent(itemPath, item.getStartMark().getLine() + 1);
        list.add(convert(item, itemPath, lines, depth + 1, displayPath, expansion));
      }
      return Collections.unmodifiableList(list);
    }
    Map<String, Object> map = new LinkedHashMap<>();
    for (NodeTuple tuple : ((MappingNode) node).getValue()) {
      if (!(tuple.getKeyNode() instanceof ScalarNode key)) {
        continue;
      }
      String fieldPath = join(path, key.getValue());
      lines.put(fieldPath, key.getStartMark().getLine() + 1);
      map.put(
          key.getValue(),
          convert(tuple.getValueNode(), fieldPath, lines, depth + 1, displayPath, expansion));
    }
    return Collections.unmodifiableMap(map);
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  private static String firstLine(String message) {
    return message == null ? "" : message.lines().findFirst().orElse("").strip();
  }
}
