package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Which differences between an object read back from a cluster and its signed message do not count
 * ({@code verify --cluster-object} only: a file in the repository must equal its message exactly).
 * The defaults are k8s-manifest-sigstore's and Kyverno's default-config.yaml.
 *
 * <p>Patterns are anchored, as Kyverno documents {@code ignoreFields}: a field is a dotted path
 * from the object's root, and it covers that path and everything below it. {@code *} stands for one
 * path segment (a list index or a key without dots), except at the end, where it also extends the
 * last segment ({@code metadata.finalizers*}, {@code ...cosign.sigstore.dev/message*}) or covers
 * anything below. '.' is a literal dot. So {@code status} ignores {@code status.phase} but not
 * {@code data.statusPage}, and {@code spec.securityContext} does not reach {@code
 * spec.template.spec.securityContext}. (k8s-manifest-sigstore itself searches each pattern as an
 * unanchored regular expression anywhere in the key, which unprotects far more than its authors
 * list; see docs/check.md.)
 *
 * <p>One difference from Kyverno: a default field outside {@code metadata} and {@code status}
 * ({@code spec.type} of a Service, {@code spec.validationFailureAction} of a ClusterPolicy) is
 * there because the server or a controller fills it in when the manifest leaves it out; neither
 * rewrites a value the manifest states. So such a default covers only a field the signed message
 * leaves out, and a value the message states must hold. Metadata and status are the server's and
 * controllers' bookkeeping ({@code uid}, {@code resourceVersion}, Argo CD's instance label) and
 * stay ignored whatever the message says, as do the fields the user adds.
 */
final class IgnoreFields {

  /** One {@code ignoreFields} entry: patterns that apply to objects matching any selector. */
  record Binding(List<ObjectSelector> objects, List<String> fields) {}

  /** How far an ignored field reaches. */
  private enum Reach {
    /** Any difference: the user's fields, and the defaults for metadata and status. */
    ANY_VALUE,
    /** Only a field the signed message leaves out: the defaults for everything else. */
    UNSTATED_ONLY
  }

  /** A compiled field pattern, the objects it applies to, and its reach. */
  private record Rule(List<ObjectSelector> objects, Pattern field, Reach reach) {}

  /**
   * {@code {group, version, kind, name, namespace}}; empty or "*" matches anything, "x*" a prefix.
   */
  record ObjectSelector(String group, String version, String kind, String name, String namespace) {

    boolean matches(ManifestDocument document) {
      String apiVersion = document.apiVersion();
      String version =
          apiVersion.contains("/") ? apiVersion.substring(apiVersion.indexOf('/') + 1) : apiVersion;
      return pattern(group, document.group())
          && pattern(version, version)
          && pattern(kind, document.kind())
          && pattern(name, document.name())
          && pattern(namespace, document.namespace().orElse(""));
    }

    private static boolean pattern(String pattern, String value) {
      if (pattern.isEmpty() || pattern.equals("*")) {
        return true;
      }
      if (pattern.endsWith("*")) {
        return value.startsWith(pattern.substring(0, pattern.length() - 1));
      }
      return pattern.equals(value);
    }
  }

  private static final List<Binding> DEFAULTS = loadDefaults();

  private final List<Rule> rules;

  private IgnoreFields(List<Rule> rules) {
    this.rules = List.copyOf(rules);
  }

  /**
   * The defaults plus {@code extraFields} for every kind.
   *
   * @throws UsageProblem when an extra field is not a valid pattern
   */
  static IgnoreFields withDefaults(List<String> extraFields) {
    for (String field : extraFields) {
      if (compile(field).isEmpty()) {
        throw new UsageProblem(
            "Ignore field \""
                + field
                + "\" is not a valid field path while reading the ignore fields",
            "perhaps you should use dotted paths with '*' as the only wildcard, e.g."
                + " metadata.annotations.argocd.argoproj.io/tracking-id");
      }
    }
    List<Rule> all = new ArrayList<>();
    for (Binding binding : DEFAULTS) {
      for (String field : binding.fields()) {
        all.add(new Rule(binding.objects(), compile(field).orElseThrow(), defaultReach(field)));
      }
    }
    List<ObjectSelector> everyKind = List.of(new ObjectSelector("", "", "*", "", ""));
    for (String field : extraFields) {
      all.add(new Rule(everyKind, compile(field).orElseThrow(), Reach.ANY_VALUE));
    }
    return new IgnoreFields(all);
  }

