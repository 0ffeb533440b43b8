package dev.countersign.manifest;

import dev.countersign.support.problems.InputProblem;
import java.io.StringReader;
import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.reader.ReaderException;
import org.yaml.snakeyaml.representer.Representer;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * One YAML stream turned into {@link ManifestDocument}s: SnakeYAML composes nodes (positions, alias
 * and depth limits), and this class resolves scalars with yaml.v2's rules ({@link Yaml11Scalars}),
 * rejects duplicate keys, applies merge keys and records field lines.
 */
final class YamlDocuments {

  /** Tag our resolver gives untagged plain scalars, so that we resolve them ourselves. */
  private static final Tag PLAIN = new Tag("tag:countersign.dev,2026:plain");

  private final Path displayPath;
  private final String text;
  private final long maxBytes;
  private final AliasExpansion expansion;

  YamlDocuments(Path displayPath, String text, long maxBytes) {
    this.displayPath = displayPath;
    this.text = text;
    this.maxBytes = maxBytes;
    this.expansion = new AliasExpansion(displayPath);
  }

  List<ManifestDocument> parse() {
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setMaxAliasesForCollections(ManifestReader.MAX_COLLECTION_ALIASES);
    options.setNestingDepthLimit(ManifestReader.MAX_DEPTH);
    options.setCodePointLimit(
        (int) (Math.min(Integer.MAX_VALUE - 1L, Math.max(maxBytes, text.length())) + 1));
    options.setAllowRecursiveKeys(false);
    Yaml yaml =
        new Yaml(
            new SafeConstructor(options),
            new Representer(new DumperOptions()),
            new DumperOptions(),
            options,
            new PlainMarkingResolver());
    List<ManifestDocument> documents = new ArrayList<>();
    int index = 0;
    try {
      for (Node root : yaml.composeAll(new StringReader(text))) {
        index++;
        if (root == null || isEmptyDocument(root)) {
          continue;
        }
        documents.add(document(root, index));
      }
    } catch (MarkedYAMLException e) {
      throw yamlProblem(e, e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark());
    } catch (ReaderException e) {
      int line =
          ManifestReader.lineAt(
              text,
              text.offsetByCodePoints(
                  0, Math.min(e.getPosition(), text.codePointCount(0, text.length()))));
      throw new InputProblem(
          displayPath,
          line,
          String.format("contains a character YAML does not allow (U+%04X)", e.getCodePoint()),
          "perhaps you should remove it or write it as an escape in a double-quoted string",
          e);
    } catch (YAMLException e) {
      throw yamlProblem(e, null);
    } catch (StackOverflowError e) {
      throw new InputProblem(
          displayPath,
          0,
          "nests too deeply to be read",
          "perhaps you should flatten the document",
          null);
    }
    return documents;
  }

  /** A parser limit: a phrase of SnakeYAML's message when it is reached, and what we say then. */
  private record Limit(String phrase, String what, String hint) {}

  private static final List<Limit> LIMITS =
      List.of(
          new Limit(
              "Number of aliases",
              "uses more than "
                  + ManifestReader.MAX_COLLECTION_ALIASES
                  + " aliases to mappings or sequences (a YAML alias bomb?)",
              "perhaps you should write the repeated parts out instead of using anchors"),
          new Limit(
              "Nesting Depth exceeded",
              "nests mappings and sequences deeper than " + ManifestReader.MAX_DEPTH + " levels",
              "perhaps you should flatten the document"),
          new Limit(
              "code points",
              "is too large to parse",
              "perhaps you should split it into smaller files"));

  private InputProblem yamlProblem(YAMLException e, Mark mark) {
    String reason =
        e instanceof MarkedYAMLException marked && marked.getProblem() != null
            ? marked.getProblem()
            : e.getMessage();
    int line = mark == null ? 0 : mark.getLine() + 1;
    for (Limit limit : LIMITS) {
      if (reason != null && reason.contains(limit.phrase())) {
        return new InputProblem(displayPath, line, limit.what(), limit.hint(), e);
      }
    }
    return new InputProblem(
        displayPath,
        line,
        "is not valid YAML: " + oneLine(reason),
        "perhaps you should fix the YAML syntax at that line (yamllint can help)",
        e);
  }

