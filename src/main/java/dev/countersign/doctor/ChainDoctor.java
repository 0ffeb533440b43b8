package dev.countersign.doctor;

import dev.countersign.admission.KubernetesKinds;
import dev.countersign.admission.KyvernoManifestRule;
import dev.countersign.admission.KyvernoPolicies;
import dev.countersign.admission.ServerDefaults;
import dev.countersign.gate.GateFinding;
import dev.countersign.gate.GateReport;
import dev.countersign.init.ActionReference;
import dev.countersign.init.GitHubRepository;
import dev.countersign.init.InitOptions;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.workflow.WorkflowFile;
import dev.countersign.workflow.Workflows;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Use case behind {@code countersign doctor}: reads a repository's workflows, trust policy, Kyverno
 * policies and manifests and checks every joint of the chain from "merged" to "admitted":
 *
 * <ol>
 *   <li>each signing workflow's certificate identity is accepted by the trust policy and, exactly
 *       as Kyverno compares it, by every Kyverno {@code validate.manifests} rule in the repository;
 *   <li>every kind and namespace under the manifest directories is matched by a Kyverno rule;
 *   <li>rules without {@code dryRun} do not meet objects that rely on fields the API server
 *       defaults;
 *   <li>jobs running countersign have the token permissions their command (and its protected-branch
 *       fallback) needs;
 *   <li>third-party actions are pinned by commit SHA;
 *   <li>the signers of the signed files are still accepted (after a workflow rename, say);
 *   <li>every directory pair a signing step signs from is one the trust policy names, so {@code
 *       check} judges what it signs.
 * </ol>
 *
 * One {@link GateFinding} (check {@code chain}) per broken joint, located where the fix goes. Reads
 * files only; never follows symbolic links.
 */
public final class ChainDoctor {

  public static final String RULE_TRUST_IDENTITY = "chain/trust-policy-identity";
  public static final String RULE_KYVERNO_IDENTITY = "chain/kyverno-identity";
  public static final String RULE_KYVERNO_ANY_SIGNER = "chain/kyverno-any-signer";
  public static final String RULE_KYVERNO_MISSING = "chain/kyverno-policy-missing";
  public static final String RULE_COVERAGE = "chain/kyverno-coverage";
  public static final String RULE_DRY_RUN = "chain/kyverno-dry-run";
  public static final String RULE_SIGNING_TRIGGER = "chain/signing-trigger";
  public static final String RULE_PERMISSIONS = "chain/workflow-permissions";
  public static final String RULE_PINNED = "chain/action-pinned";
  public static final String RULE_SIGNER = "chain/signed-file-signer";
  public static final String RULE_UNREADABLE = "chain/readable-file";
  public static final String RULE_TRUST_REGEXP = "chain/trust-policy-regexp";
  public static final String RULE_TRUSTED_BRANCH = "chain/trusted-branch";
  public static final String RULE_UNGATED_DIRECTORIES = "chain/ungated-directories";
  public static final String RULE_UNSIGNED_DIRECTORIES = "chain/unsigned-directories";

  /** Stands in for a branch, workflow or repository nobody reviewed, in {@link #broadSigners}. */
  private static final String PROBE = "countersign-doctor-probe";

  private static final Pattern FULL_SHA = Pattern.compile("[0-9a-f]{40}");
  private static final Pattern GLOB = Pattern.compile("[*?\\[\\]!]");

  private final Path root;
  private final Path policyPath;
  private final Optional<GitHubRepository> repository;
  private final String defaultBranch;
  private final ManifestReader reader;

  /**
   * @param repositoryRoot the work tree
   * @param policyPath the trust policy, relative to it
   * @param repository the GitHub repository the identities name (from origin or the environment)
   * @param defaultBranch the branch scheduled and dispatched runs sign on
   */
  public ChainDoctor(
      Path repositoryRoot,
      Path policyPath,
      Optional<GitHubRepository> repository,
      String defaultBranch,
      ManifestReader reader) {
    this.root = repositoryRoot.toAbsolutePath().normalize();
    this.policyPath = policyPath;
    this.repository = repository;
    this.defaultBranch = defaultBranch;
    this.reader = reader;
  }

  /** A signing workflow's identity and where it comes from. */
  private record Identity(String san, WorkflowFile workflow, int line) {}

