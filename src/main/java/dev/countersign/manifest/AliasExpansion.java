package dev.countersign.manifest;

import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import org.yaml.snakeyaml.nodes.Node;

/**
 * The bound on how many values one YAML stream may expand to, for every reader that turns
 * SnakeYAML's nodes into values (manifests, the trust policy, admission policies, workflows).
 * SnakeYAML limits the number of aliases to collections, but within that limit each alias can
 * double the tree (a "billion laughs": 25 anchors of two aliases each make 2^25 values from a few
 * hundred bytes), and converting every copy takes time and memory without bound. A reader calls
 * {@link #count} once for each value it builds, aliased copies included, and stops at the limit.
 *
 * <p>One instance per stream; not thread-safe.
 */
public final class AliasExpansion {

  /** Values one stream may produce; a 1 MiB file written out in full has far fewer. */
  public static final long MAX_VALUES = 1_000_000;

  private final Path displayPath;
  private long values;

  /**
   * @param displayPath how the problem names the file
   */
  public AliasExpansion(Path displayPath) {
    this.displayPath = displayPath;
  }

  /**
   * Counts one value built from {@code node}.
   *
   * @throws InputProblem naming the node's line once the stream has produced more than {@link
   *     #MAX_VALUES}
   */
  public void count(Node node) {
    if (++values > MAX_VALUES) {
      throw new InputProblem(
          displayPath,
          node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1,
          "expands to more than " + MAX_VALUES + " values through aliases (a YAML alias bomb?)",
          "perhaps you should write the repeated parts out instead of using anchors");
    }
  }
}
