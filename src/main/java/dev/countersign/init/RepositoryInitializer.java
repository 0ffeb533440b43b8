package dev.countersign.init;

import dev.countersign.admission.KubernetesKinds;
import dev.countersign.support.AtomicWrites;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Generates the files a repository needs to use countersign: the signing and checking workflows,
 * the trust policy, a Kyverno ClusterPolicy that admits only manifests signed by that workflow, and
 * an Argo CD Application that syncs only the signed directory.
 *
 * <p>Output is deterministic: the same options give the same bytes. {@link #write} refuses to
 * replace any existing file unless {@link InitOptions#force()}; it checks every target before
 * writing the first, so a refusal leaves the repository untouched. Stateless and thread-safe.
 */
public final class RepositoryInitializer {

  public static final Path SIGN_WORKFLOW =
      Path.of(".github", "workflows", InitOptions.SIGNING_WORKFLOW);
  public static final Path CHECK_WORKFLOW = Path.of(".github", "workflows", "check-on-pr.yml");
  public static final Path PROMOTE_WORKFLOW = Path.of(".github", "workflows", "promote.yml");
  public static final Path POLICY = Path.of(".countersign", "policy.yaml");
  public static final Path KYVERNO_POLICY =
      Path.of(".countersign", "cluster", "kyverno-clusterpolicy.yaml");
  public static final Path ARGOCD_APPLICATION =
      Path.of(".countersign", "cluster", "argocd-application.yaml");
  public static final Path KYVERNO_DRY_RUN_RBAC =
      Path.of(".countersign", "cluster", "kyverno-dryrun-rbac.yaml");

  /**
   * {@code {{NAME}}}; GitHub's own {@code ${{ expr }}} has spaces and lower case, so it is left
   * alone.
   */
  private static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{([A-Z_]+)\\}\\}");

  /** The files for {@code options}, relative path to content, in a fixed order. */
  public Map<Path, String> render(InitOptions options) {
    Map<String, String> values = new LinkedHashMap<>();
    values.put("OWNER", options.owner());
    values.put("REPO", options.repository());
    values.put("BRANCH", options.branch());
    values.put("UNSIGNED", RepositoryPaths.slashed(options.unsignedDir()));
    values.put("SIGNED", RepositoryPaths.slashed(options.signedDir()));
    values.put("NAMESPACE", options.namespace());
    values.put("SUBJECT", options.signerSubject());
    values.put("SIGNER_WORKFLOW", ".github/workflows/" + InitOptions.SIGNING_WORKFLOW);
    values.put("ACTION", ActionReference.USES);
    values.put("APP_NAME", options.namespace());
    values.put("PROMOTE_TO", options.promotionTarget().map(RepositoryPaths::slashed).orElse(""));
    values.put("REPO_LABEL", label(options.repository()));
    values.put("DRY_RUN_NAMESPACE", InitOptions.DRY_RUN_NAMESPACE);
    List<String> subjects = options.signingWorkflows().stream().map(options::subjectOf).toList();
    values.put("SUBJECT_COMMENT", lines(subjects, subject -> "#   " + subject));
    values.put(
        "SIGNERS",
        lines(
            subjects,
            subject ->
                "  - issuer: " + InitOptions.GITHUB_ACTIONS_ISSUER + "\n    subject: " + subject));
    values.put(
        "KEYLESS_ENTRIES",
        lines(
            subjects,
            subject ->
                "                - keyless:\n"
                    + "                    subject: \""
                    + subject
                    + "\"\n"
                    + "                    issuer: \""
                    + InitOptions.GITHUB_ACTIONS_ISSUER
                    + "\"\n"
                    + "                    rekor:\n"
                    + "                      url: https://rekor.sigstore.dev"));
    List<ManifestInventory.Kind> namespaced =
        options.policyKinds().stream().filter(k -> !k.clusterScoped()).toList();
    List<ManifestInventory.Kind> clusterScoped =
        options.policyKinds().stream().filter(ManifestInventory.Kind::clusterScoped).toList();
    StringBuilder match = new StringBuilder();
    if (!namespaced.isEmpty()) {
      match
          .append("          - resources:\n")
          .append("              kinds: ")
          .append(
              flowList(namespaced.stream().map(ManifestInventory.Kind::kind).distinct().toList()))
          .append('\n')
          .append("              namespaces: ")
          .append(flowList(List.copyOf(options.policyNamespaces())))
          .append('\n')
          .append("              operations: [CREATE, UPDATE]");
    }
    if (!clusterScoped.isEmpty()) {
      if (match.length() > 0) {
        match.append('\n');
      }
      match
          .append("          # Cluster-scoped kinds: a namespaces filter would never match them.\n")
          .append("          - resources:\n")
          .append("              kinds: ")
          .append(
              flowList(
                  clusterScoped.stream().map(ManifestInventory.Kind::kind).distinct().toList()))
          .append('\n')
          .append("              operations: [CREATE, UPDATE]");
    }
    values.put("MATCH_ANY", match.toString());
    values.put("ROLE_RULES", namespaced.isEmpty() ? "  []" : rbacRules(namespaced));
    values.put(
        "CLUSTER_RBAC",
        clusterScoped.isEmpty()
            ? ""
            : "---\n"
                + "# Dry-run creation of cluster-scoped kinds needs a cluster-wide permission.\n"
                + "apiVersion: rbac.authorization.k8s.io/v1\n"
                + "kind: ClusterRole\n"
                + "metadata:\n"
                + "  name: countersign-kyverno-dryrun\n"
                + "rules:\n"
                + rbacRules(clusterScoped)
                + "\n"
                + "---\n"
                + "apiVersion: rbac.authorization.k8s.io/v1\n"
                + "kind: ClusterRoleBinding\n"
                + "metadata:\n"
                + "  name: countersign-kyverno-dryrun\n"
                + "roleRef:\n"
                + "  apiGroup: rbac.authorization.k8s.io\n"
                + "  kind: ClusterRole\n"
                + "  name: countersign-kyverno-dryrun\n"
                + "subjects:\n"
                + "  - kind: ServiceAccount\n"
                + "    name: kyverno-admission-controller\n"
                + "    namespace: kyverno");

    Map<Path, String> files = new LinkedHashMap<>();
    files.put(SIGN_WORKFLOW, fill("sign-on-merge.yml.tmpl", values));
    files.put(CHECK_WORKFLOW, fill("check-on-pr.yml.tmpl", values));
    if (options.withPromotion()) {
      files.put(PROMOTE_WORKFLOW, fill("promote.yml.tmpl", values));
    }
    files.put(POLICY, fill("policy.yaml.tmpl", values));
    files.put(KYVERNO_POLICY, fill("kyverno-clusterpolicy.yaml.tmpl", values));
    files.put(
        KYVERNO_DRY_RUN_RBAC,
        fill("kyverno-dryrun-rbac.yaml.tmpl", values).replaceAll("\n+$", "\n"));
    files.put(ARGOCD_APPLICATION, fill("argocd-application.yaml.tmpl", values));
    return files;
  }

  /** One RBAC rule per API group: create, as Kyverno's dry run does. */
  private static String rbacRules(List<ManifestInventory.Kind> kinds) {
    Map<String, SortedSet<String>> byGroup = new TreeMap<>();
    for (ManifestInventory.Kind kind : kinds) {
      byGroup
          .computeIfAbsent(kind.group(), g -> new TreeSet<>())
          .add(KubernetesKinds.resource(kind.kind()));
    }
    List<String> rules = new ArrayList<>();
    byGroup.forEach(
        (group, resources) ->
            rules.add(
                "  - apiGroups: [\""
                    + group
                    + "\"]\n"
                    + "    resources: "
                    + flowList(List.copyOf(resources))
                    + "\n"
                    + "    verbs: [create]"));
    return String.join("\n", rules);
  }

  private static String flowList(List<String> values) {
    return values.stream().map(v -> "\"" + v + "\"").collect(Collectors.joining(", ", "[", "]"));
  }

  private static String lines(List<String> values, Function<String, String> line) {
    return values.stream().map(line).collect(Collectors.joining("\n"));
  }

  /** A DNS-label-like rule name part from the repository name. */
  private static String label(String repository) {
    String label =
        repository.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("^-+|-+$", "");
    return label.isEmpty()
        ? "this-repository"
        : label.length() > 40 ? label.substring(0, 40).replaceAll("-+$", "") : label;
  }

  /**
   * Writes the files below {@code repositoryRoot}.
   *
   * @return the relative paths written, in order
   * @throws UsageProblem when a file exists and {@code force} is off (nothing is written then)
   * @throws InputProblem when a file or a directory on the way to it is a symbolic link
   * @throws EnvironmentProblem when a file cannot be written (then none is)
   */
  public List<Path> write(Path repositoryRoot, InitOptions options) {
    Map<Path, String> files = render(options);
    if (!options.force()) {
      for (Path relative : files.keySet()) {
        if (Files.exists(repositoryRoot.resolve(relative), LinkOption.NOFOLLOW_LINKS)) {
          throw new UsageProblem(
              "Refusing to overwrite "
                  + RepositoryPaths.slashed(relative)
                  + " while running countersign init",
              "perhaps you should move it away or pass --force to replace it");
        }
      }
    }
    // All or nothing, and never through a link: a checkout's links are whoever committed them.
    AtomicWrites writes = new AtomicWrites();
    List<Path> written = new ArrayList<>();
    for (Map.Entry<Path, String> file : files.entrySet()) {
      writes.stage(
          repositoryRoot,
          repositoryRoot.resolve(file.getKey()),
          file.getValue().getBytes(StandardCharsets.UTF_8));
      written.add(file.getKey());
    }
    writes.commit();
    return written;
  }

  private static String fill(String template, Map<String, String> values) {
    String text;
    try (InputStream in = RepositoryInitializer.class.getResourceAsStream(template)) {
      if (in == null) {
        throw new InternalProblem(
            "The template " + template + " is missing from the countersign jar");
      }
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new InternalProblem(
          "Could not read the template " + template + " from the countersign jar", null, e);
    }
    Matcher matcher = PLACEHOLDER.matcher(text);
    StringBuilder out = new StringBuilder();
    while (matcher.find()) {
      String value = values.get(matcher.group(1));
      if (value == null) {
        throw new InternalProblem(
            "The template " + template + " uses the unknown placeholder " + matcher.group());
      }
      matcher.appendReplacement(out, Matcher.quoteReplacement(value));
    }
    matcher.appendTail(out);
    return out.toString();
  }
}