  public GateReport examine() {
    List<GateFinding> findings = new ArrayList<>();
    PolicyFile policy = new PolicyFileLoader().load(root, policyPath);
    List<KyvernoManifestRule> rules = new KyvernoPolicies(reader).discover(root);

    Workflows.Directory workflows = Workflows.read(root);
    for (InputProblem problem : workflows.unreadable()) {
      findings.add(
          finding(
              problem.file(),
              problem.line().orElse(0),
              RULE_UNREADABLE,
              "",
              problem.what(),
              problem.hint().orElse("")));
    }

    List<Identity> identities = new ArrayList<>();
    for (WorkflowFile workflow : workflows.workflows()) {
      identities.addAll(identities(workflow, findings));
      permissions(workflow, findings);
      pinning(workflow, findings);
    }

    broadSigners(policy, identities, findings);
    signingDirectories(policy, workflows.workflows(), findings);

    for (Identity identity : identities) {
      boolean trusted =
          policy.signers().stream()
              .anyMatch(s -> s.rule().matches(identity.san(), InitOptions.GITHUB_ACTIONS_ISSUER));
      if (!trusted) {
        findings.add(
            finding(
                policy.source(),
                lineOf(policy.source(), "signers:"),
                RULE_TRUST_IDENTITY,
                "",
                identity.workflow().file()
                    + ":"
                    + identity.line()
                    + " signs as "
                    + identity.san()
                    + ", which the trust policy does not accept, so check rejects every file it"
                    + " signs",
                "perhaps you should add \"- issuer: "
                    + InitOptions.GITHUB_ACTIONS_ISSUER
                    + "\" with \"subject: "
                    + identity.san()
                    + "\" under signers"));
      }
      for (KyvernoManifestRule rule : rules) {
        if (!rule.keyless().isEmpty() && !rule.acceptsSubject(identity.san())) {
          int line = rule.keyless().get(0).line();
          findings.add(
              ruleFinding(
                  rule,
                  line,
                  RULE_KYVERNO_IDENTITY,
                  " does not list "
                      + identity.san()
                      + " (the identity "
                      + identity.workflow().file()
                      + ":"
                      + identity.line()
                      + " signs with) as a keyless subject; Kyverno compares the subject exactly"
                      + " and rejects those objects",
                  "perhaps you should add a keyless entry with subject: \""
                      + identity.san()
                      + "\" under the attestor's entries"));
        }
      }
    }
    for (KyvernoManifestRule rule : rules) {
      for (KyvernoManifestRule.KeylessEntry entry : rule.keyless()) {
        if (entry.subject().isEmpty()) {
          findings.add(
              ruleFinding(
                  rule,
                  entry.line(),
                  RULE_KYVERNO_ANY_SIGNER,
                  " has a keyless entry without subject"
                      + (entry.usesRegExp() ? " (Kyverno ignores subjectRegExp for manifests)" : "")
                      + ", so Kyverno accepts a signature by anyone",
                  "perhaps you should set subject to the signing workflow's identity"));
        }
      }
      if (rule.dryRun() && rule.dryRunNamespace().map(ns -> ns.equals("kyverno")).orElse(false)) {
        findings.add(
            ruleFinding(
                rule,
                rule.dryRunLine(),
                RULE_DRY_RUN,
                " dry-runs in the kyverno namespace, which Kyverno refuses (it then compares"
                    + " without dry-run)",
                "perhaps you should use a namespace of its own such as "
                    + InitOptions.DRY_RUN_NAMESPACE));
      }
    }

    manifests(policy, rules, findings);
    return new GateReport(findings, 0, 0, 0, 0, 0, rules.size());
  }