  private static String oneLine(String s) {
    return s == null ? "unknown error" : s.strip().replaceAll("\\s*\\n\\s*", " ");
  }

  private static boolean isEmptyDocument(Node root) {
    // "---" followed by nothing, or by an explicit null ("~", "null"): Kubernetes tools skip these.
    return root instanceof ScalarNode scalar
        && PLAIN.equals(scalar.getTag())
        && Yaml11Scalars.resolvePlain(scalar.getValue()) == Yaml11Scalars.NULL;
  }

  private ManifestDocument document(Node root, int index) {
    int line = root.getStartMark().getLine() + 1;
    if (!(root instanceof MappingNode)) {
      String what = root instanceof SequenceNode ? "a list" : "a scalar";
      throw new InputProblem(
          displayPath,
          line,
          "document " + index + " is " + what + ", not a Kubernetes object (a mapping)",
          "perhaps you should check the indentation, or split the list into documents separated by"
              + " ---");
    }
    Map<String, Integer> fieldLines = new HashMap<>();
    @SuppressWarnings("unchecked")
    Map<String, Object> content =
        (Map<String, Object>) convert(root, "", 0, fieldLines, new IdentityHashMap<>());
    requireString(content, "apiVersion", index, line, fieldLines);
    requireString(content, "kind", index, line, fieldLines);
    Object metadata = content.get("metadata");
    if (metadata != null && !(metadata instanceof Map<?, ?>)) {
      throw new InputProblem(
          displayPath,
          fieldLines.getOrDefault("metadata", line),
          "metadata of document " + index + " is not a mapping",
          "perhaps you should check the indentation under metadata");
    }
    if (metadata instanceof Map<?, ?> m
        && m.containsKey("name")
        && !(m.get("name") instanceof String)) {
      throw new InputProblem(
          displayPath,
          fieldLines.getOrDefault("metadata.name", line),
          "metadata.name of document "
              + index
              + " must be a string, not "
              + describe(m.get("name")),
          "perhaps you should quote it");
    }
    if (metadata instanceof Map<?, ?> m) {
      requireStringMap(m, "annotations", "annotation", index, line, fieldLines);
      requireStringMap(m, "labels", "label", index, line, fieldLines);
    }
    return new ManifestDocument(content, line, fieldLines);
  }

  /**
   * Refuses {@code metadata.<field>} when it is present and not a mapping, or holds a value that is
   * not a string: the API server decodes annotations and labels as {@code map[string]string} and
   * rejects anything else, and every later step (the message, the signed file) relies on a mapping.
   * A null field ({@code annotations:}) or a null value is left as it is, as the API server accepts
   * both (as no annotations, or an empty value).
   *
   * @param entry how one entry is named in messages ("annotation", "label")
   */
  private void requireStringMap(
      Map<?, ?> metadata,
      String field,
      String entry,
      int index,
      int line,
      Map<String, Integer> fieldLines) {
    Object value = metadata.get(field);
    if (value == null) {
      return;
    }
    String path = "metadata." + field;
    if (!(value instanceof Map<?, ?> map)) {
      throw new InputProblem(
          displayPath,
          YamlValues.lineOf(fieldLines, path, line),
          path + " of document " + index + " must be a mapping, not " + describe(value),
          "perhaps you should write it as key: value lines under "
              + path
              + "; Kubernetes takes a mapping of strings to strings there");
    }
    for (Map.Entry<?, ?> item : map.entrySet()) {
      Object itemValue = item.getValue();
      if (itemValue != null && !(itemValue instanceof String)) {
        throw new InputProblem(
            displayPath,
            YamlValues.lineOf(fieldLines, path + "." + item.getKey(), line),
            entry
                + " \""
                + item.getKey()
                + "\" of document "
                + index
                + " must be a string, not "
                + describe(itemValue),
            "perhaps you should quote the value; Kubernetes takes only strings as "
                + entry
                + " values");
      }
    }
  }

