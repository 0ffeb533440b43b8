package dev.countersign.policy;

import dev.countersign.manifest.AliasExpansion;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.InputProblem;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Parses configuration YAML (policy files, admission policies, parameter objects) into the same
 * plain-value shape as {@link ManifestDocument}, with a source line for every field.
 *
 * <p>This is a small reader for configuration inputs only; manifests themselves are read by {@code
 * manifest.ManifestReader}. Scalars resolve as YAML 1.1 (SnakeYAML's default, like Kubernetes
 * tooling), except timestamps, which stay strings as they do after Kubernetes' JSON round trip.
 */
public final class YamlTree {

  /** Anchors and aliases could otherwise build cycles or exponential trees. */
  private static final int MAX_DEPTH = 64;

  /**
   * The largest configuration file read, in characters: a trust policy or an admission policy is a
   * few KiB, and the API server stores no object over 1.5 MiB. A pull request's versions are read
   * too, and SnakeYAML's cost for one long scalar grows with the square of its length (it copies
   * its read window at every 1 KiB), so the text is refused before it is parsed.
   */
  static final int MAX_CHARS = 1024 * 1024;

  private YamlTree() {}

  /**
   * Parses every non-empty document of {@code text}; {@code file} names it in problems.
   *
   * @throws InputProblem when the text is not valid YAML, is over {@link #MAX_CHARS} characters,
   *     nests too deeply or expands through aliases beyond {@link AliasExpansion#MAX_VALUES}
   */
  public static List<ManifestDocument> parseAll(Path file, String text) {
    if (text.length() > MAX_CHARS) {
      throw new InputProblem(
          file,
          0,
          "is "
              + text.length()
              + " characters, larger than the limit of "
              + MAX_CHARS
              + " for a configuration file",
          "perhaps you should split it into smaller files");
    }
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setMaxAliasesForCollections(50);
    options.setCodePointLimit(MAX_CHARS + 1);
    Yaml yaml = new Yaml(options);
    ScalarConstructor scalars = new ScalarConstructor(options);
    AliasExpansion expansion = new AliasExpansion(file);
    List<ManifestDocument> documents = new ArrayList<>();
    try {
      for (Node root : yaml.composeAll(new StringReader(text))) {
        if (root == null || isNullScalar(root)) {
          continue;
        }
        if (!(root instanceof MappingNode)) {
          throw new InputProblem(
              file,
              line(root),
              "the document is not a YAML mapping",
              "perhaps you should check the indentation of the document");
        }
        Map<String, Integer> lines = new HashMap<>();
        @SuppressWarnings("unchecked")
        Map<String, Object> content =
            (Map<String, Object>) convert(file, root, "", lines, scalars, expansion, 0);
        documents.add(new ManifestDocument(content, line(root), lines));
      }
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      throw new InputProblem(
          file,
          mark == null ? 0 : mark.getLine() + 1,
          "the file is not valid YAML (" + firstLine(e.getProblem()) + ")",
          "perhaps you should run it through a YAML linter",
          e);
    } catch (YAMLException e) {
      throw new InputProblem(
          file, 0, "the file is not valid YAML (" + firstLine(e.getMessage()) + ")", null, e);
    }
    return documents;
  }

  private static Object convert(
      Path file,
      Node node,
      String path,
      Map<String, Integer> lines,
      ScalarConstructor scalars,
      AliasExpansion expansion,
      int depth) {
    expansion.count(node);
    if (depth > MAX_DEPTH) {
      throw new InputProblem(
          file, line(node), "the YAML nests deeper than " + MAX_DEPTH + " levels", null);
    }
    if (!path.isEmpty()) {
      lines.putIfAbsent(path, line(node));
    }
    if (node instanceof MappingNode mapping) {
      Map<String, Object> map = new LinkedHashMap<>();
      for (NodeTuple tuple : mapping.getValue()) {
        Node keyNode = tuple.getKeyNode();
        if (!(keyNode instanceof ScalarNode key)) {
          throw new InputProblem(file, line(keyNode), "a mapping key is not a plain value", null);
        }
        String name = key.getValue();
        if (map.containsKey(name)) {
          throw new InputProblem(
              file,
              line(keyNode),
              "the key \"" + name + "\" appears twice",
              "perhaps you should remove one");
        }
        String child = path.isEmpty() ? name : path + "." + name;
        lines.put(child, line(keyNode));
        map.put(
            name, convert(file, tuple.getValueNode(), child, lines, scalars, expansion, depth + 1));
      }
      return map;
    }
    if (node instanceof SequenceNode sequence) {
      List<Object> list = new ArrayList<>();
      int index = 0;
      for (Node item : sequence.getValue()) {
        String child = path.isEmpty() ? String.valueOf(index) : path + "." + index;
        list.add(convert(file, item, child, lines, scalars, expansion, depth + 1));
        index++;
      }
      return list;
    }
    ScalarNode scalar = (ScalarNode) node;
    if (Tag.TIMESTAMP.equals(scalar.getTag()) || Tag.BINARY.equals(scalar.getTag())) {
      return scalar.getValue();
    }
    Object value = scalars.scalar(scalar);
    if (value instanceof Integer i) {
      return i.longValue();
    }
    if (value instanceof BigInteger big && big.bitLength() < 64) {
      return big.longValue();
    }
    return value;
  }

  private static boolean isNullScalar(Node node) {
    return node instanceof ScalarNode scalar && Tag.NULL.equals(scalar.getTag());
  }

  static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** Exposes SnakeYAML's YAML 1.1 scalar construction (ints, floats, booleans, null). */
  private static final class ScalarConstructor extends SafeConstructor {
    ScalarConstructor(LoaderOptions options) {
      super(options);
    }

    Object scalar(ScalarNode node) {
      return constructObject(node);
    }
  }
}