  /**
   * True when a difference at {@code key} (dotted, list indices as numbers) does not count for
   * {@code live}; {@code signedStatesIt} says whether the signed message has a value there.
   */
  boolean ignores(ManifestDocument live, String key, boolean signedStatesIt) {
    for (Rule rule : rules) {
      if ((rule.reach() == Reach.ANY_VALUE || !signedStatesIt)
          && rule.field().matcher(key).matches()
          && rule.objects().stream().anyMatch(o -> o.matches(live))) {
        return true;
      }
    }
    return false;
  }

  /** Bookkeeping (metadata, status) is ignored whatever the message says; see the class comment. */
  private static Reach defaultReach(String field) {
    return field.startsWith("metadata.") || field.equals("status")
        ? Reach.ANY_VALUE
        : Reach.UNSTATED_ONLY;
  }

  /** True when the anchored {@code pattern} covers {@code key} (see the class comment). */
  static boolean matches(String pattern, String key) {
    return compile(pattern).map(p -> p.matcher(key).matches()).orElse(false);
  }

  /**
   * The anchored regex of a field pattern: literal text, an inner {@code *} as one segment ({@code
   * [^.]+}), a trailing {@code *} as anything, and the field's subtree ({@code (\..*)?}) after it.
   * Empty for patterns that cannot be a field path.
   */
  private static Optional<Pattern> compile(String pattern) {
    if (pattern.isBlank()
        || pattern.startsWith(".")
        || pattern.contains("..")
        || pattern.equals("*")) {
      return Optional.empty();
    }
    StringBuilder regex = new StringBuilder();
    String[] parts = pattern.split("\\*", -1);
    for (int i = 0; i < parts.length; i++) {
      if (!parts[i].isEmpty()) {
        regex.append(Pattern.quote(parts[i]));
      }
      if (i < parts.length - 1) {
        regex.append(i == parts.length - 2 && parts[i + 1].isEmpty() ? ".*" : "[^.]+");
      }
    }
    if (!pattern.endsWith("*")) {
      regex.append("(\\..*)?");
    }
    try {
      return Optional.of(Pattern.compile(regex.toString(), Pattern.DOTALL));
    } catch (PatternSyntaxException e) {
      return Optional.empty();
    }
  }

  /**
   * Kyverno ignores {@code metadata.namespace} for every kind because the object it admits always
   * has one. We are stricter: a namespace the message names must match (a signed NetworkPolicy
   * moved to another namespace means something else), and only a namespace the message leaves out
   * may be anything ({@link ContentComparison}).
   */
  static final String NAMESPACE = "metadata.namespace";

  private static List<Binding> loadDefaults() {
    List<Binding> all = new ArrayList<>();
    all.addAll(load("k8s-manifest-sigstore-default-config.yaml"));
    all.addAll(load("kyverno-default-config.yaml"));
    return all.stream()
        .map(
            b ->
                new Binding(
                    b.objects(), b.fields().stream().filter(f -> !f.equals(NAMESPACE)).toList()))
        .toList();
  }

  private static List<Binding> load(String resource) {
    ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
    try (InputStream in = IgnoreFields.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new InternalProblem(
            "the built-in ignore-field defaults " + resource + " are missing from the jar");
      }
      List<Binding> bindings = new ArrayList<>();
      for (JsonNode entry : yaml.readTree(in).path("ignoreFields")) {
        List<String> fields = new ArrayList<>();
        entry.path("fields").forEach(f -> fields.add(f.asText()));
        List<ObjectSelector> objects = new ArrayList<>();
        entry
            .path("objects")
            .forEach(
                o ->
                    objects.add(
                        new ObjectSelector(
                            o.path("group").asText(""),
                            o.path("version").asText(""),
                            o.path("kind").asText(""),
                            o.path("name").asText(""),
                            o.path("namespace").asText(""))));
        bindings.add(new Binding(List.copyOf(objects), List.copyOf(fields)));
      }
      return bindings;
    } catch (IOException e) {
      throw new InternalProblem(
          "the built-in ignore-field defaults " + resource + " cannot be read", null, e);
    }
  }
}
