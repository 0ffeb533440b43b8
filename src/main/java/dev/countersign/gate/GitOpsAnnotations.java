package dev.countersign.gate;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.Memoized;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Annotations (and, for Flux, labels) on an object that make Argo CD or Flux leave it out of what
 * they keep deployed, while the signed directory still holds it: one line in a diff, and the
 * reviewed object leaves the cluster or stops reaching it. As the tools read them:
 *
 * <ul>
 *   <li>{@code argocd.argoproj.io/hook} with any value but {@code Skip} alone, or else {@code
 *       helm.sh/hook} with any value but {@code crd-install}, makes the object a hook, not a
 *       managed resource (gitops-engine {@code hook.IsHook}, {@code sync.splitHooks}): the object
 *       Argo CD deployed from the file before is no longer a target, so it is pruned as extraneous
 *       ({@code sync.Reconcile}); the hook is created only during a sync phase and, with {@code
 *       HookSucceeded} or {@code HookFailed} ({@code hook-succeeded}, {@code hook-failed}), deleted
 *       after it ({@code hook.DeletePolicies}); a value naming no sync phase ({@code PreDelete},
 *       {@code test}, a typo) makes Argo CD drop it altogether ({@code ignore.Ignore}, argo-cd
 *       {@code isHook});
 *   <li>{@code argocd.argoproj.io/hook: Skip} makes Argo CD never apply it ({@code syncPhases}): a
 *       deployed object stays as it was, no longer updated or compared;
 *   <li>Flux's kustomize-controller skips applying an object whose annotations or labels hold
 *       {@code kustomize.toolkit.fluxcd.io/reconcile: disabled} or {@code
 *       kustomize.toolkit.fluxcd.io/ssa: Ignore}, and patches none that exists with {@code
 *       kustomize.toolkit.fluxcd.io/ssa: IfNotPresent} (its {@code ExclusionSelector} and {@code
 *       IfNotPresentSelector}, values compared case-insensitively by fluxcd/pkg {@code
 *       ssa/utils.AnyInMetadata}).
 * </ul>
 *
 * Such an object is an error when the file it will be deployed from deploys it now without any of
 * them (the base commit's signed file, or without a base the work tree's): the change takes a
 * deployed object out of the cluster, or freezes it, and no deletion shows. Otherwise it is a
 * warning naming the effect, except a hook on a Job or Pod, which is what hooks are for (a
 * migration run before each sync). Annotations that change only how an object is applied or removed
 * later (Argo CD's {@code sync-options} {@code Prune=false}, {@code Delete=false}, {@code
 * Replace=true}, {@code Force=true}, ...; Flux's {@code prune: disabled}, {@code ssa: Merge},
 * {@code force: enabled}) get a warning when the change brings them.
 */
final class GitOpsAnnotations {

  private static final String ARGO_HOOK = "argocd.argoproj.io/hook";
  private static final String ARGO_HOOK_DELETE_POLICY = "argocd.argoproj.io/hook-delete-policy";
  private static final String HELM_HOOK = "helm.sh/hook";
  private static final String HELM_HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy";
  private static final String ARGO_SYNC_OPTIONS = "argocd.argoproj.io/sync-options";
  private static final String FLUX = "kustomize.toolkit.fluxcd.io/";

  /** gitops-engine {@code common.NewHookType}. */
  private static final Set<String> ARGO_HOOK_TYPES =
      Set.of("PreSync", "Sync", "PostSync", "SyncFail", "Skip");

  /** gitops-engine {@code helm.NewType}: the Helm hooks Argo CD maps to a sync phase. */
  private static final Map<String, String> HELM_HOOK_PHASES =
      Map.of(
          "pre-install", "PreSync",
          "pre-upgrade", "PreSync",
          "post-install", "PostSync",
          "post-upgrade", "PostSync");

  /** Delete policies that remove a hook once its phase ends, in both spellings. */
  private static final Set<String> DELETING_POLICIES =
      Set.of("HookSucceeded", "HookFailed", "hook-succeeded", "hook-failed");

