package dev.countersign.gate;

import dev.countersign.admission.KubernetesKinds;
import dev.countersign.admission.KyvernoManifestRule;
import dev.countersign.admission.ServerDefaults;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import java.util.ArrayList;
import java.util.List;

/**
 * Warns about unsigned manifests that a Kyverno {@code validate.manifests} rule of the repository
 * would reject once signed, because the rule compares without {@code dryRun} and the manifest
 * leaves out fields the API server fills in (see {@link ServerDefaults}). A warning, not an error:
 * the signature itself is fine, and the cure (dry-run, or writing the defaults) is the team's
 * choice.
 */
public final class ServerDefaultingRule {

  public static final String RULE = "countersign/server-defaults";

  private final List<KyvernoManifestRule> rulesWithoutDryRun;

  public ServerDefaultingRule(List<KyvernoManifestRule> kyvernoRules) {
    this.rulesWithoutDryRun = kyvernoRules.stream().filter(rule -> !rule.dryRun()).toList();
  }

  /**
   * One warning per document that a rule without dry-run matches and that relies on server
   * defaults.
   */
  public List<GateFinding> check(ManifestFile file) {
    List<GateFinding> findings = new ArrayList<>();
    if (rulesWithoutDryRun.isEmpty()) {
      return findings;
    }
    for (ManifestDocument document : file.documents()) {
      String[] apiVersion = document.apiVersion().split("/");
      String namespace =
          KubernetesKinds.isClusterScoped(document.kind())
              ? ""
              : document.namespace().orElse("default");
      KyvernoManifestRule rule =
          rulesWithoutDryRun.stream()
              .filter(
                  r ->
                      r.matches(
                          document.group(),
                          apiVersion[apiVersion.length - 1],
                          document.kind(),
                          namespace,
                          document.name()))
              .findFirst()
              .orElse(null);
      List<ServerDefaults.DefaultedField> fields = ServerDefaults.of(document);
      if (rule == null || fields.isEmpty()) {
        continue;
      }
      ServerDefaults.DefaultedField first = fields.get(0);
      findings.add(
          new GateFinding(
              file.displayPath(),
              first.line(),
              GateFinding.Check.MANIFEST,
              RULE,
              document.describe(),
              Hints.append(
                  "leaves out "
                      + first.path()
                      + " ("
                      + first.reason()
                      + ")"
                      + (fields.size() > 1
                          ? " and "
                              + (fields.size() - 1)
                              + " more defaulted field"
                              + (fields.size() > 2 ? "s" : "")
                          : "")
                      + "; Kyverno rule "
                      + rule.rule()
                      + " in "
                      + RepositoryPaths.slashed(rule.file())
                      + " compares without dryRun, so the cluster would reject this object once"
                      + " signed",
                  "perhaps you should write the field out, or enable dryRun in that rule"
                      + " (countersign doctor explains the RBAC)"),
              GateFinding.Severity.WARNING));
    }
    return findings;
  }
}
