package dev.countersign.gate;

import dev.countersign.admission.KyvernoPolicies;
import dev.countersign.git.GitWorkspace;
import dev.countersign.governance.GovernanceCheck;
import dev.countersign.governance.GovernanceReport;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestFile;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.Memoized;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.DocumentVerdict;
import dev.countersign.verification.LogTimes;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import dev.countersign.verification.VerificationRun;
import dev.countersign.verification.VerificationRun.FileOutcome;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Use case: the merge gate ({@code countersign check}) over a work tree, typically a pull request's
 * merge result, as the trust policy describes it:
 *
 * <ol>
 *   <li>every manifest under a signed directory verifies exactly (its documents are its signed
 *       message) against the policy's signers and keys;
 *   <li>with a base commit (a pull request): every signed file the change adds or modifies obeys
 *       {@link SignedChangeRules} (not older, no replay, at its own path), and deletions are
 *       reported;
 *   <li>nothing else under a signed directory makes Argo CD or Flux build, apply or leave out
 *       something other than its verified manifests, no signed file the change brings and no
 *       manifest to be signed makes them leave itself out ({@link GitOpsFiles}) or carries an
 *       annotation that takes an object they deploy out of the cluster ({@link GitOpsAnnotations}),
 *       and with a base commit no changed {@code .sourceignore} above one leaves out a signed file
 *       ({@link SourceIgnoreChanges});
 *   <li>every manifest under an unsigned directory reads cleanly and obeys {@link
 *       UnsignedManifestRules};
 *   <li>after the merge, and the signing run it triggers, each pair's signed directory holds every
 *       object once ({@link DuplicateObjects}); one the base already holds twice is a warning;
 *   <li>the governance policies accept every unsigned manifest, and every signed file the change
 *       adds or modifies.
 * </ol>
 *
 * <p>The rules (policy file, key files, governance policies) come from {@code rules}: the base
 * commit for a pull request, so a pull request cannot change what judges it; its own changes to
 * them are validated and reported ({@link RuleChanges}) and take effect after the merge.
 *
 * <p>Every failure is a {@link GateFinding} located by repository-relative file and line; only
 * input the gate refuses to judge (a link, an unusable name or an oversized file under a signed or
 * unsigned directory, or a file or directory where an unsigned manifest's signed file must go, see
 * {@link ManifestTree}; with a base commit, a work tree whose manifests are not exactly the
 * checked-out commit's, see {@link CheckedOutCommit}) and configuration that stops the gate from
 * deciding (a missing key file, a malformed governance policy file, an unreachable trust root) is
 * thrown. Reads files only; the trusted root is obtained only when keyless signers are configured
 * and there are signed files to verify, or when a signed file the change modifies replaces a
 * version that carries a transparency-log bundle (whose time the not-older rule must prove).
 */
public final class MergeGate {

  public static final String RULE_SIGNATURE = "countersign/signature";
  public static final String RULE_UNREADABLE = "countersign/readable-manifest";

  private final Path repositoryRoot;
  private final PolicyFile policy;
  private final ManifestReader reader;
  private final Supplier<TrustedRoot> trustedRoot;
  private final RepositoryFiles rulesFrom;
  private final Optional<BaseCommit> base;

  /** A gate with the work tree's own rules and no base commit (local runs, tests). */
  public MergeGate(
      Path repositoryRoot,
      PolicyFile policy,
      ManifestReader reader,
      Supplier<TrustedRoot> trustedRoot) {
    this(
        repositoryRoot,
        policy,
        reader,
        trustedRoot,
        RepositoryFiles.workTree(repositoryRoot),
        Optional.empty());
  }

  /**
   * @param repositoryRoot the work tree; the policy's directories are relative to it
   * @param policy the parsed trust policy file
   * @param reader reads manifests (its size limit applies)
   * @param trustedRoot supplies the Sigstore trust material; called at most once, and only when the
   *     policy names keyless signers and some signed file exists, or a log time must be proven
   * @param rules where {@code policy} was read, and so its key files and governance policies: the
   *     base commit's files for a pull request, else the work tree
   * @param base the commit the change targets, when there is one: enables the signed-directory
   *     rules, and the report of rule changes when {@code rules} are the base's
   */
  public MergeGate(
      Path repositoryRoot,
      PolicyFile policy,
      ManifestReader reader,
      Supplier<TrustedRoot> trustedRoot,
      RepositoryFiles rules,
      Optional<BaseCommit> base) {
    this.repositoryRoot = repositoryRoot.toAbsolutePath().normalize();
    this.policy = policy;
    this.reader = reader;
    this.trustedRoot = Memoized.of(trustedRoot);
    this.rulesFrom = rules;
    this.base = base;
  }

  public GateReport check() {
    SignedManifestFormat format = new SignedManifestFormat(policy.annotationDomain(), reader);
    List<GateFinding> findings = new ArrayList<>();

    // Signed side. The key files are read first, so a broken policy fails before any verdict.
    TrustPolicy trustPolicy = policy.toTrustPolicy(rulesFrom);
    RepositoryFiles workTree = RepositoryFiles.workTree(repositoryRoot);
    Optional<RuleChanges.Report> ruleChanges =
        !(rulesFrom instanceof RepositoryFiles.WorkTree) && base.isPresent()
            ? Optional.of(RuleChanges.between(policy, base.get(), workTree))
            : Optional.empty();
    ruleChanges.ifPresent(changes -> findings.addAll(changes.findings()));
    List<PolicyFile.DirectoryPair> directories =
        judgedDirectories(ruleChanges.flatMap(RuleChanges.Report::proposed));
    // The file set first, both sides: a link, an unusable name or an oversized file under a
    // managed directory is not a finding to weigh but input the gate refuses to judge (exit 6).
    List<InputProblem> refused = new ArrayList<>();
    // Every file under a signed directory, manifest or not, with its size: GitOps tools read more.
    Map<Path, Long> signedDirectoryFiles = new TreeMap<>();
    Map<Path, PolicyFile.DirectoryPair> signedFiles =
        manifestsUnder(directories, true, refused, signedDirectoryFiles);
    Map<Path, PolicyFile.DirectoryPair> unsignedFiles =
        manifestsUnder(directories, false, refused, new TreeMap<>());
    if (refused.isEmpty()) {
      // What the signing workflow would refuse before signing: nothing may pass here and stop it.
      refused.addAll(unwritableTargets(unsignedFiles));
    }
    if (refused.isEmpty() && base.isPresent()) {
      // What the commit holds under a signed directory is what Argo CD or Flux will read, whether
      // or not the checkout wrote it.
      committedSignedDirectoryFiles(directories).forEach(signedDirectoryFiles::putIfAbsent);
      // The signing workflow signs the commit's bytes; the gate reads git's rendering of them. The
      // sidecars' bytes are judged too.
      List<Path> judged = new ArrayList<>(signedFiles.keySet());
      signedDirectoryFiles.keySet().stream()
          .filter(file -> file.getFileName().toString().endsWith(".json"))
          .forEach(judged::add);
      refused.addAll(checkedOutCommitDifferences(directories, judged, unsignedFiles.keySet()));
    }
    if (!refused.isEmpty()) {
      throw InputProblem.combine(refused);
    }
    int signedDocuments = 0;
    int verified = 0;
    // The documents of each signed file that reads, as verification read them: only what names
    // each object (VerificationRun.FileOutcome), for the duplicate-object rule.
    Map<Path, List<ManifestDocument>> signedRead = new LinkedHashMap<>();
    // Without a base commit every signed file is one the change brings, judged as verification
    // reads it (its bytes and documents), so that none is read twice or held whole till the end.
    Map<Path, List<GateFinding>> broughtWhileVerifying = new ConcurrentHashMap<>();
    if (!signedFiles.isEmpty()) {
      TrustedRoot root = trustPolicy.identities().isEmpty() ? null : trustedRoot.get();
      ManifestVerifier verifier = new ManifestVerifier(root, trustPolicy, format);
      BiConsumer<Path, ManifestFile> judgeBrought =
          base.isPresent()
              ? (file, manifest) -> {}
              : (file, manifest) ->
                  broughtWhileVerifying.put(
                      file,
                      brought(
                          file,
                          manifest.bytes(),
                          Optional.of(
                              manifest.documents().stream()
                                  .map(ManifestDocument::withoutFieldLines)
                                  .toList()),
                          workTree));
      for (Map.Entry<Path, FileOutcome> entry :
          verifyAll(verifier, signedFiles.keySet(), judgeBrought).entrySet()) {
        FileOutcome outcome = entry.getValue();
        if (outcome.unreadable() != null) {
          findings.add(unreadable(outcome.unreadable(), GateFinding.Check.SIGNATURE));
          continue;
        }
        signedRead.put(entry.getKey(), outcome.documents());
        Supplier<Boolean> asInBase = Memoized.of(() -> asInBase(entry.getKey(), workTree));
        for (DocumentVerdict verdict : outcome.verdicts()) {
          signedDocuments++;
          if (verdict.passed()) {
            verified++;
          } else {
            findings.add(rejected(verdict, signedFiles.get(entry.getKey()), asInBase.get()));
          }
        }
      }
    }

    findings.addAll(
        GitOpsFiles.underSignedDirectories(
            signedDirectoryFiles, signedFiles.keySet(), workTree::read, reader.maxBytes()));
    findings.addAll(GitOpsFiles.underUnsignedDirectories(signedTargets(unsignedFiles)));

    List<Path> signedBrought = List.of();
    if (base.isPresent()) {
      findings.addAll(
          new SourceIgnoreChanges(
                  base.get().git(), base.get().commitId(), base.get().git().headCommitId())
              .check(
                  directories.stream().map(PolicyFile.DirectoryPair::signed).toList(),
                  signedFiles.keySet()));
      SignedChangeRules.Judged judged =
          new SignedChangeRules(
                  base.get(), workTree, directories, reader, format, new LogTimes(trustedRoot))
              .check(signedFiles);
      findings.addAll(judged.findings());
      signedBrought = judged.brought();
    }
    // What Argo CD or Flux would leave out; without a base commit every signed file is new here,
    // and what the work tree's signed files hold is what is deployed.
    RepositoryFiles deployed = base.map(BaseCommit::files).orElse(workTree);
    for (Path file : base.isPresent() ? signedBrought : signedFiles.keySet()) {
      List<GateFinding> judged = broughtWhileVerifying.get(file);
      if (judged != null) {
        findings.addAll(judged);
      } else {
        // Brought by the change (known only now), or not a readable manifest: read it again.
        workTree
            .read(file)
            .ifPresent(
                bytes ->
                    findings.addAll(
                        brought(file, bytes, verifiedAgain(file, bytes, signedRead), deployed)));
      }
    }

    // Unsigned side.
    UnsignedManifestRules rules = new UnsignedManifestRules(format, reader.maxBytes());
    List<ManifestFile> readable = new ArrayList<>();
    // The repository's Kyverno policies are read only when there is something to sign.
    ServerDefaultingRule defaulting =
        new ServerDefaultingRule(
            unsignedFiles.isEmpty()
                ? List.of()
                : new KyvernoPolicies(reader).discover(repositoryRoot));
    int unsignedDocuments = 0;
    Map<Path, Path> targets = signedTargets(unsignedFiles);
    for (Path relative : unsignedFiles.keySet()) {
      try {
        ManifestFile file = reader.read(repositoryRoot.resolve(relative), relative);
        readable.add(file);
        unsignedDocuments += file.documents().size();
        findings.addAll(rules.check(file));
        findings.addAll(defaulting.check(file));
        findings.addAll(GitOpsFiles.toBeSigned(file, format));
        findings.addAll(
            GitOpsAnnotations.toBeSigned(file, targets.get(relative), deployed, reader));
      } catch (InputProblem problem) {
        findings.add(unreadable(problem, GateFinding.Check.MANIFEST));
      }
    }

    findings.addAll(
        DuplicateObjects.check(
            afterMerge(directories, signedFiles, signedRead, unsignedFiles, readable),
            () -> base.map(b -> DuplicateObjects.AfterMerge.of(b.files(), directories, reader))));

    int policies = 0;
    if (!policy.governance().policies().isEmpty()) {
      // A signed file the change brings is judged too: its content need never have been under an
      // unsigned directory (the scheduled refresh signs what its generator wrote, and any validly
      // signed file can be carried into a pull request), and the rules care what reaches the
      // cluster, not how it arrived. One the change leaves alone is not judged again.
      for (Path relative : signedBrought) {
        try {
          readable.add(reader.read(repositoryRoot.resolve(relative), relative));
        } catch (InputProblem problem) {
          // Reported by the signature check already.
        }
      }
      GovernanceReport governance = new GovernanceCheck(rulesFrom, policy).check(readable);
      policies = governance.policiesApplied();
      governance.findings().stream().map(GateFinding::governance).forEach(findings::add);
    }
    return new GateReport(
        findings,
        signedFiles.size(),
        signedDocuments,
        verified,
        unsignedFiles.size(),
        unsignedDocuments,
        policies);
  }

  /**
   * The signed directories after the merge and the signing run it triggers: the work tree's signed
   * files, each unsigned file signed over its target.
   *
   * @param signedRead the documents of the signed files that read as manifests (the others are
   *     reported by the signature check)
   * @param unsignedRead the unsigned files that read as manifests
   */
  private DuplicateObjects.AfterMerge afterMerge(
      List<PolicyFile.DirectoryPair> directories,
      Map<Path, PolicyFile.DirectoryPair> signedFiles,
      Map<Path, List<ManifestDocument>> signedRead,
      Map<Path, PolicyFile.DirectoryPair> unsignedFiles,
      List<ManifestFile> unsignedRead) {
    DuplicateObjects.AfterMerge after = new DuplicateObjects.AfterMerge(directories);
    signedRead.forEach((file, documents) -> after.signed(signedFiles.get(file), file, documents));
    for (ManifestFile file : unsignedRead) {
      after.unsigned(unsignedFiles.get(file.displayPath()), file.displayPath(), file.documents());
    }
    return after;
  }

  /**
   * The directory pairs the change is judged in: the base's, and the pairs the change's own trust
   * policy adds, judged by the base's rules. After the merge the policy names them, so the signing
   * workflow may sign from them ({@code run} refuses only pairs the policy of its commit does not
   * name): a pull request that adds a pair and content under it in one change would otherwise get
   * that content signed without any rule having judged it.
   */
  private List<PolicyFile.DirectoryPair> judgedDirectories(Optional<PolicyFile> proposed) {
    List<PolicyFile.DirectoryPair> directories = new ArrayList<>(policy.directories());
    proposed.stream()
        .flatMap(p -> p.directories().stream())
        .filter(
            pair ->
                !policy.judges(
                    RepositoryPaths.slashed(pair.unsigned()),
                    RepositoryPaths.slashed(pair.signed())))
        .forEach(directories::add);
    return directories;
  }

  /**
   * What Argo CD or Flux would leave out of a signed file the change brings ({@link
   * GitOpsFiles#signedBrought}, {@link GitOpsAnnotations#signedBrought}). Called on the verifying
   * threads without a base commit, so it must stay free of shared state.
   *
   * @param verified its documents as verification read them, without field lines; empty when it
   *     does not read (the signature check reports it)
   */
  private List<GateFinding> brought(
      Path file,
      byte[] bytes,
      Optional<List<ManifestDocument>> verified,
      RepositoryFiles deployed) {
    List<GateFinding> findings = new ArrayList<>(GitOpsFiles.signedBrought(file, bytes));
    verified.ifPresent(
        documents ->
            findings.addAll(
                GitOpsAnnotations.signedBrought(file, documents, bytes, deployed, reader)));
    return findings;
  }

  /**
   * The documents of a signed file that verification read, parsed again from {@code bytes}: only
   * what names each object was kept ({@link ManifestDocument#withOnlyObjectNames}), and a pull
   * request brings few files.
   */
  private Optional<List<ManifestDocument>> verifiedAgain(
      Path file, byte[] bytes, Map<Path, List<ManifestDocument>> signedRead) {
    if (!signedRead.containsKey(file)) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          reader.parse(bytes, file).stream().map(ManifestDocument::withoutFieldLines).toList());
    } catch (InputProblem unreadable) {
      // Read differently from what verified (changed since): judged as verification left it.
      return Optional.empty();
    }
  }

  /**
   * Reads and verifies the signed files in parallel (verification is CPU-bound: signature, chain
   * and log-entry checks), one task per file, and returns the outcomes in input order. Files are
   * named by their repository-relative path, also in reader messages. Each file that reads goes to
   * {@code alsoRead} as well, on the verifying threads.
   */
  private Map<Path, FileOutcome> verifyAll(
      ManifestVerifier verifier, Collection<Path> files, BiConsumer<Path, ManifestFile> alsoRead) {
    return new VerificationRun(reader, verifier).verifyEach(files, repositoryRoot, alsoRead);
  }

  /**
   * Repository-relative manifest paths under every signed (or unsigned) directory, with their pair,
   * as {@link ManifestTree} finds them in the work tree; refused entries (links, unusable names,
   * oversized files) are added to {@code refused}.
   *
   * @param allFiles receives every regular file found there, manifest or not, with its size
   */
  private Map<Path, PolicyFile.DirectoryPair> manifestsUnder(
      List<PolicyFile.DirectoryPair> directories,
      boolean signed,
      List<InputProblem> refused,
      Map<Path, Long> allFiles) {
    Map<Path, PolicyFile.DirectoryPair> files = new LinkedHashMap<>();
    ManifestTree tree = ManifestTree.of(reader);
    for (PolicyFile.DirectoryPair pair : directories) {
      String dir = RepositoryPaths.slashed(signed ? pair.signed() : pair.unsigned());
      try {
        for (ManifestTree.Entry entry : tree.walkFiles(repositoryRoot, dir)) {
          allFiles.putIfAbsent(Path.of(entry.path()), entry.size());
          if (ManifestTree.isManifestName(entry.path())) {
            files.putIfAbsent(Path.of(entry.path()), pair);
          }
        }
      } catch (InputProblem problem) {
        refused.addAll(problem.all());
      }
    }
    return files;
  }

  /**
   * The regular files under every signed directory in the checked-out commit, with their sizes
   * (from the object headers; nothing is read).
   */
  private Map<Path, Long> committedSignedDirectoryFiles(
      List<PolicyFile.DirectoryPair> directories) {
    GitWorkspace git = base.orElseThrow().git();
    String head = git.headCommitId();
    Map<Path, Long> files = new TreeMap<>();
    for (PolicyFile.DirectoryPair pair : directories) {
      for (GitWorkspace.TreeEntry entry :
          git.entries(head, RepositoryPaths.slashed(pair.signed()))) {
        if (entry.kind() == GitWorkspace.TreeEntry.Kind.FILE) {
          files.putIfAbsent(Path.of(entry.path()), entry.size());
        }
      }
    }
    return files;
  }

  /** Where {@code run} writes the signed file of each unsigned manifest. */
  private static Map<Path, Path> signedTargets(Map<Path, PolicyFile.DirectoryPair> unsignedFiles) {
    Map<Path, Path> targets = new LinkedHashMap<>();
    unsignedFiles.forEach((file, pair) -> targets.put(file, pair.signedFileOf(file)));
    return targets;
  }

  /**
   * Why the signed files of {@code unsignedFiles} could not be written in the work tree ({@link
   * ManifestTree#unwritableTarget}): {@code run} refuses such a tree before signing, so the gate
   * refuses it too.
   */
  private List<InputProblem> unwritableTargets(Map<Path, PolicyFile.DirectoryPair> unsignedFiles) {
    List<InputProblem> problems = new ArrayList<>();
    for (Map.Entry<Path, Path> file : signedTargets(unsignedFiles).entrySet()) {
      ManifestTree.unwritableTarget(
              RepositoryPaths.slashed(file.getValue()),
              "the signed file",
              RepositoryPaths.slashed(file.getKey()),
              path -> ManifestTree.typeIn(repositoryRoot, path))
          .ifPresent(problems::add);
    }
    return problems;
  }

  /**
   * Why the work tree's manifests are not exactly the checked-out commit's under every signed and
   * unsigned directory ({@link CheckedOutCommit}).
   */
  private List<InputProblem> checkedOutCommitDifferences(
      List<PolicyFile.DirectoryPair> pairs,
      Collection<Path> signedFiles,
      Collection<Path> unsignedFiles) {
    List<Path> directories = new ArrayList<>();
    for (PolicyFile.DirectoryPair pair : pairs) {
      directories.add(pair.signed());
      directories.add(pair.unsigned());
    }
    List<Path> judged = new ArrayList<>(signedFiles);
    judged.addAll(unsignedFiles);
    return new CheckedOutCommit(base.orElseThrow().git(), ManifestTree.of(reader))
        .differences(directories, judged);
  }

  /** True when there is a base commit and it holds {@code file} with the work tree's bytes. */
  private boolean asInBase(Path file, RepositoryFiles workTree) {
    if (base.isEmpty()) {
      return false;
    }
    Optional<byte[]> inBase = base.get().files().read(file);
    return inBase.isPresent() && Arrays.equals(inBase.get(), workTree.read(file).orElse(null));
  }

  /**
   * A signed document that does not verify. The hint depends on whose bytes they are: a file the
   * change leaves as the base has it fails under the base's own rules (a key or identity taken out
   * of the trust policy), which no edit in the change caused.
   */
  private GateFinding rejected(
      DocumentVerdict verdict, PolicyFile.DirectoryPair pair, boolean asInBase) {
    Path source = pair.unsignedFileOf(verdict.file());
    String hint =
        asInBase
            ? "perhaps you should sign it again on the base branch (move it to "
                + RepositoryPaths.slashed(source)
                + " without its "
                + policy.annotationDomain().domain()
                + "/ annotations): this change leaves the file as the base has it, and the base's"
                + " rules no longer accept its signature"
            : "perhaps you should undo the change here and make it in "
                + RepositoryPaths.slashed(source)
                + " instead; files under "
                + RepositoryPaths.slashed(pair.signed())
                + "/ are written only by the signing workflow";
    return new GateFinding(
        verdict.file(),
        verdict.line(),
        GateFinding.Check.SIGNATURE,
        RULE_SIGNATURE,
        verdict.description(),
        Hints.append(verdict.reason(), hint),
        GateFinding.Severity.ERROR);
  }

  private static GateFinding unreadable(InputProblem problem, GateFinding.Check check) {
    return new GateFinding(
        problem.file(),
        problem.line().orElse(0),
        check,
        RULE_UNREADABLE,
        "",
        Messages.of(problem),
        GateFinding.Severity.ERROR);
  }
}