  /** Argo CD sync options that change how the object is applied or removed, and how. */
  private static final Map<String, String> ARGO_SYNC_OPTION_EFFECTS =
      Map.of(
          "Prune=false", "Argo CD never prunes it, so deleting its file leaves it in the cluster",
          "Prune=confirm", "Argo CD prunes it only when someone confirms",
          "Delete=false", "Argo CD leaves it in the cluster when the Application is deleted",
          "Delete=confirm", "Argo CD deletes it only when someone confirms",
          "Replace=true", "Argo CD replaces it (kubectl replace/create) instead of applying it",
          "Force=true", "Argo CD may delete and re-create it on a sync",
          "SkipDryRunOnMissingResource=true", "Argo CD applies it without the server-side dry run",
          "Validate=false", "Argo CD applies it without schema validation");

  /** Flux annotations or labels (case-insensitive values) that change how it is applied. */
  private static final Map<String, Map<String, String>> FLUX_EFFECTS =
      Map.of(
          FLUX + "prune",
          Map.of("disabled", "Flux never prunes it, so deleting its file leaves it in the cluster"),
          FLUX + "ssa",
          Map.of(
              "merge",
              "Flux keeps fields others set on it in the cluster instead of removing them"),
          FLUX + "force",
          Map.of("enabled", "Flux deletes and re-creates it when an immutable field changes"));

  private GitOpsAnnotations() {}

  /**
   * The findings for the documents of {@code file} that will be deployed from {@code target}.
   *
   * @param file the file named in findings (an unsigned manifest, or the signed file itself)
   * @param documents what will be signed (or is signed) there
   * @param check the check the findings belong to
   * @param target the signed file they will be deployed from
   * @param deployed the documents the cluster holds from {@code target} now (empty when none); read
   *     only when a document sets an annotation this rule knows
   */
  private static List<GateFinding> check(
      Path file,
      List<ManifestDocument> documents,
      GateFinding.Check check,
      Path target,
      Supplier<List<ManifestDocument>> deployed) {
    if (documents.stream().noneMatch(GitOpsAnnotations::setsAny)) {
      return List.of();
    }
    List<GateFinding> findings = new ArrayList<>();
    for (ManifestDocument document : documents) {
      Optional<ManifestDocument> before = sameObject(document, deployed.get());
      Optional<LeftOut> leftOut = leftOut(document);
      if (leftOut.isPresent()) {
        boolean deployedWithout = before.isPresent() && leftOut(before.get()).isEmpty();
        if (deployedWithout) {
          findings.add(
              finding(
                  file,
                  document,
                  leftOut.get().field(),
                  check,
                  leftOut.get().effect()
                      + "; "
                      + ManifestTree.escaped(RepositoryPaths.slashed(target))
                      + " deploys it without that, so "
                      + leftOut.get().consequence()
                      + " while the signed directory still holds it and no deletion shows",
                  "perhaps you should remove it; to retire the object, delete its file so the"
                      + " removal shows in the change",
                  GateFinding.Severity.ERROR));
        } else if (!leftOut.get().hookOnAWorkload()) {
          findings.add(
              finding(
                  file,
                  document,
                  leftOut.get().field(),
                  check,
                  leftOut.get().effect(),
                  "perhaps you should remove it unless the object is not meant to stay deployed",
                  GateFinding.Severity.WARNING));
        }
      }
      for (Changed changed : behaviourChanges(document)) {
        boolean brought = before.map(b -> !behaviourChanges(b).contains(changed)).orElse(true);
        if (brought) {
          findings.add(
              finding(
                  file,
                  document,
                  changed.field(),
                  check,
                  changed.effect(),
                  "perhaps you should make sure reviewers meant it",
                  GateFinding.Severity.WARNING));
        }
      }
    }
    return findings;
  }

  /**
   * The findings for a manifest the signing workflow will sign over {@code target} (one under an
   * unsigned directory, or the refresh's generated content): {@link #check} against what {@code
   * deployed} holds at {@code target}.
   */
  static List<GateFinding> toBeSigned(
      ManifestFile file, Path target, RepositoryFiles deployed, ManifestReader reader) {
    return check(
        file.displayPath(),
        file.documents(),
        GateFinding.Check.MANIFEST,
        target,
        Memoized.of(() -> deployedFrom(deployed, target, reader)));
  }