  /**
   * The SANs a workflow's keyless countersign steps sign with, plus findings for triggers no
   * subject can pin.
   */
  private List<Identity> identities(WorkflowFile workflow, List<GateFinding> findings) {
    List<WorkflowFile.CountersignStep> signing =
        workflow.countersignSteps().stream()
            .filter(WorkflowFile.CountersignStep::signsKeylessly)
            .toList();
    if (signing.isEmpty()) {
      return List.of();
    }
    int line = signing.get(0).line();
    List<String> events = workflow.events();
    for (String event : List.of("pull_request", "pull_request_target")) {
      if (events.contains(event)) {
        findings.add(
            finding(
                workflow.file(),
                workflow.lineOf("on." + event),
                RULE_SIGNING_TRIGGER,
                "",
                "signs on "
                    + event
                    + ": the certificate SAN then ends in @refs/pull/N/merge, different for every"
                    + " pull request, which no exact Kyverno subject can pin",
                "perhaps you should trigger on push to the branch pull requests merge into (a merge"
                    + " is a push)"));
      }
    }
    Set<String> branches = new LinkedHashSet<>();
    for (String branch : workflow.pushBranches()) {
      if (GLOB.matcher(branch).find()) {
        findings.add(
            finding(
                workflow.file(),
                workflow.lineOf("on.push.branches"),
                RULE_SIGNING_TRIGGER,
                "",
                "signs on pushes to branches matching "
                    + branch
                    + ": each branch is another certificate identity",
                "perhaps you should list the branches by name"));
      } else {
        branches.add(branch);
      }
    }
    if (events.contains("schedule")
        || events.contains("workflow_dispatch")
        || (events.contains("push") && workflow.pushBranches().isEmpty())) {
      branches.add(defaultBranch);
    }
    if (repository.isEmpty()) {
      return List.of();
    }
    List<Identity> identities = new ArrayList<>();
    for (String branch : branches) {
      identities.add(
          new Identity(
              "https://github.com/"
                  + repository.get().owner()
                  + "/"
                  + repository.get().name()
                  + "/.github/workflows/"
                  + workflow.fileName()
                  + "@refs/heads/"
                  + branch,
              workflow,
              line));
    }
    return identities;
  }

  /** Scopes each countersign step's job token needs. */
  private void permissions(WorkflowFile workflow, List<GateFinding> findings) {
    Map<String, Map<String, String>> needed = new LinkedHashMap<>();
    Map<String, String> reasons = new LinkedHashMap<>();
    for (WorkflowFile.CountersignStep step : workflow.countersignSteps()) {
      Map<String, String> job = needed.computeIfAbsent(step.job(), j -> new LinkedHashMap<>());
      switch (step.command()) {
        case "run" -> {
          if (step.signsKeylessly()) {
            job.put("id-token", "write");
            reasons.put("id-token", "keyless signing needs the OIDC token");
          }
          if (step.usesJobToken()) {
            job.put("contents", "write");
            job.put("pull-requests", "write");
            reasons.put("contents", "run pushes the signing commit with the job token");
            reasons.put(
                "pull-requests",
                "run opens a pull request when the branch is protected (or in pull-request mode)");
          } else {
            job.putIfAbsent("contents", "read");
          }
        }
        case "promote" -> {
          if (step.usesJobToken()) {
            job.put("contents", "write");
            job.put("pull-requests", "write");
            reasons.put("contents", "promote pushes its branch with the job token");
            reasons.put("pull-requests", "promote opens the pull request with the job token");
          } else {
            job.putIfAbsent("contents", "read");
          }
        }
        default -> job.putIfAbsent("contents", "read");
      }
    }
    for (Map.Entry<String, Map<String, String>> job : needed.entrySet()) {
      List<String> missing = new ArrayList<>();
      for (Map.Entry<String, String> scope : job.getValue().entrySet()) {
        String granted =
            workflow.permission(job.getKey(), scope.getKey()).orElse("(repository default)");
        boolean enough =
            granted.equals("write") || (scope.getValue().equals("read") && granted.equals("read"));
        if (!enough) {
          missing.add(
              scope.getKey()
                  + ": "
                  + scope.getValue()
                  + " (has "
                  + granted
                  + "; "
                  + reasons.getOrDefault(scope.getKey(), "the checkout reads the repository")
                  + ")");
        }
      }
      if (!missing.isEmpty()) {
        findings.add(
            finding(
                workflow.file(),
                workflow.permissionsLine(job.getKey()),
                RULE_PERMISSIONS,
                "",
                "job " + job.getKey() + " runs countersign without " + String.join(", ", missing),
                "perhaps you should add them to the job's permissions"));
      }
    }
  }

  private void pinning(WorkflowFile workflow, List<GateFinding> findings) {
    for (Map.Entry<String, String> uses : workflow.stepUses().entrySet()) {
      String value = uses.getValue().strip();
      // Local actions are in the reviewed tree; images pinned by digest are immutable; the
      // countersign placeholder is replaced at release (ActionReference is the one place).
      if (value.startsWith("./")
          || value.startsWith("docker://") && value.contains("@sha256:")
          || value.equals(ActionReference.USES)) {
        continue;
      }
      int at = value.lastIndexOf('@');
      String ref = at < 0 ? "" : value.substring(at + 1);
      if (!FULL_SHA.matcher(ref).matches()) {
        findings.add(
            finding(
                workflow.file(),
                workflow.lineOf(uses.getKey()),
                RULE_PINNED,
                "",
                value
                    + " is not pinned to a full commit SHA; a moved tag runs other code with this"
                    + " job's token",
                "perhaps you should write "
                    + (at < 0 ? value : value.substring(0, at))
                    + "@<40-hex commit of the release> # "
                    + (ref.isEmpty() ? "vX.Y.Z" : ref)));
      }
    }
  }

