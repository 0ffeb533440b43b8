package dev.countersign.governance;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.policy.Schema;
import dev.countersign.policy.YamlTree;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedSet;

/**
 * Reads ValidatingAdmissionPolicy documents from files and directories (recursively, {@code
 * .yaml}/{@code .yml}, in sorted order so results are deterministic). Documents of other kinds,
 * such as the policy bindings, are skipped. Stateless and thread-safe.
 */
public final class AdmissionPolicyLoader {

  public static final String API_VERSION = "admissionregistration.k8s.io/v1";
  public static final String KIND = "ValidatingAdmissionPolicy";

  private static final Set<String> OPERATORS = Set.of("In", "NotIn", "Exists", "DoesNotExist");

  /**
   * Loads every policy found at {@code locations} (files or directories relative to {@code
   * repositoryRoot}).
   *
   * @throws UsageProblem when a location does not exist
   * @throws InputProblem when a policy is malformed
   */
  public List<AdmissionPolicy> load(Path repositoryRoot, List<Path> locations) {
    return load(RepositoryFiles.workTree(repositoryRoot), locations);
  }

  /**
   * As {@link #load(Path, List)}, reading from {@code files} (the work tree, or a commit): a file
   * named on its own whatever its name, the {@code .yaml} and {@code .yml} files of a directory,
   * one file at a time.
   */
  public List<AdmissionPolicy> load(RepositoryFiles files, List<Path> locations) {
    List<AdmissionPolicy> policies = new ArrayList<>();
    for (Path location : locations) {
      SortedSet<Path> found = files.filesAt(location);
      if (found.isEmpty() && !files.isDirectory(location)) {
        throw new UsageProblem(
            "The governance policy location "
                + location
                + " does not exist in "
                + files.describe()
                + " while loading admission policies",
            "perhaps you should fix \"governance.policies\" in the trust policy (paths are"
                + " relative to the repository root)");
      }
      for (Path path : found) {
        String name = path.getFileName().toString();
        boolean named = path.equals(location.normalize());
        if (named || name.endsWith(".yaml") || name.endsWith(".yml")) {
          // Other files are not read at all: nothing of them is a policy.
          files
              .readRuleFile(path)
              .ifPresent(
                  bytes ->
                      policies.addAll(
                          parse(
                              named ? location : path, new String(bytes, StandardCharsets.UTF_8))));
        }
      }
    }
    return policies;
  }

  /** Parses the policies in one file's text; {@code source} names the file in problems. */
  public List<AdmissionPolicy> parse(Path source, String text) {
    List<AdmissionPolicy> policies = new ArrayList<>();
    for (ManifestDocument document : YamlTree.parseAll(source, text)) {
      if (!KIND.equals(document.kind())) {
        continue;
      }
      if (!API_VERSION.equals(document.apiVersion())) {
        throw new InputProblem(
            source,
            document.lineOf("apiVersion"),
            "ValidatingAdmissionPolicy apiVersion \""
                + document.apiVersion()
                + "\" is not supported",
            "perhaps you should use " + API_VERSION);
      }
      policies.add(policy(new Schema(source, document), document));
    }
    return policies;
  }

  /**
   * Reads a parameter object (the {@code params} of every policy that declares {@code paramKind}).
   */
  public Map<String, Object> loadParams(Path repositoryRoot, Path location) {
    return loadParams(RepositoryFiles.workTree(repositoryRoot), location);
  }

  /** As {@link #loadParams(Path, Path)}, reading from {@code files}. */
  public Map<String, Object> loadParams(RepositoryFiles files, Path location) {
    byte[] bytes =
        files
            .readRuleFile(location)
            .orElseThrow(
                () ->
                    new UsageProblem(
                        "The governance parameter file "
                            + location
                            + " does not exist in "
                            + files.describe()
                            + " while loading admission policies",
                        "perhaps you should fix \"governance.params\" in the trust policy"));
    List<ManifestDocument> documents =
        YamlTree.parseAll(location, new String(bytes, StandardCharsets.UTF_8));
    if (documents.size() != 1) {
      throw new InputProblem(
          location,
          0,
          "a parameter file must hold exactly one YAML document, found " + documents.size(),
          null);
    }
    return documents.get(0).content();
  }

