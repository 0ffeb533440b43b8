package dev.countersign.governance;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A Kubernetes label selector ({@code matchLabels} + {@code matchExpressions} with operators In,
 * NotIn, Exists, DoesNotExist). An empty selector matches everything.
 */
public record LabelSelector(Map<String, String> matchLabels, List<Requirement> matchExpressions) {

  public static final LabelSelector EVERYTHING = new LabelSelector(Map.of(), List.of());

  public LabelSelector {
    matchLabels = Map.copyOf(matchLabels);
    matchExpressions = List.copyOf(matchExpressions);
  }

  /** One {@code matchExpressions} entry; {@code operator} is validated by the loader. */
  public record Requirement(String key, String operator, List<String> values) {
    public Requirement {
      Objects.requireNonNull(key, "key");
      Objects.requireNonNull(operator, "operator");
      values = List.copyOf(values);
    }

    boolean matches(Map<String, String> labels) {
      String value = labels.get(key);
      switch (operator) {
        case "In":
          return value != null && values.contains(value);
        case "NotIn":
          return value == null || !values.contains(value);
        case "Exists":
          return labels.containsKey(key);
        case "DoesNotExist":
          return !labels.containsKey(key);
        default:
          throw new IllegalStateException("unchecked operator " + operator);
      }
    }
  }

  public boolean isEmpty() {
    return matchLabels.isEmpty() && matchExpressions.isEmpty();
  }

  public boolean matches(Map<String, String> labels) {
    for (Map.Entry<String, String> wanted : matchLabels.entrySet()) {
      if (!wanted.getValue().equals(labels.get(wanted.getKey()))) {
        return false;
      }
    }
    return matchExpressions.stream().allMatch(requirement -> requirement.matches(labels));
  }
}
