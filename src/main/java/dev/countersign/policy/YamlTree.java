package dev.countersign.policy;

import dev.countersign.manifest.AliasExpansion;
import dev.countersign.manifest.ConfigurationYaml;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.List;

/**
 * Parses configuration YAML (policy files, admission policies, parameter objects) into the same
 * plain-value shape as {@link ManifestDocument}, with a source line for every field.
 *
 * <p>This is {@link ConfigurationYaml} with its scalars resolved as YAML 1.1 (SnakeYAML's default,
 * like Kubernetes tooling), except timestamps, which stay strings as they do after Kubernetes' JSON
 * round trip; manifests themselves are read by {@code manifest.ManifestReader}.
 */
public final class YamlTree {

  private YamlTree() {}

  /**
   * Parses every non-empty document of {@code text}; {@code file} names it in problems.
   *
   * @throws InputProblem when the text is not valid YAML, is over {@link
   *     ConfigurationYaml#MAX_CHARS} characters, repeats a key, nests too deeply or expands through
   *     aliases beyond {@link AliasExpansion#MAX_VALUES}
   */
  public static List<ManifestDocument> parseAll(Path file, String text) {
    return ConfigurationYaml.readAll(file, text, ConfigurationYaml.Scalars.YAML_1_1);
  }
}
