package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.gate.BaseCommit;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.oci.CommitSource;
import dev.countersign.oci.CosignSignatureFormat;
import dev.countersign.oci.EmittedManifest;
import dev.countersign.oci.OciReference;
import dev.countersign.oci.PublishJob;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.signing.MessageSigner;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.ContentMatch;
import dev.countersign.verification.DocumentVerdict;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "publish",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Push committed signed manifests to an OCI registry as one artifact and sign its digest as"
          + " cosign does.",
      "Flux (OCIRepository verify.provider: cosign) or Kyverno verifyImages can then check it. See"
          + " docs/publish.md.",
      "Every published manifest must verify against the trust policy (--policy) as the published"
          + " commit holds it."
    })
final class PublishCommand extends Subcommand {

  @Mixin SignerOptions signer;
  @Mixin SignCommand.FormatOptions format;
  @Mixin RegistryOptions registryOptions;

  @Parameters(
      paramLabel = "SOURCE",
      arity = "0..1",
      description = "Signed directory or file inside the repository (read from the commit).")
  Path sourceArgument;

  @Option(
      names = "--source",
      paramLabel = "SOURCE",
      description = "Same as the SOURCE argument (for the Action input `source`).")
  Path sourceOption;

  @Option(
      names = "--to",
      paramLabel = "REGISTRY/REPOSITORY[:TAG]",
      required = true,
      description = "Where to push the artifact.")
  String to;

  @Mixin RepoOption repo;

  @Option(
      names = "--revision",
      paramLabel = "REV",
      defaultValue = "HEAD",
      description = "Commit to publish from (default: ${DEFAULT-VALUE}).")
  String revision;

  @Mixin PolicyOption policy;

  @Option(
      names = "--source-url",
      paramLabel = "URL",
      description =
          "org.opencontainers.image.source (default: the GitHub repository of the run, else the"
              + " origin remote).")
  String sourceUrl;

  @Option(
      names = "--no-sign",
      description =
          "Push without signing. Nothing will verify the artifact; refused with --emit-manifest.")
  boolean noSign;

  @Option(
      names = "--emit-manifest",
      paramLabel = "FILE",
      description =
          "Write a manifest pinning the artifact by digest (a Flux OCIRepository by default).")
  Path emitManifest;

  @Option(
      names = "--emit-kind",
      paramLabel = "KIND",
      defaultValue = "flux",
      description =
          "flux (an OCIRepository, source.toolkit.fluxcd.io/v1) or reference (plain YAML: artifact,"
              + " digest, signer). Default: ${DEFAULT-VALUE}.")
  String emitKind;

  @Option(
      names = "--emit-name",
      paramLabel = "NAME",
      description = "metadata.name (default: the repository's last path component).")
  String emitName;

  @Option(
      names = "--emit-namespace",
      paramLabel = "NAMESPACE",
      defaultValue = "flux-system",
      description = "metadata.namespace (default: ${DEFAULT-VALUE}).")
  String emitNamespace;

  @Option(
      names = "--emit-interval",
      paramLabel = "DURATION",
      defaultValue = "10m",
      description = "spec.interval (default: ${DEFAULT-VALUE}).")
  String emitInterval;

  @Option(
      names = "--emit-key-secret",
      paramLabel = "NAME",
      description =
          "With --key: the Secret holding the cosign public key, for verify.secretRef (default:"
              + " NAME-cosign-pub).")
  String emitKeySecret;

  @Option(names = "--force", description = "Overwrite an existing --emit-manifest file.")
  boolean force;