  /**
   * Coverage, dry-run needs and current signers of the manifests under the policy's directories.
   */
  private void manifests(
      PolicyFile policy, List<KyvernoManifestRule> rules, List<GateFinding> findings) {
    SignedManifestFormat format = new SignedManifestFormat(policy.annotationDomain(), reader);
    Map<KyvernoManifestRule, List<String>> defaulted = new LinkedHashMap<>();
    Set<Path> seen = new LinkedHashSet<>();
    boolean anyManifest = false;
    for (PolicyFile.DirectoryPair pair : policy.directories()) {
      String destination = argoDestination(pair.signed());
      for (Path signedSide : List.of(pair.unsigned(), pair.signed())) {
        boolean signed = signedSide.equals(pair.signed());
        for (Path file : ManifestTree.listUnder(root.resolve(signedSide))) {
          Path relative = root.relativize(file.toAbsolutePath().normalize());
          if (!seen.add(relative)) {
            continue;
          }
          ManifestFile manifest;
          try {
            manifest = reader.read(file, relative);
          } catch (InputProblem unreadable) {
            continue; // the merge gate reports unreadable manifests
          }
          // One decoder per file: its documents share one allowance for what they gunzip to.
          SignedManifestFormat.FileDecoder decoder = format.decoder();
          for (ManifestDocument document : manifest.documents()) {
            anyManifest = true;
            String kind = document.kind();
            String[] apiVersion = document.apiVersion().split("/");
            String version = apiVersion[apiVersion.length - 1];
            String namespace =
                KubernetesKinds.isClusterScoped(kind)
                    ? ""
                    : document.namespace().orElse(destination);
            List<KyvernoManifestRule> matching =
                rules.stream()
                    .filter(
                        rule ->
                            rule.matches(
                                document.group(), version, kind, namespace, document.name()))
                    .toList();
            if (!rules.isEmpty() && matching.isEmpty()) {
              KyvernoManifestRule first = rules.get(0);
              findings.add(
                  finding(
                      relative,
                      document.line(),
                      RULE_COVERAGE,
                      document.describe(),
                      "no Kyverno validate.manifests rule matches kind "
                          + kind
                          + (namespace.isEmpty()
                              ? " (cluster-scoped)"
                              : " in namespace " + namespace)
                          + ", so the cluster admits it signed or not",
                      "perhaps you should add "
                          + kind
                          + (namespace.isEmpty() ? "" : " and " + namespace)
                          + " to the rule's match in "
                          + RepositoryPaths.slashed(first.file())
                          + ":"
                          + first.line()));
            }
            List<ServerDefaults.DefaultedField> fields = ServerDefaults.of(document);
            for (KyvernoManifestRule rule : matching) {
              if (!rule.dryRun() && !fields.isEmpty()) {
                ServerDefaults.DefaultedField field = fields.get(0);
                defaulted
                    .computeIfAbsent(rule, r -> new ArrayList<>())
                    .add(
                        RepositoryPaths.slashed(relative)
                            + ":"
                            + field.line()
                            + " "
                            + document.describe()
                            + " "
                            + field.path()
                            + " ("
                            + field.reason()
                            + ")");
              }
            }
            if (signed) {
              signers(relative, document, decoder, format, policy, matching, findings);
            }
          }
        }
      }
    }
    for (Map.Entry<KyvernoManifestRule, List<String>> entry : defaulted.entrySet()) {
      KyvernoManifestRule rule = entry.getKey();
      List<String> examples = entry.getValue();
      findings.add(
          ruleFinding(
              rule,
              rule.dryRunLine(),
              RULE_DRY_RUN,
              " compares without dryRun, but "
                  + examples.size()
                  + " signed object"
                  + (examples.size() == 1 ? " relies" : "s rely")
                  + " on fields the API server defaults, so Kyverno rejects "
                  + (examples.size() == 1 ? "it" : "them")
                  + " although correctly signed: "
                  + String.join("; ", examples.subList(0, Math.min(3, examples.size())))
                  + (examples.size() > 3 ? "; ..." : ""),
              "perhaps you should set dryRun: {enable: true, namespace: "
                  + InitOptions.DRY_RUN_NAMESPACE
                  + "} and let Kyverno's admission controller create these kinds there (countersign"
                  + " init writes that RBAC)"));
    }
    if (rules.isEmpty() && anyManifest) {
      findings.add(
          finding(
              policy.source(),
              1,
              RULE_KYVERNO_MISSING,
              "",
              "no Kyverno ClusterPolicy or Policy with validate.manifests is kept in this"
                  + " repository, so nothing checks the signatures at admission",
              "perhaps you should run countersign init (it writes"
                  + " .countersign/cluster/kyverno-clusterpolicy.yaml) and apply it"));
    }
  }

