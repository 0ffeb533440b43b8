package dev.countersign.init;

import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.regex.Pattern;

/**
 * What {@code countersign init} generates for.
 *
 * @param owner GitHub owner (user or organisation)
 * @param repository GitHub repository name
 * @param branch the branch that merged pull requests land on and the signer runs from
 * @param unsignedDir where authors put manifests, relative to the repository
 * @param signedDir where signed manifests go, relative to the repository
 * @param namespace the Kubernetes namespace the Argo CD application deploys objects without a
 *     namespace to
 * @param inventory the kinds and namespaces already kept in the manifest directories, which the
 *     Kyverno policy must match
 * @param otherSigningWorkflows file names of other workflows in {@code .github/workflows} that sign
 *     (for example a scheduled refresh); their identities are accepted too
 * @param promotionTarget when present, also generate the promotion workflow, copying the signed
 *     directory to this one
 * @param force overwrite files that already exist
 */
public record InitOptions(
    String owner,
    String repository,
    String branch,
    Path unsignedDir,
    Path signedDir,
    String namespace,
    ManifestInventory inventory,
    List<String> otherSigningWorkflows,
    Optional<Path> promotionTarget,
    boolean force) {

  /** The signing workflow's file name; part of the signer identity, so fixed. */
  public static final String SIGNING_WORKFLOW = "sign-on-merge.yml";

  public static final String GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

  private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})");
  private static final Pattern REPOSITORY = Pattern.compile("[A-Za-z0-9._-]{1,100}");
  private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9._/-]{1,200}");
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DIRECTORY = Pattern.compile("[A-Za-z0-9._/-]{1,200}");
  private static final Pattern KIND = Pattern.compile("[A-Za-z][A-Za-z0-9]{0,62}");
  private static final Pattern GROUP =
      Pattern.compile("([a-z0-9]([-a-z0-9]*[a-z0-9])?)(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?){0,20}|");
  private static final Pattern WORKFLOW_FILE =
      Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,100}\\.ya?ml");

  /** Namespace Kyverno dry-run-creates signed messages in; never Kyverno's own namespace. */
  public static final String DRY_RUN_NAMESPACE = "countersign-dryrun";

  /** Kinds the policy matches when the repository has no manifests yet. */
  public static final List<ManifestInventory.Kind> DEFAULT_KINDS =
      List.of(
          new ManifestInventory.Kind("", "ConfigMap"),
          new ManifestInventory.Kind("apps", "Deployment"),
          new ManifestInventory.Kind("", "Service"));

  public InitOptions {
    require(owner, OWNER, "owner", "a GitHub user or organisation name such as acme");
    require(repository, REPOSITORY, "repository", "a GitHub repository name such as deploy");
    if (repository.equals(".") || repository.equals("..")) {
      throw invalid("repository", repository, "a GitHub repository name such as deploy");
    }
    require(branch, BRANCH, "branch", "a branch name such as main");
    if (branch.contains("..")
        || branch.startsWith("/")
        || branch.startsWith("-")
        || branch.endsWith("/")
        || branch.endsWith(".lock")
        || branch.contains("//")) {
      throw invalid("branch", branch, "a branch name such as main");
    }
    require(
        namespace,
        DNS_LABEL,
        "namespace",
        "a Kubernetes namespace name (lower-case letters, digits and '-')");
    unsignedDir = directory(unsignedDir, "unsigned directory");
    signedDir = directory(signedDir, "signed directory");
    if (unsignedDir.startsWith(signedDir) || signedDir.startsWith(unsignedDir)) {
      throw new UsageProblem(
          "The unsigned directory "
              + unsignedDir
              + " and the signed directory "
              + signedDir
              + " overlap while preparing countersign init",
          "perhaps you should use two separate directories such as unsigned and signed");
    }
    inventory = inventory == null ? ManifestInventory.empty() : inventory;
    for (ManifestInventory.Kind kind : inventory.kinds()) {
      require(
          kind.kind(),
          KIND,
          "kind",
          "manifests whose kind is a Kubernetes kind name such as ConfigMap");
      require(
          kind.group(), GROUP, "API group", "manifests whose apiVersion names a valid API group");
    }
    for (String found : inventory.namespaces()) {
      require(
          found,
          DNS_LABEL,
          "namespace",
          "manifests whose metadata.namespace is a Kubernetes namespace name");
    }
    otherSigningWorkflows =
        List.copyOf(otherSigningWorkflows == null ? List.of() : otherSigningWorkflows);
    for (String workflow : otherSigningWorkflows) {
      require(
          workflow,
          WORKFLOW_FILE,
          "signing workflow file",
          "a workflow file name such as refresh.yml");
    }
    promotionTarget = promotionTarget == null ? Optional.empty() : promotionTarget;
    if (promotionTarget.isPresent()) {
      Path target = directory(promotionTarget.get(), "promotion target directory");
      if (target.startsWith(signedDir)
          || signedDir.startsWith(target)
          || target.startsWith(unsignedDir)
          || unsignedDir.startsWith(target)) {
        throw new UsageProblem(
            "The promotion target "
                + target
                + " overlaps the manifest directories while preparing countersign init",
            "perhaps you should promote to a separate directory such as prod/signed");
      }
      promotionTarget = Optional.of(target);
    }
  }

  /** Defaults: unsigned/ and signed/, namespace derived from the repository name, no promotion. */
  public static InitOptions of(String owner, String repository, String branch) {
    String namespace =
        repository.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("^-+|-+$", "");
    return new InitOptions(
        owner,
        repository,
        branch,
        Path.of("unsigned"),
        Path.of("signed"),
        namespace.isEmpty() ? "default" : namespace,
        ManifestInventory.empty(),
        List.of(),
        Optional.empty(),
        false);
  }

  public InitOptions withForce(boolean value) {
    return with(f -> f.force = value);
  }

  /** With the promotion workflow to {@code prod/<signed>}, or without it. */
  public InitOptions withPromotion(boolean value) {
    return withPromotionTarget(
        value ? Optional.of(Path.of("prod").resolve(signedDir)) : Optional.empty());
  }

  public InitOptions withPromotionTarget(Optional<Path> target) {
    return with(f -> f.promotionTarget = target);
  }

  public InitOptions withDirectories(Path unsigned, Path signed) {
    return with(
        f -> {
          f.unsignedDir = unsigned;
          f.signedDir = signed;
        });
  }

  public InitOptions withNamespace(String value) {
    return with(f -> f.namespace = value);
  }

  public InitOptions withInventory(ManifestInventory value) {
    return with(f -> f.inventory = value);
  }

  public InitOptions withOtherSigningWorkflows(List<String> value) {
    return with(f -> f.otherSigningWorkflows = value);
  }

  /**
   * A copy with {@code change} applied to its fields, validated again by the constructor: the one
   * place the withers build a new value.
   */
  private InitOptions with(Consumer<Fields> change) {
    Fields f = new Fields(this);
    change.accept(f);
    return new InitOptions(
        owner,
        repository,
        branch,
        f.unsignedDir,
        f.signedDir,
        f.namespace,
        f.inventory,
        f.otherSigningWorkflows,
        f.promotionTarget,
        f.force);
  }

  /** The fields a wither may change. */
  private static final class Fields {
    Path unsignedDir;
    Path signedDir;
    String namespace;
    ManifestInventory inventory;
    List<String> otherSigningWorkflows;
    Optional<Path> promotionTarget;
    boolean force;

    Fields(InitOptions o) {
      unsignedDir = o.unsignedDir;
      signedDir = o.signedDir;
      namespace = o.namespace;
      inventory = o.inventory;
      otherSigningWorkflows = o.otherSigningWorkflows;
      promotionTarget = o.promotionTarget;
      force = o.force;
    }
  }

  public boolean withPromotion() {
    return promotionTarget.isPresent();
  }

  /**
   * The Fulcio certificate SAN of a signature made by the generated signing workflow: {@code
   * https://github.com/OWNER/REPO/.github/workflows/sign-on-merge.yml@refs/heads/BRANCH}.
   */
  public String signerSubject() {
    return subjectOf(SIGNING_WORKFLOW);
  }

  /**
   * The SAN Fulcio issues for a run of {@code workflowFile} triggered by a push to (or a schedule
   * or dispatch on) {@link #branch}: {@code https://github.com/} followed by the token's {@code
   * job_workflow_ref}.
   */
  public String subjectOf(String workflowFile) {
    return "https://github.com/"
        + owner
        + "/"
        + repository
        + "/.github/workflows/"
        + workflowFile
        + "@refs/heads/"
        + branch;
  }

  /** Every workflow file that signs: the generated one first, then the others, without repeats. */
  public List<String> signingWorkflows() {
    List<String> all = new ArrayList<>();
    all.add(SIGNING_WORKFLOW);
    otherSigningWorkflows.stream().filter(w -> !all.contains(w)).forEach(all::add);
    return all;
  }

  /** The kinds the Kyverno policy matches: those found, else {@link #DEFAULT_KINDS}. */
  public List<ManifestInventory.Kind> policyKinds() {
    return inventory.isEmpty() ? DEFAULT_KINDS : List.copyOf(inventory.kinds());
  }

  /**
   * The namespaces the Kyverno policy matches: those found, plus {@link #namespace} for objects
   * without one.
   */
  public SortedSet<String> policyNamespaces() {
    SortedSet<String> all = new TreeSet<>(inventory.namespaces());
    if (inventory.isEmpty() || inventory.withoutNamespace() || all.isEmpty()) {
      all.add(namespace);
    }
    return all;
  }

  private static Path directory(Path value, String what) {
    if (value == null) {
      throw new UsageProblem("The " + what + " is missing while preparing countersign init", null);
    }
    String text = RepositoryPaths.slashed(value);
    Path normalized = value.normalize();
    if (!DIRECTORY.matcher(text).matches()
        || value.isAbsolute()
        || normalized.startsWith("..")
        || normalized.toString().isEmpty()) {
      throw invalid(
          what,
          text,
          "a directory inside the repository such as "
              + (what.startsWith("unsigned") ? "unsigned" : "signed"));
    }
    return normalized;
  }

  private static void require(String value, Pattern pattern, String what, String example) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw invalid(what, value, example);
    }
  }

  private static UsageProblem invalid(String what, String value, String example) {
    return new UsageProblem(
        "The " + what + " \"" + value + "\" is not valid while preparing countersign init",
        "perhaps you should pass " + example);
  }
}
