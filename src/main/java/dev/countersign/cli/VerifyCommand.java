package dev.countersign.cli;

import dev.countersign.action.Reporter;
import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.ManifestTree;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.oci.ArtifactVerifier;
import dev.countersign.oci.OciReference;
import dev.countersign.support.ExitCode;
import dev.countersign.support.LogSafeJson;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.ContentMatch;
import dev.countersign.verification.DocumentVerdict;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.PayloadSignatureVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import dev.countersign.verification.VerificationRun;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Verify signed manifests: content unchanged since signing, and signed by an allowed identity"
          + " or key.",
      "Exit 0 when every document verifies, 1 when any is rejected."
    })
final class VerifyCommand extends Subcommand {

  enum Output {
    text,
    json
  }

  @Mixin SignCommand.FormatOptions format;

  @Parameters(
      paramLabel = "PATH",
      arity = "0..*",
      description = "Signed manifest files or directories.")
  List<Path> paths = new ArrayList<>();

  @Option(
      names = "--oci",
      paramLabel = "REGISTRY/REPOSITORY@DIGEST",
      description =
          "Verify the cosign signature of this OCI artifact (as `countersign publish` pushes it)"
              + " instead of manifest files.")
  String oci;

  @Mixin RegistryOptions registryOptions;

  @Mixin PublicKeyOption keys;

  @Mixin IdentityOptions identity;

  @Mixin TrustedRootOption trustedRoot;

  @Option(
      names = "--cluster-object",
      description = {
        "The files are objects read back from a cluster (kubectl get -o yaml): ignore what the API"
            + " server and",
        "controllers add (Kyverno's default ignore fields, anchored, plus --ignore-field). Without"
            + " it a file must equal",
        "its signed message exactly, as files in a repository must. A spec value the message"
            + " states must hold even where",
        "a default ignores the field (the server only fills in what a manifest leaves out)."
      })
  boolean clusterObject;

  @Option(
      names = "--ignore-field",
      paramLabel = "FIELD",
      description =
          "With --cluster-object: also ignore differences in this field, a dotted path from the"
              + " object's root, '*' for one segment (repeatable).")
  List<String> ignoreFields = new ArrayList<>();

  @Option(
      names = "--min-signers",
      paramLabel = "N",
      defaultValue = "1",
      description =
          "Distinct signers required: each --key and the identity count once, whoever signs"
              + " (default: ${DEFAULT-VALUE}).")
  int minSigners;

  @Option(
      names = "--insecure-ignore-identity",
      description =
          "Accept any keyless signer whose certificate chains to the trusted root. Unsafe: anyone"
              + " can get such a certificate.")
  boolean insecureIgnoreIdentity;

  @Option(
      names = "--output",
      paramLabel = "FORMAT",
      defaultValue = "text",
      description = "text or json (default: ${DEFAULT-VALUE}).")
  Output output;

  @Override
  int call(Runtime runtime) {
    if ((oci == null) == paths.isEmpty()) {
      throw new UsageProblem(
          oci == null
              ? "verify needs PATH (manifest files or directories) or --oci"
              : "--oci cannot be combined with PATH arguments",
          "verify files: countersign verify PATH...; verify an artifact: countersign verify --oci"
              + " REGISTRY/REPOSITORY@sha256:DIGEST");
    }
    TrustPolicy policy = trustPolicy();
    boolean keyless = !policy.identities().isEmpty() || policy.insecureIgnoreIdentity();
    // With only keys, a given --trusted-root still checks the log entries of keyed signatures
    // that carry a bundle; the public-good root is fetched only for keyless identities.
    TrustedRoot root = trustedRoot.file != null || keyless ? trustedRoot.root().get() : null;
    if (oci != null) {
      return verifyArtifact(runtime, root, policy);
    }
    SignedManifestFormat signedFormat = format.format();
    ManifestVerifier verifier =
        new ManifestVerifier(
            root,
            policy,
            signedFormat,
            clusterObject ? ContentMatch.CLUSTER_OBJECT : ContentMatch.EXACT);
    List<DocumentVerdict> verdicts =
        new VerificationRun(format.reader(), verifier)
            .verify(ManifestTree.of(format.reader()).expand(paths));
    print(runtime, verdicts);
    return verdicts.stream().allMatch(DocumentVerdict::passed)
        ? ExitCode.OK.code()
        : ExitCode.REJECTED.code();
  }

