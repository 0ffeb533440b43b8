package dev.countersign.manifest;

import dev.countersign.support.problems.InputProblem;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
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
 * Reads configuration YAML (the trust policy, admission policies, parameter files, GitHub workflow
 * files) into plain values with the source line of every field: the one place for its limits (size,
 * depth, alias expansion) and its strictness.
 *
 * <p>Manifests are not read here: {@link ManifestReader} reads them as Kubernetes does. This reader
 * is stricter than that: a key that appears twice in one mapping, or a key that is not a plain
 * value, is refused rather than resolved, because a reviewer reads the first value while a parser
 * may take the last (and GitHub refuses both in a workflow, so such a file never runs).
 *
 * <p>Maps and lists are unmodifiable; map order is source order.
 */
public final class ConfigurationYaml {

  /**
   * The largest text read, in characters: a trust policy, an admission policy or a workflow is a
   * few KiB, and the API server stores no object over 1.5 MiB. A pull request's versions are read
   * too, and SnakeYAML's cost for one long scalar grows with the square of its length (it copies
   * its read window at every 1 KiB), so the text is refused before it is parsed.
   */
  public static final int MAX_CHARS = 1024 * 1024;

  /**
   * The most bytes worth reading of a configuration file: UTF-8 takes at most three bytes for a
   * character (a pair of surrogates, two characters, for four), so a longer file is over {@link
   * #MAX_CHARS} characters however it decodes, and is refused ({@link #tooLarge}) unread.
   */
  public static final int MAX_BYTES = 3 * MAX_CHARS;

  /** Aliases to collections can otherwise nest a tree deeper than its text does. */
  static final int MAX_DEPTH = 64;

  private static final String SPLIT_IT = "perhaps you should split it into smaller files";

  /** How scalars become values; keys are always their text. */
  public enum Scalars {
    /**
     * YAML 1.1 as SnakeYAML resolves it, as Kubernetes tooling does: integers as {@code Long} (a
     * {@code BigInteger} beyond), floats, booleans, null; timestamps and binary stay their text, as
     * they do after Kubernetes' JSON round trip.
     */
    YAML_1_1,
    /**
     * Every scalar as its text, a {@code String} ({@code ""} when empty): how GitHub reads a
     * workflow, so {@code on} stays a key and {@code true} a word.
     */
    TEXT
  }

  private ConfigurationYaml() {}

  /**
   * Every non-empty document of {@code text}, each a mapping; {@code file} names it in problems.
   *
   * @throws InputProblem naming the line when the text is over {@link #MAX_CHARS} characters, is
   *     not valid YAML, holds a document that is not a mapping, a key twice in one mapping or a key
   *     that is not a plain value, nests deeper than {@link #MAX_DEPTH} levels or expands through
   *     aliases beyond {@link AliasExpansion#MAX_VALUES}
   */
  public static List<ManifestDocument> readAll(Path file, String text, Scalars scalars) {
    if (text.length() > MAX_CHARS) {
      throw new InputProblem(
          file,
          0,
          "is "
              + text.length()
              + " characters, larger than the limit of "
              + MAX_CHARS
              + " for a configuration file",
          SPLIT_IT);
    }
    LoaderOptions options = new LoaderOptions();
    options.setMaxAliasesForCollections(50);
    options.setCodePointLimit(MAX_CHARS + 1);
    Conversion conversion =
        new Conversion(
            file,
            scalars == Scalars.TEXT ? ScalarNode::getValue : new TypedScalars(options)::value);
    List<ManifestDocument> documents = new ArrayList<>();
    try {
      for (Node root : new Yaml(options).composeAll(new StringReader(text))) {
        if (root == null || root instanceof ScalarNode scalar && Tag.NULL.equals(scalar.getTag())) {
          continue;
        }
        if (!(root instanceof MappingNode)) {
          throw new InputProblem(
              file,
              line(root),
              "the document is not a YAML mapping",
              "perhaps you should check the indentation of the document");
        }
        documents.add(conversion.document(root));
      }
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      throw new InputProblem(
          file,
          mark == null ? 0 : mark.getLine() + 1,
          "the file is not valid YAML (" + firstLine(e.getProblem()) + ")",
          "perhaps you should run it through a YAML linter (and quote values that contain \": \")",
          e);
    } catch (YAMLException e) {
      throw new InputProblem(
          file, 0, "the file is not valid YAML (" + firstLine(e.getMessage()) + ")", null, e);
    }
    return documents;
  }

  /**
   * The problem for {@code file} when it holds more than {@link #MAX_BYTES} bytes: worded as {@link
   * #readAll} words text over {@link #MAX_CHARS} characters.
   */
  public static InputProblem tooLarge(Path file) {
    return new InputProblem(
        file,
        0,
        "is more than "
            + MAX_BYTES
            + " bytes, larger than the limit of "
            + MAX_CHARS
            + " characters for a configuration file",
        SPLIT_IT);
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unknown error";
    }
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }

  /** One stream's conversion: its scalar rule and its alias budget, shared by its documents. */
  private static final class Conversion {
    private final Path file;
    private final Function<ScalarNode, Object> scalarValue;
    private final AliasExpansion expansion;

    Conversion(Path file, Function<ScalarNode, Object> scalarValue) {
      this.file = file;
      this.scalarValue = scalarValue;
      this.expansion = new AliasExpansion(file);
    }

    ManifestDocument document(Node root) {
      Map<String, Integer> lines = new HashMap<>();
      @SuppressWarnings("unchecked")
      Map<String, Object> content = (Map<String, Object>) value(root, "", lines, 0);
      return new ManifestDocument(content, line(root), lines);
    }

    /** The value of {@code node} at the dotted {@code path}, recording each field's line. */
    private Object value(Node node, String path, Map<String, Integer> lines, int depth) {
      expansion.count(node);
      if (depth > MAX_DEPTH) {
        throw new InputProblem(
            file,
            line(node),
            "the YAML nests deeper than " + MAX_DEPTH + " levels",
            "perhaps you should simplify it");
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
          map.put(name, value(tuple.getValueNode(), child, lines, depth + 1));
        }
        return Collections.unmodifiableMap(map);
      }
      if (node instanceof SequenceNode sequence) {
        List<Object> list = new ArrayList<>();
        int index = 0;
        for (Node item : sequence.getValue()) {
          String child = path.isEmpty() ? String.valueOf(index) : path + "." + index;
          list.add(value(item, child, lines, depth + 1));
          index++;
        }
        return Collections.unmodifiableList(list);
      }
      return scalarValue.apply((ScalarNode) node);
    }
  }

  /** SnakeYAML's YAML 1.1 scalar construction, with timestamps and binary left as text. */
  private static final class TypedScalars extends SafeConstructor {
    TypedScalars(LoaderOptions options) {
      super(options);
    }

    Object value(ScalarNode node) {
      if (Tag.TIMESTAMP.equals(node.getTag()) || Tag.BINARY.equals(node.getTag())) {
        return node.getValue();
      }
      Object value = constructObject(node);
      if (value instanceof Integer i) {
        return i.longValue();
      }
      if (value instanceof BigInteger big && big.bitLength() < 64) {
        return big.longValue();
      }
      return value;
    }
  }
}