  /**
   * The findings for a signed file a change adds or modifies (every one, without a base commit):
   * {@link #check} against what {@code deployed} holds at its path.
   *
   * @param verified its documents as verification read them (without field lines): the file is
   *     parsed again, for the lines, only when one sets an annotation this rule knows
   * @param bytes the file's bytes
   */
  static List<GateFinding> signedBrought(
      Path file,
      List<ManifestDocument> verified,
      byte[] bytes,
      RepositoryFiles deployed,
      ManifestReader reader) {
    if (verified.stream().noneMatch(GitOpsAnnotations::setsAny)) {
      return List.of();
    }
    return check(
        file,
        reader.parse(bytes, file),
        GateFinding.Check.SIGNATURE,
        file,
        Memoized.of(() -> deployedFrom(deployed, file, reader)));
  }

  /**
   * The documents {@code files} holds at {@code target}, as the cluster has them from there now;
   * empty when there is no such manifest or it does not read (the signature check reports that).
   */
  private static List<ManifestDocument> deployedFrom(
      RepositoryFiles files, Path target, ManifestReader reader) {
    try {
      return files.read(target).map(bytes -> reader.parse(bytes, target)).orElse(List.of());
    } catch (InputProblem unreadable) {
      return List.of();
    }
  }

  /** How the tools leave an object out, and the annotation (or label) that makes them. */
  private record LeftOut(
      String field, String effect, String consequence, boolean hookOnAWorkload) {}

  private static final String LEAVES = "the deployed object would leave the cluster";
  private static final String FROZEN =
      "neither this change nor any later one to the deployed object would reach the cluster";

  /** An annotation (or label) that changes how the object is applied or removed. */
  private record Changed(String field, String effect) {}

  /** Whether {@code document} sets an annotation (or Flux label) this rule judges. */
  private static boolean setsAny(ManifestDocument document) {
    return leftOut(document).isPresent() || !behaviourChanges(document).isEmpty();
  }

  private static Optional<ManifestDocument> sameObject(
      ManifestDocument document, List<ManifestDocument> deployed) {
    ObjectIdentity identity = ObjectIdentity.of(document);
    return deployed.stream().filter(d -> ObjectIdentity.of(d).mayBe(identity)).findFirst();
  }

  private static Optional<LeftOut> leftOut(ManifestDocument document) {
    Map<String, String> annotations = document.annotations();
    Set<String> argoTypes = csv(annotations.getOrDefault(ARGO_HOOK, ""));
    argoTypes.retainAll(ARGO_HOOK_TYPES);
    if (annotations.containsKey(ARGO_HOOK) && argoTypes.equals(Set.of("Skip"))) {
      return Optional.of(
          new LeftOut(
              "metadata.annotations." + ARGO_HOOK,
              spelled(ARGO_HOOK, annotations.get(ARGO_HOOK))
                  + " makes Argo CD skip the object: it never applies it, and leaves one it"
                  + " deployed as it is",
              FROZEN,
              false));
    }
    boolean helmHook =
        annotations.containsKey(HELM_HOOK) && !annotations.get(HELM_HOOK).equals("crd-install");
    if (annotations.containsKey(ARGO_HOOK) || helmHook) {
      // gitops-engine hook.Types: the Argo CD types, else the Helm ones it maps to a phase.
      String key = annotations.containsKey(ARGO_HOOK) ? ARGO_HOOK : HELM_HOOK;
      Set<String> phases = new LinkedHashSet<>(argoTypes);
      phases.remove("Skip");
      if (argoTypes.isEmpty()) {
        for (String type : csv(annotations.getOrDefault(HELM_HOOK, ""))) {
          Optional.ofNullable(HELM_HOOK_PHASES.get(type)).ifPresent(phases::add);
        }
      }
      return Optional.of(
          new LeftOut(
              "metadata.annotations." + key,
              hookEffect(spelled(key, annotations.get(key)), phases, annotations),
              LEAVES,
              isWorkload(document)));
    }
    for (String[] skip :
        new String[][] {
          {FLUX + "reconcile", "disabled", "skip applying it"},
          {FLUX + "ssa", "Ignore", "skip applying it"},
          {FLUX + "ssa", "IfNotPresent", "create it only when it is missing, never update it"}
        }) {
      Optional<String> field = fluxField(document, skip[0], skip[1]);
      if (field.isPresent()) {
        return Optional.of(
            new LeftOut(
                field.get(),
                spelled(skip[0], fluxValue(document, field.get()))
                    + " makes Flux's kustomize-controller "
                    + skip[2]
                    + ", and leave one it deployed as it is",
                FROZEN,
                false));
      }
    }
    return Optional.empty();
  }