  private void requireString(
      Map<String, Object> content,
      String key,
      int index,
      int line,
      Map<String, Integer> fieldLines) {
    Object value = content.get(key);
    if (!(value instanceof String s) || s.isEmpty()) {
      String what =
          value == null
              ? "document " + index + " has no \"" + key + "\""
              : "\""
                  + key
                  + "\" of document "
                  + index
                  + " must be a non-empty string, not "
                  + describe(value);
      throw new InputProblem(
          displayPath,
          fieldLines.getOrDefault(key, line),
          what,
          "perhaps you should add apiVersion and kind; every Kubernetes object needs both");
    }
  }

  private static String describe(Object value) {
    if (value == null) {
      return "null";
    }
    if (value instanceof String s) {
      return s.isEmpty() ? "an empty string" : "a string";
    }
    if (value instanceof Map<?, ?>) {
      return "a mapping";
    }
    if (value instanceof List<?>) {
      return "a list";
    }
    if (value instanceof Boolean) {
      return "the boolean " + value + "; YAML 1.1 reads yes/no/on/off/y/n as booleans";
    }
    if (value instanceof Double d) {
      return "the number " + CanonicalYaml.formatDouble(d);
    }
    return "the integer " + value;
  }

  /**
   * Converts a node to plain Java values. {@code active} holds the collections being converted, to
   * refuse recursive aliases.
   */
  private Object convert(
      Node node,
      String path,
      int depth,
      Map<String, Integer> fieldLines,
      IdentityHashMap<Node, Boolean> active) {
    expansion.count(node);
    if (depth > ManifestReader.MAX_DEPTH) {
      throw new InputProblem(
          displayPath,
          node.getStartMark().getLine() + 1,
          "nests mappings and sequences deeper than " + ManifestReader.MAX_DEPTH + " levels",
          "perhaps you should flatten the document");
    }
    if (node instanceof ScalarNode scalar) {
      Object value = scalar(scalar);
      return value == Yaml11Scalars.NULL ? null : value;
    }
    if (active.put(node, Boolean.TRUE) != null) {
      throw new InputProblem(
          displayPath,
          node.getStartMark().getLine() + 1,
          "contains a recursive alias",
          "perhaps you should remove the anchor that refers to itself");
    }
    try {
      if (node instanceof SequenceNode sequence) {
        requireCollectionTag(node, Tag.SEQ);
        List<Object> list = new ArrayList<>(sequence.getValue().size());
        int i = 0;
        for (Node item : sequence.getValue()) {
          String itemPath = join(path, Integer.toString(i++));
          fieldLines.putIfAbsent(itemPath, item.getStartMark().getLine() + 1);
          list.add(convert(item, itemPath, depth + 1, fieldLines, active));
        }
        return Collections.unmodifiableList(list);
      }
      requireCollectionTag(node, Tag.MAP);
      return mapping((MappingNode) node, path, depth, fieldLines, active);
    } finally {
      active.remove(node);
    }
  }

