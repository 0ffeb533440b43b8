package dev.countersign.admission;

import static dev.countersign.manifest.YamlValues.list;
import static dev.countersign.manifest.YamlValues.map;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Finds the Kyverno {@code ClusterPolicy} and {@code Policy} documents kept in a repository and
 * reads their {@code validate.manifests} rules. Files that are not readable manifests are skipped
 * (this is a lint, not the gate); symbolic links are never followed. Stateless.
 */
public final class KyvernoPolicies {

  /** Directories never searched: version control, dependencies, build output. */
  private static final Set<String> SKIPPED =
      Set.of(".git", "node_modules", "target", "build", "vendor");

  private static final int MAX_FILES = 5000;

  private final ManifestReader reader;

  public KyvernoPolicies(ManifestReader reader) {
    this.reader = reader;
  }

  /**
   * Every manifests rule in every Kyverno policy file below {@code repositoryRoot}, by file then
   * line.
   */
  public List<KyvernoManifestRule> discover(Path repositoryRoot) {
    List<KyvernoManifestRule> rules = new ArrayList<>();
    for (Path relative : yamlFiles(repositoryRoot)) {
      if (!mentionsKyverno(repositoryRoot.resolve(relative))) {
        continue;
      }
      ManifestFile file;
      try {
        file = reader.read(repositoryRoot.resolve(relative), relative);
      } catch (InputProblem unreadable) {
        continue;
      }
      for (ManifestDocument document : file.documents()) {
        rules.addAll(rules(relative, document));
      }
    }
    return rules;
  }

  /** The manifests rules of one document; none unless it is a Kyverno ClusterPolicy or Policy. */
  public static List<KyvernoManifestRule> rules(Path file, ManifestDocument document) {
    if (!document.group().equals("kyverno.io")
        || !(document.kind().equals("ClusterPolicy") || document.kind().equals("Policy"))) {
      return List.of();
    }
    Optional<String> policyNamespace =
        document.kind().equals("Policy")
            ? Optional.of(document.namespace().orElse("default"))
            : Optional.empty();
    String policy = document.describe();
    List<KyvernoManifestRule> found = new ArrayList<>();
    List<Object> rules = list(map(document.content().get("spec")).get("rules"));
    for (int i = 0; i < rules.size(); i++) {
      Map<String, Object> rule = map(rules.get(i));
      String rulePath = "spec.rules." + i;
      Map<String, Object> manifests = map(map(rule.get("validate")).get("manifests"));
      if (manifests.isEmpty()) {
        continue;
      }
      String manifestsPath = rulePath + ".validate.manifests";
      List<KyvernoManifestRule.KeylessEntry> keyless = new ArrayList<>();
      boolean keyed = false;
      List<Object> attestors = list(manifests.get("attestors"));
      for (int a = 0; a < attestors.size(); a++) {
        List<Object> entries = list(map(attestors.get(a)).get("entries"));
        for (int e = 0; e < entries.size(); e++) {
          Map<String, Object> entry = map(entries.get(e));
          String entryPath = manifestsPath + ".attestors." + a + ".entries." + e;
          if (entry.containsKey("keys")) {
            keyed = true;
          }
          if (entry.containsKey("keyless")) {
            Map<String, Object> keylessEntry = map(entry.get("keyless"));
            Object subject = keylessEntry.get("subject");
            keyless.add(
                new KyvernoManifestRule.KeylessEntry(
                    subject instanceof String s ? s : "",
                    keylessEntry.containsKey("subjectRegExp"),
                    document.lineOf(entryPath + ".keyless.subject")));
          }
        }
      }
      Map<String, Object> dryRun = map(manifests.get("dryRun"));
      Object namespace = dryRun.get("namespace");
      found.add(
          new KyvernoManifestRule(
              file,
              policy,
              String.valueOf(rule.getOrDefault("name", "rule-" + i)),
              document.lineOf(rulePath),
              filters(map(rule.get("match"))),
              policyNamespace,
              keyless,
              keyed,
              Boolean.TRUE.equals(dryRun.get("enable")) || "true".equals(dryRun.get("enable")),
              namespace instanceof String s && !s.isEmpty() ? Optional.of(s) : Optional.empty(),
              document.lineOf(manifestsPath + ".dryRun")));
    }
    return found;
  }

  private static List<KyvernoManifestRule.ResourceFilter> filters(Map<String, Object> match) {
    List<KyvernoManifestRule.ResourceFilter> filters = new ArrayList<>();
    for (Object any : list(match.get("any"))) {
      filters.add(filter(map(map(any).get("resources"))));
    }
    List<Object> all = list(match.get("all"));
    if (!all.isEmpty()) {
      // All filters must hold: the kinds of the first that names kinds, the namespaces of the first
      // that names namespaces.
      List<String> kinds = List.of();
      List<String> namespaces = List.of();
      for (Object each : all) {
        KyvernoManifestRule.ResourceFilter filter = filter(map(map(each).get("resources")));
        kinds = kinds.isEmpty() ? filter.kinds() : kinds;
        namespaces = namespaces.isEmpty() ? filter.namespaces() : namespaces;
      }
      filters.add(new KyvernoManifestRule.ResourceFilter(kinds, namespaces));
    }
    if (match.containsKey("resources")) {
      filters.add(filter(map(match.get("resources"))));
    }
    return filters;
  }

  private static KyvernoManifestRule.ResourceFilter filter(Map<String, Object> resources) {
    return new KyvernoManifestRule.ResourceFilter(
        strings(resources.get("kinds")), strings(resources.get("namespaces")));
  }

  private List<Path> yamlFiles(Path root) {
    List<Path> files = new ArrayList<>();
    try (Stream<Path> walk = Files.walk(root)) {
      walk.filter(path -> !path.equals(root))
          .filter(path -> RepositoryPaths.slashed(root.relativize(path)).split("/").length < 30)
          .filter(
              path -> {
                for (Path part : root.relativize(path)) {
                  if (SKIPPED.contains(part.toString())) {
                    return false;
                  }
                }
                return true;
              })
          .filter(path -> Files.isRegularFile(path, LinkOption.NOFOLLOW_LINKS))
          .filter(path -> ManifestTree.isManifestName(path.getFileName().toString()))
          .limit(MAX_FILES)
          .forEach(path -> files.add(root.relativize(path)));
    } catch (IOException | UncheckedIOException e) {
      return files;
    }
    files.sort(null);
    return files;
  }

  /** A cheap look before parsing: most YAML in a repository is not a Kyverno policy. */
  private boolean mentionsKyverno(Path file) {
    try (InputStream in =
        Channels.newInputStream(
            Files.newByteChannel(
                file, Set.of(StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)))) {
      byte[] bytes = in.readNBytes((int) Math.min(reader.maxBytes(), Integer.MAX_VALUE - 9L));
      return new String(bytes, StandardCharsets.ISO_8859_1).contains("kyverno.io/");
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  private static List<String> strings(Object value) {
    List<String> result = new ArrayList<>();
    for (Object item : list(value)) {
      if (item instanceof String s) {
        result.add(s);
      }
    }
    return result;
  }
}
