package dev.countersign.governance;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One {@code admissionregistration.k8s.io/v1} ValidatingAdmissionPolicy, reduced to what an offline
 * check of manifests needs. Built by {@link AdmissionPolicyLoader}.
 *
 * @param name {@code metadata.name}
 * @param source the file it came from, relative to the repository
 * @param line the line of its document
 * @param resourceRules {@code spec.matchConstraints.resourceRules}; empty matches nothing, as in
 *     Kubernetes
 * @param excludeResourceRules {@code spec.matchConstraints.excludeResourceRules}
 * @param objectSelector {@code spec.matchConstraints.objectSelector}
 * @param namespaceSelector {@code spec.matchConstraints.namespaceSelector}; offline there is no
 *     namespace object, so it is recorded but treated as matching
 * @param matchPolicy {@code spec.matchConstraints.matchPolicy}, {@code Equivalent} by default
 * @param paramKind whether {@code spec.paramKind} is set
 * @param failOnError {@code spec.failurePolicy} is {@code Fail} (the default); when false an
 *     expression that errors is reported as a warning instead of a rejection
 * @param matchConditions {@code spec.matchConditions}, all must be true for the policy to apply
 * @param variables {@code spec.variables}, in order
 * @param validations {@code spec.validations}
 */
public record AdmissionPolicy(
    String name,
    Path source,
    int line,
    List<ResourceRule> resourceRules,
    List<ResourceRule> excludeResourceRules,
    LabelSelector objectSelector,
    LabelSelector namespaceSelector,
    MatchPolicy matchPolicy,
    boolean paramKind,
    boolean failOnError,
    List<NamedExpression> matchConditions,
    List<NamedExpression> variables,
    List<Validation> validations) {

  public AdmissionPolicy {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(source, "source");
    resourceRules = List.copyOf(resourceRules);
    excludeResourceRules = List.copyOf(excludeResourceRules);
    Objects.requireNonNull(objectSelector, "objectSelector");
    Objects.requireNonNull(namespaceSelector, "namespaceSelector");
    Objects.requireNonNull(matchPolicy, "matchPolicy");
    matchConditions = List.copyOf(matchConditions);
    variables = List.copyOf(variables);
    validations = List.copyOf(validations);
  }

  /**
   * How {@code resourceRules} match: {@code Exact} only the group and version they name, {@code
   * Equivalent} also the same resource requested through another version or group, which the API
   * server converts to the named one before evaluating the policy.
   */
  public enum MatchPolicy {
    EXACT,
    EQUIVALENT
  }

  /**
   * A rule of {@code resourceRules}. {@code "*"} matches anything; a {@code resources} entry is
   * {@code resource} or {@code resource/subresource}, as in Kubernetes; {@code resourceNames}
   * narrows by object name when not empty.
   */
  public record ResourceRule(
      List<String> apiGroups,
      List<String> apiVersions,
      List<String> resources,
      List<String> operations,
      List<String> resourceNames) {

    public ResourceRule {
      apiGroups = List.copyOf(apiGroups);
      apiVersions = List.copyOf(apiVersions);
      resources = List.copyOf(resources);
      operations = List.copyOf(operations);
      resourceNames = List.copyOf(resourceNames);
    }

    /** True when this rule covers a CREATE of the object with the given coordinates. */
    public boolean matches(String group, String version, String resource, String name) {
      return (operations.contains("*") || operations.contains("CREATE"))
          && (apiGroups.contains("*") || apiGroups.contains(group))
          && (apiVersions.contains("*") || apiVersions.contains(version))
          && resources.stream().anyMatch(entry -> coversObject(entry, resource))
          && (resourceNames.isEmpty() || resourceNames.contains(name));
    }

    /**
     * For {@code matchPolicy: Equivalent}: the API version ({@code apps/v1}, {@code v1}, {@code
     * kyverno.io/*}) under which this rule covers a CREATE of the object's resource served in
     * another version or group ({@link EquivalentResources}); empty when it covers none but the
     * object's own.
     */
    public Optional<String> equivalentMatch(
        String group, String version, String resource, String name) {
      if (!(operations.contains("*") || operations.contains("CREATE"))
          || resources.stream().noneMatch(entry -> coversObject(entry, resource))
          || !(resourceNames.isEmpty() || resourceNames.contains(name))) {
        return Optional.empty();
      }
      for (String otherGroup : EquivalentResources.groupsServing(group, resource)) {
        if (!apiGroups.contains("*") && !apiGroups.contains(otherGroup)) {
          continue;
        }
        for (String entry : apiVersions) {
          Optional<String> served = EquivalentResources.servedVersion(otherGroup, entry);
          boolean objectsOwn =
              otherGroup.equals(group) && (entry.equals("*") || entry.equals(version));
          if (served.isPresent() && !objectsOwn) {
            return Optional.of(
                otherGroup.isEmpty() ? served.get() : otherGroup + "/" + served.get());
          }
        }
      }
      return Optional.empty();
    }

    /**
     * Kubernetes' rule matcher splits an entry at its first {@code /} into resource and
     * subresource, each {@code *} or exact: {@code *} and {@code pods} match the object itself (no
     * subresource), {@code *}{@code /*} and {@code pods/*} the object and every subresource, {@code
     * pods/status} and {@code *}{@code /status} only a subresource, which a manifest never is.
     */
    private static boolean coversObject(String entry, String resource) {
      int slash = entry.indexOf('/');
      String resourcePart = slash < 0 ? entry : entry.substring(0, slash);
      String subresourcePart = slash < 0 ? "" : entry.substring(slash + 1);
      return (resourcePart.equals("*") || resourcePart.equals(resource))
          && (subresourcePart.equals("*") || subresourcePart.isEmpty());
    }
  }

  /** A named CEL expression ({@code matchConditions[]}, {@code variables[]}). */
  public record NamedExpression(String name, String expression, int line) {}

  /**
   * One entry of {@code spec.validations}.
   *
   * @param index position in the list, used in rule ids
   */
  public record Validation(
      int index,
      String expression,
      Optional<String> message,
      Optional<String> messageExpression,
      Optional<String> reason,
      int line) {}
}