  private static AdmissionPolicy policy(Schema schema, ManifestDocument document) {
    Map<String, Object> root = document.content();
    String name =
        schema.requiredString(
            schema.mapping(root, "", "metadata").orElse(Map.of()), "metadata", "name");
    Map<String, Object> spec =
        schema
            .mapping(root, "", "spec")
            .orElseThrow(
                () ->
                    schema.problem(
                        "", "ValidatingAdmissionPolicy " + name + " has no \"spec\"", null));
    Map<String, Object> constraints =
        schema.mapping(spec, "spec", "matchConstraints").orElse(Map.of());
    String failurePolicy = schema.string(spec, "spec", "failurePolicy").orElse("Fail");
    if (!failurePolicy.equals("Fail") && !failurePolicy.equals("Ignore")) {
      throw schema.problem(
          "spec.failurePolicy",
          "failurePolicy \"" + failurePolicy + "\" must be Fail or Ignore",
          null);
    }
    String matchPolicy =
        schema.string(constraints, "spec.matchConstraints", "matchPolicy").orElse("Equivalent");
    if (!matchPolicy.equals("Exact") && !matchPolicy.equals("Equivalent")) {
      throw schema.problem(
          "spec.matchConstraints.matchPolicy",
          "matchPolicy \"" + matchPolicy + "\" must be Exact or Equivalent",
          null);
    }
    List<AdmissionPolicy.Validation> validations = new ArrayList<>();
    for (Schema.Item item : schema.mappings(spec, "spec", "validations")) {
      validations.add(
          new AdmissionPolicy.Validation(
              validations.size(),
              schema.requiredString(item.map(), item.path(), "expression"),
              schema.string(item.map(), item.path(), "message"),
              schema.string(item.map(), item.path(), "messageExpression"),
              schema.string(item.map(), item.path(), "reason"),
              schema.lineOf(item.path() + ".expression")));
    }
    if (validations.isEmpty()) {
      throw schema.problem(
          "spec",
          "ValidatingAdmissionPolicy " + name + " has no \"spec.validations\"",
          "perhaps you should add at least one validation (audit annotations alone are not"
              + " checked offline)");
    }
    return new AdmissionPolicy(
        name,
        schema.file(),
        document.line(),
        rules(schema, constraints, "spec.matchConstraints", "resourceRules"),
        rules(schema, constraints, "spec.matchConstraints", "excludeResourceRules"),
        selector(schema, constraints, "spec.matchConstraints", "objectSelector"),
        selector(schema, constraints, "spec.matchConstraints", "namespaceSelector"),
        matchPolicy.equals("Exact")
            ? AdmissionPolicy.MatchPolicy.EXACT
            : AdmissionPolicy.MatchPolicy.EQUIVALENT,
        spec.get("paramKind") != null,
        failurePolicy.equals("Fail"),
        named(schema, spec, "matchConditions"),
        named(schema, spec, "variables"),
        validations);
  }

  private static List<AdmissionPolicy.ResourceRule> rules(
      Schema schema, Map<String, Object> map, String path, String key) {
    List<AdmissionPolicy.ResourceRule> rules = new ArrayList<>();
    for (Schema.Item item : schema.mappings(map, path, key)) {
      rules.add(
          new AdmissionPolicy.ResourceRule(
              schema.strings(item.map(), item.path(), "apiGroups"),
              schema.strings(item.map(), item.path(), "apiVersions"),
              schema.strings(item.map(), item.path(), "resources"),
              schema.strings(item.map(), item.path(), "operations"),
              schema.strings(item.map(), item.path(), "resourceNames")));
    }
    return rules;
  }

  private static LabelSelector selector(
      Schema schema, Map<String, Object> map, String path, String key) {
    Optional<Map<String, Object>> selector = schema.mapping(map, path, key);
    if (selector.isEmpty()) {
      return LabelSelector.EVERYTHING;
    }
    String selectorPath = path + "." + key;
    Map<String, String> labels = new LinkedHashMap<>();
    schema
        .mapping(selector.get(), selectorPath, "matchLabels")
        .orElse(Map.of())
        .forEach((label, value) -> labels.put(label, String.valueOf(value)));
    List<LabelSelector.Requirement> requirements = new ArrayList<>();
    for (Schema.Item item : schema.mappings(selector.get(), selectorPath, "matchExpressions")) {
      String operator = schema.requiredString(item.map(), item.path(), "operator");
      if (!OPERATORS.contains(operator)) {
        throw schema.problem(
            item.path() + ".operator",
            "label selector operator \""
                + operator
                + "\" is not one of In, NotIn, Exists, DoesNotExist",
            null);
      }
      requirements.add(
          new LabelSelector.Requirement(
              schema.requiredString(item.map(), item.path(), "key"),
              operator,
              schema.strings(item.map(), item.path(), "values")));
    }
    return new LabelSelector(labels, requirements);
  }

  private static List<AdmissionPolicy.NamedExpression> named(
      Schema schema, Map<String, Object> spec, String key) {
    List<AdmissionPolicy.NamedExpression> expressions = new ArrayList<>();
    for (Schema.Item item : schema.mappings(spec, "spec", key)) {
      expressions.add(
          new AdmissionPolicy.NamedExpression(
              schema.requiredString(item.map(), item.path(), "name"),
              schema.requiredString(item.map(), item.path(), "expression"),
              schema.lineOf(item.path() + ".expression")));
    }
    return expressions;
  }
}