  private void signers(
      Path file,
      ManifestDocument document,
      SignedManifestFormat.FileDecoder decoder,
      SignedManifestFormat format,
      PolicyFile policy,
      List<KyvernoManifestRule> matching,
      List<GateFinding> findings) {
    Optional<SignedContent> content;
    try {
      content = decoder.decode(document);
    } catch (IllegalArgumentException malformed) {
      return; // check reports broken signatures
    }
    if (content.isEmpty()) {
      return;
    }
    List<String> sans = new ArrayList<>();
    for (SignatureSetAnnotations set : content.get().signatureSets()) {
      set.certificatePem().flatMap(ChainDoctor::kyvernoName).ifPresent(sans::add);
    }
    if (sans.isEmpty()) {
      List<SignatureSetAnnotations> sets = content.get().signatureSets();
      // No set at all is no signature, keyed or not: check reports that itself.
      boolean keyedOnly =
          !sets.isEmpty() && sets.stream().allMatch(set -> set.certificatePem().isEmpty());
      if (keyedOnly) {
        keyedSigners(file, document, format, policy, matching, findings);
      }
      return; // otherwise check reports the certificates it cannot read
    }
    boolean trusted =
        sans.stream()
            .anyMatch(
                san ->
                    policy.signers().stream()
                        .map(PolicyFile.Signer::rule)
                        .anyMatch(rule -> rule.matchesSubject(san)));
    if (!trusted) {
      findings.add(
          signerFinding(
              file,
              document,
              sans,
              "the trust policy no longer accepts (a renamed workflow or branch?)",
              // check refuses signature annotations under an unsigned directory, so moving the
              // file back is not enough on its own.
              "perhaps you should sign it again with the current workflow (move it back under the"
                  + " unsigned directory and delete its "
                  + format.domain().domain()
                  + "/ annotations), or accept the old identity"));
    }
    for (KyvernoManifestRule rule : matching) {
      if (!rule.keyless().isEmpty() && sans.stream().noneMatch(rule::acceptsSubject)) {
        findings.add(
            signerFinding(
                file,
                document,
                sans,
                "Kyverno rule "
                    + rule.rule()
                    + " in "
                    + RepositoryPaths.slashed(rule.file())
                    + " does not accept, so the cluster rejects it",
                "perhaps you should sign it again with the workflow the rule names, or add its"
                    + " subject to the rule"));
      }
    }
  }

  /**
   * A file signed only with keys (kubectl-sigstore's {@code --key}, an adopter's files from before
   * countersign) where nothing lists a key: check rejects it on every pull request, and a rule with
   * only keyless entries rejects it at admission. Whether a listed key is the right one is for
   * check, which verifies the signature.
   */
  private static void keyedSigners(
      Path file,
      ManifestDocument document,
      SignedManifestFormat format,
      PolicyFile policy,
      List<KyvernoManifestRule> matching,
      List<GateFinding> findings) {
    String signAgain =
        "perhaps you should sign it again with the current workflow (move it back under the"
            + " unsigned directory and delete its "
            + format.domain().domain()
            + "/ annotations), or ";
    if (policy.keys().isEmpty()) {
      findings.add(
          signerFinding(
              file,
              document,
              "is signed with a key (no certificate), and the trust policy lists no keys, so check"
                  + " rejects it",
              signAgain
                  + "list its public key under keys in "
                  + RepositoryPaths.slashed(policy.source())));
    }
    for (KyvernoManifestRule rule : matching) {
      if (!rule.keyed() && !rule.keyless().isEmpty()) {
        findings.add(
            signerFinding(
                file,
                document,
                "is signed with a key (no certificate), but Kyverno rule "
                    + rule.rule()
                    + " in "
                    + RepositoryPaths.slashed(rule.file())
                    + " lists only keyless signers, so the cluster rejects it",
                signAgain + "add its public key to the rule's attestors"));
      }
    }
  }