  private static String hookEffect(
      String spelled, Set<String> phases, Map<String, String> annotations) {
    if (phases.isEmpty()) {
      return spelled
          + " makes the object an Argo CD hook of no sync phase: Argo CD never applies it in a"
          + " sync, and with prune deletes the one it deployed";
    }
    List<String> deleting = new ArrayList<>();
    for (String key : List.of(ARGO_HOOK_DELETE_POLICY, HELM_HOOK_DELETE_POLICY)) {
      if (annotations.containsKey(key)) {
        for (String policy : csv(annotations.get(key))) {
          if (DELETING_POLICIES.contains(policy)) {
            deleting.add(spelled(key, policy));
          }
        }
      }
    }
    return spelled
        + " makes the object an Argo CD "
        + String.join(",", phases)
        + " hook, not a deployed object: with prune Argo CD deletes the one it deployed, and"
        + " creates the hook only during a sync"
        + (deleting.isEmpty()
            ? " (and deletes it again before the next one)"
            : ", deleting it again after that phase (" + String.join(", ", deleting) + ")");
  }

  private static List<Changed> behaviourChanges(ManifestDocument document) {
    List<Changed> changes = new ArrayList<>();
    Map<String, String> annotations = document.annotations();
    if (annotations.containsKey(ARGO_SYNC_OPTIONS)) {
      for (String option : csv(annotations.get(ARGO_SYNC_OPTIONS))) {
        Optional.ofNullable(ARGO_SYNC_OPTION_EFFECTS.get(option))
            .ifPresent(
                effect ->
                    changes.add(
                        new Changed(
                            "metadata.annotations." + ARGO_SYNC_OPTIONS,
                            spelled(ARGO_SYNC_OPTIONS, option) + ": " + effect)));
      }
    }
    FLUX_EFFECTS.forEach(
        (key, values) ->
            values.forEach(
                (value, effect) ->
                    fluxField(document, key, value)
                        .ifPresent(
                            field ->
                                changes.add(
                                    new Changed(
                                        field,
                                        spelled(key, fluxValue(document, field))
                                            + ": "
                                            + effect)))));
    return changes;
  }

  /**
   * Where {@code document} sets {@code key} to {@code value} (case-insensitively) as an annotation
   * or a label: Flux matches its selectors against both.
   */
  private static Optional<String> fluxField(ManifestDocument document, String key, String value) {
    if (value.equalsIgnoreCase(document.annotations().get(key))) {
      return Optional.of("metadata.annotations." + key);
    }
    Object labels = document.metadata().get("labels");
    if (labels instanceof Map<?, ?> map
        && map.get(key) instanceof String label
        && value.equalsIgnoreCase(label)) {
      return Optional.of("metadata.labels." + key);
    }
    return Optional.empty();
  }

  /** The value at {@code field}, an annotation or label {@link #fluxField} found. */
  private static String fluxValue(ManifestDocument document, String field) {
    String annotations = "metadata.annotations.";
    if (field.startsWith(annotations)) {
      return document.annotations().get(field.substring(annotations.length()));
    }
    Map<?, ?> labels = (Map<?, ?>) document.metadata().get("labels");
    return String.valueOf(labels.get(field.substring("metadata.labels.".length())));
  }

  /** A kind hooks are for: something that runs to completion. */
  private static boolean isWorkload(ManifestDocument document) {
    return document.group().equals("batch") && document.kind().equals("Job")
        || document.group().isEmpty() && document.kind().equals("Pod");
  }

  /** gitops-engine {@code GetAnnotationCSVs}: trimmed, non-empty, de-duplicated. */
  private static Set<String> csv(String value) {
    Set<String> items = new LinkedHashSet<>();
    for (String item : value.split(",", -1)) {
      if (!item.strip().isEmpty()) {
        items.add(item.strip());
      }
    }
    return items;
  }

  private static String spelled(String key, String value) {
    return ManifestTree.escaped(key + ": " + value);
  }

  private static GateFinding finding(
      Path file,
      ManifestDocument document,
      String field,
      GateFinding.Check check,
      String message,
      String hint,
      GateFinding.Severity severity) {
    return new GateFinding(
        ManifestTree.displayPath(RepositoryPaths.slashed(file)),
        document.lineOf(field),
        check,
        GitOpsFiles.RULE_FILE,
        document.describe(),
        Hints.append(message, hint),
        severity);
  }
}