  private Map<String, Object> mapping(
      MappingNode node,
      String path,
      int depth,
      Map<String, Integer> fieldLines,
      IdentityHashMap<Node, Boolean> active) {
    Map<String, Object> map = new LinkedHashMap<>();
    Map<String, Integer> keyLines = new HashMap<>();
    Node merge = null;
    int mergeLine = 0;
    // Keys set before the merge key: the YAML spec keeps their values over merged ones, but
    // go-yaml (kubectl, Argo CD, sigs.k8s.io/yaml) applies << where it stands and overwrites them.
    Map<String, Integer> setBeforeMerge = new HashMap<>();
    for (NodeTuple tuple : node.getValue()) {
      Node keyNode = tuple.getKeyNode();
      if (keyNode instanceof ScalarNode s
          && PLAIN.equals(s.getTag())
          && "<<".equals(s.getValue())) {
        int line = keyNode.getStartMark().getLine() + 1;
        if (merge != null) {
          throw new InputProblem(
              displayPath,
              line,
              "duplicate merge key <<"
                  + (path.isEmpty() ? "" : " in " + path)
                  + " (first at line "
                  + mergeLine
                  + ")",
              "perhaps you should merge a list instead (<<: [*a, *b]); Kubernetes tools disagree"
                  + " on which one wins");
        }
        merge = tuple.getValueNode();
        mergeLine = line;
        setBeforeMerge.putAll(keyLines);
        continue;
      }
      String key = keyText(keyNode);
      int keyLine = keyNode.getStartMark().getLine() + 1;
      Integer earlier = keyLines.putIfAbsent(key, keyLine);
      if (earlier != null) {
        String where = path.isEmpty() ? "" : " in " + path;
        throw new InputProblem(
            displayPath,
            keyLine,
            "duplicate key \"" + key + "\"" + where + " (first defined at line " + earlier + ")",
            "perhaps you should remove one of them; Kubernetes tools disagree on which one wins");
      }
      String fieldPath = join(path, key);
      fieldLines.put(fieldPath, keyLine);
      map.put(key, convert(tuple.getValueNode(), fieldPath, depth + 1, fieldLines, active));
    }
    // Merge keys (<<): explicit keys win, then earlier merged mappings win over later ones.
    if (merge != null) {
      List<Node> sources = merge instanceof SequenceNode seq ? seq.getValue() : List.of(merge);
      for (Node source : sources) {
        if (!(source instanceof MappingNode)) {
          throw new InputProblem(
              displayPath,
              source.getStartMark().getLine() + 1,
              "merge key << must refer to a mapping or a list of mappings",
              "perhaps you should check the alias after <<");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> merged =
            (Map<String, Object>) convert(source, path, depth, new HashMap<>(), active);
        for (String key : merged.keySet()) {
          Integer explicitLine = setBeforeMerge.get(key);
          if (explicitLine != null) {
            throw new InputProblem(
                displayPath,
                explicitLine,
                "key \""
                    + key
                    + "\""
                    + (path.isEmpty() ? "" : " in " + path)
                    + " is set before the merge key << at line "
                    + mergeLine
                    + ", which sets it too: the YAML spec keeps this value, Kubernetes' parser"
                    + " (go-yaml) the merged one",
                "perhaps you should put << first in the mapping, where both read it the same");
          }
        }
        merged.forEach(map::putIfAbsent);
      }
    }
    return Collections.unmodifiableMap(map);
  }

  private void requireCollectionTag(Node node, Tag expected) {
    if (!expected.equals(node.getTag())) {
      throw unsupportedTag(node);
    }
  }

  private InputProblem unsupportedTag(Node node) {
    return new InputProblem(
        displayPath,
        node.getStartMark().getLine() + 1,
        "uses the tag " + node.getTag().getValue() + ", which Kubernetes manifests do not support",
        "perhaps you should remove the tag and write a plain value");
  }

  /**
   * A map key as text, as sigs.k8s.io/yaml turns keys into JSON's strings: strings as they are,
   * integers and booleans as their value's text, floats as {@link Yaml11Scalars#floatKeyText}
   * ({@code 1.0} is "1"). A null key and an integer beyond int64, which it refuses, are refused.
   */
  private String keyText(Node keyNode) {
    if (!(keyNode instanceof ScalarNode scalar)) {
      throw new InputProblem(
          displayPath,
          keyNode.getStartMark().getLine() + 1,
          "uses a "
              + (keyNode.getNodeId() == NodeId.sequence ? "list" : "mapping")
              + " as a mapping key",
          "perhaps you should use a string key");
    }
    Object value = scalar(scalar);
    if (value == Yaml11Scalars.NULL || value instanceof BigInteger) {
      throw new InputProblem(
          displayPath,
          keyNode.getStartMark().getLine() + 1,
          "uses "
              + (value instanceof BigInteger ? "the integer " + value : "null")
              + " as a mapping key, which Kubernetes' YAML reader (sigs.k8s.io/yaml) refuses",
          "perhaps you should quote the key");
    }
    if (value instanceof Double d) {
      return Yaml11Scalars.floatKeyText(d);
    }
    return String.valueOf(value);
  }

  /** A scalar's value; {@link Yaml11Scalars#NULL} for null. */
  private Object scalar(ScalarNode node) {
    Tag tag = node.getTag();
    String value = node.getValue();
    if (PLAIN.equals(tag)) {
      return hasNonSpecificTag(node) ? value : Yaml11Scalars.resolvePlain(value);
    }
    if (Tag.STR.equals(tag) || Tag.TIMESTAMP.equals(tag)) {
      // yaml.v2 keeps timestamps as their text when decoding into interface{}.
      return value;
    }
    if (Tag.NULL.equals(tag)) {
      if (Yaml11Scalars.resolvePlain(value) == Yaml11Scalars.NULL) {
        return Yaml11Scalars.NULL;
      }
      throw badTaggedValue(node, "null");
    }
    if (Tag.BOOL.equals(tag)) {
      if (Yaml11Scalars.resolvePlain(value) instanceof Boolean b) {
        return b;
      }
      throw badTaggedValue(node, "boolean");
    }
    if (Tag.INT.equals(tag)) {
      Optional<Number> integer = Yaml11Scalars.goYamlInteger(value.replace("_", ""));
      if (integer.isPresent()) {
        return integer.get();
      }
      throw badTaggedValue(node, "integer");
    }
    if (Tag.FLOAT.equals(tag)) {
      Object resolved = Yaml11Scalars.resolvePlain(value);
      if (resolved instanceof Double d) {
        return d;
      }
      if (resolved instanceof Long l) {
        return l.doubleValue();
      }
      if (resolved instanceof BigInteger b) {
        return b.doubleValue();
      }
      throw badTaggedValue(node, "float");
    }
    // !!binary would be raw bytes, which neither JSON nor the Kubernetes API can hold as a field
    // value; other tags have no meaning for Kubernetes. Refusing keeps the message unambiguous.
    throw unsupportedTag(node);
  }

  /**
   * True for {@code ! 12}: SnakeYAML resolves the non-specific tag "!" like an untagged plain
   * scalar, but YAML (and yaml.v2) make it a string. The node starts at its properties, so we look
   * at the source there: "!" directly, or after an anchor.
   */
  private static boolean hasNonSpecificTag(ScalarNode node) {
    Mark start = node.getStartMark();
    int[] buffer = start.getBuffer();
    int i = start.getPointer();
    if (buffer == null || i >= buffer.length) {
      return false;
    }
    if (buffer[i] == '&') {
      while (i < buffer.length && buffer[i] != ' ' && buffer[i] != '\t' && buffer[i] != '\n') {
        i++;
      }
      while (i < buffer.length && (buffer[i] == ' ' || buffer[i] == '\t')) {
        i++;
      }
    }
    return i + 1 < buffer.length
        && buffer[i] == '!'
        && (buffer[i + 1] == ' ' || buffer[i + 1] == '\t');
  }

  private InputProblem badTaggedValue(ScalarNode node, String type) {
    return new InputProblem(
        displayPath,
        node.getStartMark().getLine() + 1,
        "\""
            + node.getValue()
            + "\" is tagged "
            + node.getTag().getValue()
            + " but is not a "
            + type,
        "perhaps you should remove the tag or fix the value");
  }

  private static String join(String path, String key) {
    return path.isEmpty() ? key : path + "." + key;
  }

  /**
   * Leaves plain untagged scalars for {@link Yaml11Scalars} (marked {@link #PLAIN}); quoted
   * untagged scalars are strings; collections get their standard tags.
   */
  private static final class PlainMarkingResolver extends Resolver {
    @Override
    public Tag resolve(NodeId kind, String value, boolean implicit) {
      return switch (kind) {
        case scalar -> implicit ? PLAIN : Tag.STR;
        case sequence -> Tag.SEQ;
        default -> Tag.MAP;
      };
    }
  }
}
