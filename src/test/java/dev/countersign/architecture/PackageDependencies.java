package dev.countersign.architecture;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Which capability package depends on which: computed from the classes (every dependency ArchUnit
 * sees: calls, fields, signatures, annotations, inheritance), and as listed in the fenced block
 * after {@link #MARKER} in {@code docs/development.md}, one line per package: {@code pipeline ->
 * git, manifest, support}.
 */
record PackageDependencies(SortedMap<String, SortedSet<String>> uses) {

  static final String MARKER = "<!-- package dependencies: checked by PackageRulesTest -->";

  /** The capability (first package segment below {@code root}) of each class and its targets. */
  static PackageDependencies of(JavaClasses classes, String root) {
    SortedMap<String, SortedSet<String>> uses = new TreeMap<>();
    for (JavaClass origin : classes) {
      Optional<String> from = capability(origin, root);
      if (from.isEmpty()) {
        continue;
      }
      SortedSet<String> targets = uses.computeIfAbsent(from.get(), k -> new TreeSet<>());
      for (Dependency dependency : origin.getDirectDependenciesFromSelf()) {
        capability(dependency.getTargetClass().getBaseComponentType(), root)
            .filter(to -> !to.equals(from.get()))
            .ifPresent(targets::add);
      }
    }
    return new PackageDependencies(uses);
  }

  /** The block in {@code markdown}, or empty if the marker or its fenced block is missing. */
  static Optional<PackageDependencies> documentedIn(Path markdown) throws IOException {
    List<String> lines = Files.readAllLines(markdown);
    int marker = lines.indexOf(MARKER);
    if (marker < 0 || marker + 1 >= lines.size() || !lines.get(marker + 1).startsWith("```")) {
      return Optional.empty();
    }
    SortedMap<String, SortedSet<String>> uses = new TreeMap<>();
    for (String line : lines.subList(marker + 2, lines.size())) {
      if (line.startsWith("```")) {
        return Optional.of(new PackageDependencies(uses));
      }
      String[] sides = line.split("->", 2);
      SortedSet<String> targets = new TreeSet<>();
      if (sides.length == 2) {
        Arrays.stream(sides[1].split(","))
            .map(String::strip)
            .filter(s -> !s.isEmpty() && !s.equals("(nothing)"))
            .forEach(targets::add);
      }
      uses.put(sides[0].strip(), targets);
    }
    return Optional.empty();
  }

  /** The fenced block as it should appear after the marker. */
  String render() {
    int width = uses.keySet().stream().mapToInt(String::length).max().orElse(0);
    return uses.entrySet().stream()
        .map(
            e ->
                String.format(
                    "%-" + width + "s -> %s",
                    e.getKey(),
                    e.getValue().isEmpty() ? "(nothing)" : String.join(", ", e.getValue())))
        .collect(Collectors.joining("\n", "```text\n", "\n```"));
  }

  Map<String, SortedSet<String>> asMap() {
    return uses;
  }

  private static Optional<String> capability(JavaClass javaClass, String root) {
    String name = javaClass.getPackageName();
    if (!name.startsWith(root + ".")) {
      return Optional.empty();
    }
    String below = name.substring(root.length() + 1);
    int dot = below.indexOf('.');
    return Optional.of(dot < 0 ? below : below.substring(0, dot));
  }
}
