package dev.countersign.cli;

import dev.countersign.action.Reporter;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignReport;
import dev.countersign.signing.SignRequest;
import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
    name = "sign",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Sign manifest files in the Kyverno / kubectl-sigstore annotation format.",
      "All or nothing: if any file is invalid or any signature fails, nothing is written."
    })
final class SignCommand extends Subcommand {

  @Mixin SignerOptions signer;
  @Mixin FormatOptions format;

  @Parameters(
      paramLabel = "PATH",
      arity = "1..*",
      description = "Manifest files or directories (searched for .yaml/.yml).")
  List<Path> paths;

  @Option(
      names = "--out",
      paramLabel = "DIR",
      description = "Write signed files here, mirroring relative paths (default: in place).")
  Path out;

  @Option(
      names = "--force",
      description =
          "Overwrite an existing output file that differs, and sign again even files this signer"
              + " already signed for their content (another key's or identity's signature is"
              + " replaced without it).")
  boolean force;

  @Option(
      names = "--append",
      description =
          "Add a signature set (signature_N...) instead of replacing existing signatures.")
  boolean append;

  @Option(
      names = "--bundle-sidecar",
      description =
          "Also write FILE.sigstore.json, a standard Sigstore bundle of the message (keyless"
              + " only; refused with --key).")
  boolean bundleSidecar;

  @Mixin ParallelOption parallel;

  @Override
  int call(Runtime runtime) {
    // A keyed signature has no certificate, so there is no Sigstore bundle to write: saying so
    // beats a run that exits 0 without the sidecar a later verification step expects.
    if (bundleSidecar && !signer.keyless()) {
      throw new UsageProblem(
          "--bundle-sidecar cannot be combined with --key: the sidecar is the Sigstore bundle of a"
              + " keyless signature",
          "drop --bundle-sidecar, or sign keylessly");
    }
    // In a workflow, the OIDC token is masked the moment it is fetched, before anything is printed.
    Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), runtime.err());
    // An output already signed over the same content is kept by the rule run keeps files by: a
    // signature by this signer that verifies (and is logged, for a logging key).
    SignJob job =
        signer.signing(runtime, reporter, format, ProgressReporters.forRuntime(runtime)).job();
    SignReport report =
        job.run(
            new SignRequest(
                paths,
                Optional.ofNullable(out),
                force,
                append,
                bundleSidecar,
                parallel.parallelism()));
    for (SignReport.Entry entry : report.entries()) {
      runtime
          .out()
          .println(
              (entry.outcome() == SignReport.Outcome.SIGNED ? "signed    " : "unchanged ")
                  + entry.input()
                  + (entry.output().equals(entry.input()) ? "" : " -> " + entry.output())
                  + "  "
                  + entry.messageDigest()
                  + entry.signer().map(s -> "  " + s).orElse("")
                  + entry.rekorLogIndex().map(i -> "  rekor#" + i).orElse(""));
    }
    runtime
        .out()
        .println(
            report.signedCount()
                + " signed, "
                + report.unchangedCount()
                + " unchanged"
                + (report.unchangedCount() > 0
                    ? " (already signed by this signer for this content; --force signs them"
                        + " again)"
                    : ""));
    return ExitCode.OK.code();
  }

  /** Annotation domain and reader limits; shared by commands that read or write signed files. */
  static final class FormatOptions {
    @Option(
        names = "--annotation-domain",
        paramLabel = "DOMAIN",
        defaultValue = "cosign.sigstore.dev",
        description =
            "Domain of the signature annotations (Kyverno validate.manifests.annotationDomain;"
                + " default: ${DEFAULT-VALUE}).")
    String domain;

    @Mixin MaxFileSizeOption maxFileSize;

    AnnotationDomain domain() {
      try {
        return new AnnotationDomain(domain);
      } catch (IllegalArgumentException e) {
        throw new UsageProblem(
            "Invalid --annotation-domain: " + e.getMessage(),
            "use a DNS subdomain such as cosign.sigstore.dev");
      }
    }

    ManifestReader reader() {
      return maxFileSize.reader();
    }

    SignedManifestFormat format() {
      return new SignedManifestFormat(domain(), reader());
    }
  }
}