  /** What Kyverno takes as the signer: e-mail, else subject CN, else the last SAN value. */
  private static Optional<String> kyvernoName(byte[] pem) {
    try {
      X509Certificate certificate =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(new ByteArrayInputStream(pem));
      Collection<List<?>> names = certificate.getSubjectAlternativeNames();
      String last = null;
      if (names != null) {
        for (List<?> name : names) {
          if (name.size() >= 2 && name.get(1) instanceof String value) {
            if (Integer.valueOf(1).equals(name.get(0))) {
              return Optional.of(value);
            }
            last = value;
          }
        }
      }
      return Optional.ofNullable(last);
    } catch (GeneralSecurityException | ClassCastException unreadable) {
      return Optional.empty();
    }
  }

  /**
   * The namespace the Argo CD Application that syncs {@code signedDir} deploys to, else {@code
   * default}.
   */
  private String argoDestination(Path signedDir) {
    Path argo = root.resolve(".countersign").resolve("cluster");
    for (Path file : ManifestTree.listUnder(argo)) {
      try {
        for (ManifestDocument document : reader.read(file, root.relativize(file)).documents()) {
          if (document.kind().equals("Application") && document.group().equals("argoproj.io")) {
            Map<?, ?> spec = document.content().get("spec") instanceof Map<?, ?> m ? m : Map.of();
            Map<?, ?> source = spec.get("source") instanceof Map<?, ?> m ? m : Map.of();
            Map<?, ?> destination = spec.get("destination") instanceof Map<?, ?> m ? m : Map.of();
            if (RepositoryPaths.slashed(signedDir).equals(String.valueOf(source.get("path")))
                && destination.get("namespace") instanceof String ns) {
              return ns;
            }
          }
        }
      } catch (InputProblem unreadable) {
        // not an Application file
      }
    }
    return "default";
  }

  private int lineOf(Path relative, String prefix) {
    try {
      List<String> lines = Files.readAllLines(root.resolve(relative), StandardCharsets.UTF_8);
      for (int i = 0; i < lines.size(); i++) {
        if (lines.get(i).startsWith(prefix)) {
          return i + 1;
        }
      }
    } catch (IOException | UncheckedIOException e) {
      return 0;
    }
    return 0;
  }

  /**
   * A finding at {@code line} of Kyverno rule {@code rule}'s file: "rule NAME" then {@code what}.
   */
  private static GateFinding ruleFinding(
      KyvernoManifestRule rule, int line, String ruleId, String what, String hint) {
    return finding(rule.file(), line, ruleId, rule.policy(), "rule " + rule.rule() + what, hint);
  }

  /** A signed document whose signers {@code sans} {@code refuser} does not accept. */
  private static GateFinding signerFinding(
      Path file, ManifestDocument document, List<String> sans, String refuser, String hint) {
    return signerFinding(
        file, document, "is signed by " + String.join(", ", sans) + ", which " + refuser, hint);
  }

  /** A {@link #RULE_SIGNER} finding at {@code document}: {@code what} it is signed with. */
  private static GateFinding signerFinding(
      Path file, ManifestDocument document, String what, String hint) {
    return finding(file, document.line(), RULE_SIGNER, document.describe(), what, hint);
  }