  private int verifyArtifact(Runtime runtime, TrustedRoot trustedRoot, TrustPolicy policy) {
    OciReference reference = OciReference.parse(oci, "--oci");
    if (reference.digest().isEmpty()) {
      throw new UsageProblem(
          "--oci needs a digest (REGISTRY/REPOSITORY@sha256:...), not only a tag",
          "a tag can be moved; verify the digest the emitted manifest pins");
    }
    Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), runtime.err());
    ArtifactVerifier verifier =
        new ArtifactVerifier(
            registryOptions.registry(runtime, reporter, reference),
            new PayloadSignatureVerifier(trustedRoot, policy));
    ArtifactVerifier.Verdict verdict = verifier.verify(reference);
    if (output == Output.json) {
      printJson(
          runtime,
          List.of(
              new ArtifactRow(
                  reference.toString(), verdict.passed(), verdict.reason(), verdict.signers())));
    } else {
      runtime
          .out()
          .println((verdict.passed() ? "PASS " : "FAIL ") + reference + ": " + verdict.reason());
    }
    return verdict.passed() ? ExitCode.OK.code() : ExitCode.REJECTED.code();
  }

  private TrustPolicy trustPolicy() {
    List<IdentityRule> identities = identity.rule().stream().toList();
    if (!ignoreFields.isEmpty() && !clusterObject) {
      throw new UsageProblem(
          "--ignore-field applies only to objects read back from a cluster",
          "add --cluster-object if the files come from kubectl get; files in a repository must"
              + " equal their signed message");
    }
    List<PublicKey> publicKeys = keys.files.stream().map(PublicKeys::read).toList();
    if (minSigners < 1) {
      throw new UsageProblem("--min-signers must be at least 1", null);
    }
    int entries = identities.size() + publicKeys.size();
    if (!TrustPolicy.canBeMet(minSigners, entries, insecureIgnoreIdentity)) {
      throw new UsageProblem(
          "--min-signers "
              + minSigners
              + " cannot be met: each --key and the identity count once, and "
              + entries
              + " were given",
          "pass one --key per signer that must sign (docs/trust-policy.md, \"Distinct signers\")");
    }
    return new TrustPolicy(
        identities, publicKeys, minSigners, ignoreFields, format.domain(), insecureIgnoreIdentity);
  }

  private void print(Runtime runtime, List<DocumentVerdict> verdicts) {
    if (output == Output.json) {
      printJson(
          runtime,
          verdicts.stream()
              .map(
                  v ->
                      new DocumentRow(
                          v.file().toString(),
                          v.documentIndex(),
                          v.line(),
                          v.description(),
                          v.passed(),
                          v.reason(),
                          v.signers()))
              .toList());
      return;
    }
    long failed = verdicts.stream().filter(v -> !v.passed()).count();
    for (DocumentVerdict v : verdicts) {
      runtime
          .out()
          .println(
              (v.passed() ? "PASS " : "FAIL ")
                  + v.file()
                  + (v.line() > 0 ? ":" + v.line() : "")
                  + " "
                  + v.description()
                  + ": "
                  + v.reason());
    }
    runtime.out().println(verdicts.size() - failed + " verified, " + failed + " rejected");
  }

  /** One artifact in {@code --output json}. */
  private record ArtifactRow(
      String artifact, boolean verified, String reason, List<String> signers) {}

  /** One document in {@code --output json}. */
  private record DocumentRow(
      String file,
      int document,
      int line,
      String object,
      boolean verified,
      String reason,
      List<String> signers) {}

  /** {@code rows} as a JSON array that passes through the Actions log unchanged. */
  private static void printJson(Runtime runtime, List<?> rows) {
    try {
      runtime.out().println(LogSafeJson.mapper().writeValueAsString(rows));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
