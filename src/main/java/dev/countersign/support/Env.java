package dev.countersign.support;

import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The process environment as data. Only {@code cli.Main} builds one from {@link System#getenv()};
 * everything else receives it, so tests pass a plain map and never touch the real environment.
 */
public record Env(Map<String, String> vars) {

  public Env {
    vars = Map.copyOf(vars);
  }

  public static Env of(Map<String, String> vars) {
    return new Env(vars);
  }

  public static Env empty() {
    return new Env(Map.of());
  }

  /** The value of {@code name}, or empty when unset or blank (GitHub passes unset inputs as ""). */
  public Optional<String> get(String name) {
    String value = vars.get(name);
    return value == null || value.isBlank() ? Optional.empty() : Optional.of(value);
  }

  /**
   * The exact value of {@code name}, even when empty; for variables where "" is meaningful, such as
   * {@code COSIGN_PASSWORD} (an empty password is a valid cosign password).
   */
  public Optional<String> exact(String name) {
    return Optional.ofNullable(vars.get(name));
  }

  public String getOrDefault(String name, String fallback) {
    return get(name).orElse(fallback);
  }

  public boolean isTrue(String name) {
    return get(name)
        .map(v -> v.trim().equalsIgnoreCase("true") || v.trim().equals("1"))
        .orElse(false);
  }

  /** True when running inside a GitHub Actions job. */
  public boolean inGitHubActions() {
    return isTrue("GITHUB_ACTIONS");
  }

  /** A copy with {@code name} set; for tests and for deriving child environments. */
  public Env with(String name, String value) {
    Map<String, String> copy = new TreeMap<>(vars);
    copy.put(name, value);
    return new Env(copy);
  }
}