  /**
   * Trust policy signers that accept more than this repository's signing workflows on the branch
   * pull requests merge into: a regular expression that also matches the same workflow on another
   * branch or for a pull request, another workflow file, or another repository (an error: check
   * passes what any of those signs); an exact subject of this repository on another branch (a
   * warning: every push to that branch is signed and trusted, so it must be protected too).
   */
  private void broadSigners(
      PolicyFile policy, List<Identity> identities, List<GateFinding> findings) {
    if (repository.isEmpty()) {
      return;
    }
    String repositoryUrl =
        "https://github.com/" + repository.get().owner() + "/" + repository.get().name();
    String workflow =
        identities.isEmpty()
            ? "sign-on-merge.yml"
            : identities.get(0).workflow().file().getFileName().toString();
    String branchRef = "@refs/heads/" + defaultBranch;
    Map<String, String> probes = new LinkedHashMap<>();
    probes.put(
        "another branch",
        repositoryUrl + "/.github/workflows/" + workflow + "@refs/heads/" + PROBE);
    probes.put(
        "a pull request", repositoryUrl + "/.github/workflows/" + workflow + "@refs/pull/1/merge");
    probes.put(
        "another workflow file",
        repositoryUrl + "/.github/workflows/" + PROBE + ".yml" + branchRef);
    probes.put(
        "another repository",
        "https://github.com/"
            + repository.get().owner()
            + "/"
            + PROBE
            + "/.github/workflows/"
            + workflow
            + branchRef);
    Pattern ownRef =
        Pattern.compile(
            Pattern.quote(repositoryUrl) + "/\\.github/workflows/[^@]+@refs/heads/(.+)",
            Pattern.CASE_INSENSITIVE);
    for (PolicyFile.Signer signer : policy.signers()) {
      IdentityRule rule = signer.rule();
      if (!rule.matchesIssuer(InitOptions.GITHUB_ACTIONS_ISSUER)) {
        continue; // not a GitHub Actions signer: its subjects are not workflows
      }
      if (rule.subjectIsRegex()) {
        probes.entrySet().stream()
            .filter(probe -> rule.matches(probe.getValue(), InitOptions.GITHUB_ACTIONS_ISSUER))
            .findFirst()
            .ifPresent(
                probe ->
                    findings.add(
                        finding(
                            policy.source(),
                            signer.line(),
                            RULE_TRUST_REGEXP,
                            "",
                            "the trust policy's signer "
                                + rule
                                + " also accepts "
                                + probe.getKey()
                                + " (it matches "
                                + probe.getValue()
                                + "), so check passes what that signs",
                            "perhaps you should list each signing workflow's exact subject on "
                                + defaultBranch
                                + " instead")));
        continue;
      }
      Matcher own = ownRef.matcher(rule.subject());
      if (own.matches() && !own.group(1).equals(defaultBranch)) {
        findings.add(
            new GateFinding(
                policy.source(),
                Math.max(0, signer.line()),
                GateFinding.Check.CHAIN,
                RULE_TRUSTED_BRANCH,
                "",
                Hints.append(
                    "the trust policy accepts signing on "
                        + own.group(1)
                        + ", not on "
                        + defaultBranch
                        + " where pull requests merge: every push to "
                        + own.group(1)
                        + " is signed with an accepted identity",
                    "perhaps you should protect "
                        + own.group(1)
                        + " like "
                        + defaultBranch
                        + ", or remove the signer if it was not meant"),
                GateFinding.Severity.WARNING));
      }
    }
  }

  /** A directory pair a signing step signs from, and the workflow line that says so. */
  private record SigningPair(String unsigned, String signed, WorkflowFile workflow, int line) {

    String spelled() {
      return unsigned + ":" + signed;
    }
  }

  /**
   * The pairs every signing step ({@code run}, by the Action or in a {@code run:} script) signs
   * from, against the trust policy's: a pair the policy does not judge is an error at the step
   * (check judges no pull request there, and {@code run} refuses it); with some signing step found,
   * a policy pair none of them signs from is a warning (what is merged there stays unsigned).
   */
  private void signingDirectories(
      PolicyFile policy, List<WorkflowFile> workflows, List<GateFinding> findings) {
    List<SigningPair> signing = new ArrayList<>();
    for (WorkflowFile workflow : workflows) {
      for (WorkflowFile.CountersignStep step : workflow.countersignSteps()) {
        if (step.command().equals("run")) {
          Map<String, String> with = step.with();
          int line =
              Stream.of("dirs", "unsigned_dir", "signed_dir")
                  .filter(with::containsKey)
                  .findFirst()
                  .map(
                      input ->
                          workflow.lineOf(
                              "jobs." + step.job() + ".steps." + step.index() + ".with." + input))
                  .orElse(step.line());
          signing.addAll(
              signingPairs(
                  workflow,
                  with.getOrDefault("dirs", "").lines().toList(),
                  Optional.ofNullable(with.get("unsigned_dir")),
                  Optional.ofNullable(with.get("signed_dir")),
                  line));
        }
      }
      for (WorkflowFile.ScriptedRun run : workflow.scriptedRuns()) {
        signing.addAll(
            signingPairs(
                workflow,
                optionValues(run.arguments(), "--dir"),
                optionValues(run.arguments(), "--unsigned-dir").stream().reduce((a, b) -> b),
                optionValues(run.arguments(), "--signed-dir").stream().reduce((a, b) -> b),
                run.line()));
      }
    }
    String policyPairs =
        policy.directories().stream()
            .map(PolicyFile.DirectoryPair::spelled)
            .collect(Collectors.joining(", "));
    Path policyFile = policy.source();
    for (SigningPair pair : signing) {
      if (!policy.judges(pair.unsigned(), pair.signed())) {
        findings.add(
            finding(
                pair.workflow().file(),
                pair.line(),
                RULE_UNGATED_DIRECTORIES,
                "",
                "signs from "
                    + pair.spelled()
                    + ", which is not a directory pair of the trust policy ("
                    + policyPairs
                    + "), so check judges no pull request that changes it and countersign run"
                    + " refuses to sign from it",
                "perhaps you should sign from the policy's pairs, or add \"- unsigned: "
                    + pair.unsigned()
                    + "\" with \"signed: "
                    + pair.signed()
                    + "\" under directories in "
                    + RepositoryPaths.slashed(policyFile)));
      }
    }
    if (signing.isEmpty()) {
      return; // signed some other way: nothing to compare the policy's pairs with
    }
    for (PolicyFile.DirectoryPair pair : policy.directories()) {
      if (signing.stream().noneMatch(s -> pair.judges(s.unsigned(), s.signed()))) {
        findings.add(
            new GateFinding(
                policyFile,
                lineOf(policyFile, "directories:"),
                GateFinding.Check.CHAIN,
                RULE_UNSIGNED_DIRECTORIES,
                "",
                Hints.append(
                    "the trust policy's directory pair "
                        + pair.spelled()
                        + " is one no signing workflow signs from (they sign from "
                        + signing.stream()
                            .map(SigningPair::spelled)
                            .distinct()
                            .collect(Collectors.joining(", "))
                        + "), so manifests merged into "
                        + RepositoryPaths.slashed(pair.unsigned())
                        + "/ are never signed",
                    "perhaps you should add it to the signing workflow's dirs input, or remove it"
                        + " from the policy"),
                GateFinding.Severity.WARNING));
      }
    }
  }