  @Override
  int call(Runtime runtime) {
    Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), runtime.err());
    if (sourceArgument != null && sourceOption != null && !sourceArgument.equals(sourceOption)) {
      throw new UsageProblem("SOURCE and --source name different paths", "give one of them");
    }
    Path source =
        Optional.ofNullable(sourceArgument)
            .or(() -> Optional.ofNullable(sourceOption))
            .orElseThrow(
                () ->
                    new UsageProblem(
                        "publish needs SOURCE, the signed directory or file",
                        "e.g. countersign publish signed/ --to ghcr.io/org/manifests"));
    OciReference target = OciReference.parse(to, "--to");
    if (target.digest().isPresent()) {
      throw new UsageProblem(
          "--to takes REGISTRY/REPOSITORY[:TAG], not a digest",
          "the digest is computed from the content");
    }
    Optional<EmittedManifest.Settings> emit = emitSettings(target);
    if (noSign && emit.isPresent()) {
      throw new UsageProblem(
          "--no-sign cannot be combined with --emit-manifest: the emitted manifest would ask the"
              + " cluster to verify a signature that does not exist",
          "publish signed (drop --no-sign), or drop --emit-manifest");
    }
    emit.ifPresent(
        s -> EmittedManifest.checkWritable(repo.workTree(runtime.env()), emitManifest, force));
    Optional<Supplier<MessageSigner>> signerFactory =
        noSign ? Optional.empty() : Optional.of(signer.signerFactory(runtime, reporter));
    Path workTree = repo.workTree(runtime.env());
    try (JGitWorkspace workspace = JGitWorkspace.open(workTree, runtime.clock())) {
      String commit = workspace.resolveCommit(revision);
      // A relative SOURCE is resolved against --repo when given, else the current directory.
      Path sourcePath = repo.given() ? workTree.resolve(source) : source.toAbsolutePath();
      CommitSource.Contents contents =
          CommitSource.read(
              workspace,
              sourcePath,
              commit,
              Optional.ofNullable(sourceUrl),
              runtime.env(),
              format.reader(),
              verifier(workspace, commit));
      if (!contents.verified()) {
        return rejected(runtime, reporter, contents);
      }
      if (noSign) {
        reporter.warning(
            "--no-sign: the artifact is pushed WITHOUT a signature; Flux and Kyverno will refuse"
                + " it, and nothing vouches for its content");
      }
      PublishJob.Result result =
          new PublishJob(
                  registryOptions.registry(runtime, reporter, target),
                  signerFactory,
                  signer.verificationRoot(),
                  () -> signer.signingPublicKeys(runtime))
              .publish(target, contents.files(), contents.provenance());
      report(runtime, reporter, result, contents);
      emit.ifPresent(
          settings -> {
            String text =
                EmittedManifest.render(
                    settings,
                    result.reference(),
                    registryOptions.plainHttp,
                    new EmittedManifest.Signer(result.signer().orElseThrow(), result.issuer()));
            EmittedManifest.write(workTree, emitManifest, text);
            runtime
                .out()
                .println(
                    "wrote     "
                        + emitManifest
                        + " ("
                        + (settings.kind() == EmittedManifest.Kind.FLUX
                            ? "Flux OCIRepository"
                            : "reference")
                        + ")");
          });
    }
    return ExitCode.OK.code();
  }

  /**
   * The exact verifier for the published files: the trust policy, its key files and its annotation
   * domain as they are in the commit being published (read from git objects, like check's base
   * commit), so neither the work tree nor an uncommitted edit decides what is trusted.
   */
  private ManifestVerifier verifier(JGitWorkspace workspace, String commit) {
    RepositoryFiles files = new BaseCommit(workspace, commit).files();
    if (files.read(policy.file).isEmpty()) {
      throw new UsageProblem(
          "No trust policy found at "
              + policy.file
              + " in commit "
              + commit.substring(0, Math.min(12, commit.length()))
              + " while starting countersign publish",
          "perhaps you should run \"countersign init\" and commit its files, or pass --policy FILE:"
              + " publish signs only manifests that verify against the repository's trust policy");
    }
    PolicyFile policyFile = new PolicyFileLoader().load(files, policy.file);
    TrustPolicy trustPolicy = policyFile.toTrustPolicy(files);
    SignedManifestFormat policyFormat =
        new SignedManifestFormat(policyFile.annotationDomain(), format.reader());
    TrustedRoot root = trustPolicy.identities().isEmpty() ? null : signer.verificationRoot().get();
    return new ManifestVerifier(root, trustPolicy, policyFormat, ContentMatch.EXACT);
  }

  /**
   * Prints every failed verdict (an error annotation on the file in a workflow) and gives exit 1;
   * nothing was pushed or signed.
   */
  static int rejected(Runtime runtime, Reporter reporter, CommitSource.Contents contents) {
    for (DocumentVerdict v : contents.rejected()) {
      reporter.error(
          v.description() + " does not verify: " + v.reason(),
          Annotation.at(v.file().toString(), v.line()));
    }
    long files = contents.rejected().stream().map(DocumentVerdict::file).distinct().count();
    runtime
        .out()
        .println("rejected: " + files + " file(s) do not verify; nothing was pushed or signed");
    return ExitCode.REJECTED.code();
  }

  static void report(
      Runtime runtime,
      Reporter reporter,
      PublishJob.Result result,
      CommitSource.Contents contents) {
    runtime
        .out()
        .println(
            (result.artifactPushed() ? "pushed    " : "unchanged ")
                + result.reference()
                + "  ("
                + contents.files().size()
                + " file(s) from "
                + contents
                    .provenance()
                    .revision()
                    .substring(0, Math.min(12, contents.provenance().revision().length()))
                + ", "
                + result.writes().blobs()
                + " blob(s) and "
                + result.writes().manifests()
                + " manifest(s) sent)");
    switch (result.signature()) {
      case SIGNED ->
          runtime
              .out()
              .println(
                  "signed    "
                      + result
                          .reference()
                          .withTag(CosignSignatureFormat.signatureTag(result.digest()))
                      + "  by "
                      + result.signer().orElse("?")
                      + result.issuer().map(i -> " (" + i + ")").orElse(""));
      case ALREADY_SIGNED ->
          runtime
              .out()
              .println("unchanged signature: already signed by " + result.signer().orElse("?"));
      case UNSIGNED -> runtime.out().println("UNSIGNED  " + result.reference());
    }
    reporter.output("artifact-digest", result.digest());
    reporter.output("artifact-reference", result.reference().toString());
  }

  private Optional<EmittedManifest.Settings> emitSettings(OciReference target) {
    if (emitManifest == null) {
      return Optional.empty();
    }
    EmittedManifest.Kind kind =
        switch (emitKind.strip().toLowerCase(Locale.ROOT)) {
          case "flux", "ocirepository" -> EmittedManifest.Kind.FLUX;
          case "reference" -> EmittedManifest.Kind.REFERENCE;
          default ->
              throw new UsageProblem(
                  "Unknown --emit-kind \"" + emitKind + "\"", "use flux or reference");
        };
    String name =
        Optional.ofNullable(emitName).orElseGet(() -> EmittedManifest.defaultName(target));
    EmittedManifest.Settings settings =
        new EmittedManifest.Settings(
            kind,
            name,
            emitNamespace,
            emitInterval,
            Optional.ofNullable(emitKeySecret)
                .orElse(
                    name.length() > 52
                        ? name.substring(0, 52) + "-cosign-pub"
                        : name + "-cosign-pub"));
    EmittedManifest.check(settings);
    return Optional.of(settings);
  }
}