  /**
   * The pairs a run signs from, as {@code run} decides: every {@code --dir} ({@code dirs}) given,
   * else {@code --unsigned-dir}/{@code --signed-dir} with their defaults; none when a value is a
   * GitHub expression (not known before the run) or not a pair.
   */
  private static List<SigningPair> signingPairs(
      WorkflowFile workflow,
      List<String> dirs,
      Optional<String> unsigned,
      Optional<String> signed,
      int line) {
    List<SigningPair> pairs = new ArrayList<>();
    List<String> given = dirs.stream().filter(spec -> !spec.isBlank()).toList();
    for (String spec : given) {
      int colon = spec.indexOf(':');
      if (colon >= 0) {
        signingPair(spec.substring(0, colon), spec.substring(colon + 1), workflow, line)
            .ifPresent(pairs::add);
      }
    }
    if (given.isEmpty()) {
      // An input left empty is unset, as the Action reads it.
      signingPair(
              unsigned.filter(dir -> !dir.isBlank()).orElse("unsigned"),
              signed.filter(dir -> !dir.isBlank()).orElse("signed"),
              workflow,
              line)
          .ifPresent(pairs::add);
    }
    return pairs;
  }

  /**
   * {@code from} and {@code to} as run reads them; empty when either is empty or holds a GitHub
   * expression or a shell expansion ({@code $IN}, {@code $(...)}, a backquote), known only when the
   * workflow runs (run itself refuses a pair the policy does not name).
   */
  private static Optional<SigningPair> signingPair(
      String from, String to, WorkflowFile workflow, int line) {
    String unsigned = RepositoryPaths.directory(from.strip());
    String signed = RepositoryPaths.directory(to.strip());
    String both = unsigned + signed;
    if (unsigned.isEmpty() || signed.isEmpty() || both.contains("$") || both.contains("`")) {
      return Optional.empty();
    }
    return Optional.of(new SigningPair(unsigned, signed, workflow, line));
  }

  /** The values of {@code option} in {@code arguments}, as {@code --option VALUE} or {@code =}. */
  private static List<String> optionValues(List<String> arguments, String option) {
    List<String> values = new ArrayList<>();
    for (int i = 0; i < arguments.size(); i++) {
      String argument = arguments.get(i);
      if (argument.equals(option) && i + 1 < arguments.size()) {
        values.add(arguments.get(++i));
      } else if (argument.startsWith(option + "=")) {
        values.add(argument.substring(option.length() + 1));
      }
    }
    return values;
  }

  private static GateFinding finding(
      Path file, int line, String rule, String object, String what, String hint) {
    String message = Hints.append(what, hint);
    return new GateFinding(
        file,
        Math.max(0, line),
        GateFinding.Check.CHAIN,
        rule,
        object,
        message,
        GateFinding.Severity.ERROR);
  }
}
