package dev.countersign.cli;

import dev.countersign.action.Annotation;
import dev.countersign.action.Reporter;
import dev.countersign.gate.BaseCommit;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.github.GitHubApi;
import dev.countersign.github.GitHubPullRequestHost;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.policy.PromotionTrust;
import dev.countersign.promotion.PromotionBody;
import dev.countersign.promotion.PromotionJob;
import dev.countersign.promotion.PromotionSettings;
import dev.countersign.promotion.PullRequestPublisher;
import dev.countersign.promotion.SignatureFacts;
import dev.countersign.support.Env;
import dev.countersign.support.ExitCode;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.verification.DocumentVerdict;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "promote",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "Copy verified signed manifests to another directory through a pull request.",
      "For example envs/staging/signed -> envs/prod/signed. Every source file on the base branch is"
          + " verified against the",
      "trust policy first; one that fails stops the promotion (exit 1) and nothing is pushed. Files"
          + " are copied byte for",
      "byte; target files without a source are removed. The pull request is created or updated on a"
          + " fixed branch.",
      "result: created|updated|closed|noop (closed: the base already has the content). See"
          + " docs/promotion.md."
    })
final class PromoteCommand extends Subcommand {

  @Mixin SignCommand.FormatOptions format;
  @Mixin PullRequestOptions pullRequest;
  @Mixin GitOptions git;

  @Option(
      names = "--from",
      paramLabel = "DIR",
      required = true,
      description = "Source directory of signed manifests, repository-relative.")
  String from;

  @Option(
      names = "--to",
      paramLabel = "DIR",
      required = true,
      description = "Target directory, repository-relative.")
  String to;

  @Option(
      names = "--base",
      paramLabel = "BRANCH",
      description =
          "Branch to read the source from and to merge into (default: the checked-out branch, else"
              + " main).")
  String base;

  @Option(
      names = "--policy",
      paramLabel = "FILE",
      description =
          "Trust policy, relative to the repository, read with its keys from the base commit the"
              + " sources come from, never the work tree (default: .countersign/policy.yaml when"
              + " no --key or --certificate-identity is given).")
  Path policy;

  @Mixin PublicKeyOption keys;

  @Mixin IdentityOptions identity;

  @Mixin TrustedRootOption trustedRoot;

  @Override
  int call(Runtime runtime) {
    Env env = runtime.env();
    Reporter reporter = git.reporter(runtime);
    ManifestReader reader = format.reader();
    // Checked before anything is fetched; resolved against the fetched base commit.
    PromotionTrust.Request trust =
        new PromotionTrust.Request(
            Optional.ofNullable(policy),
            new PromotionTrust.Signers(keys.files, identity.rule()),
            format::format,
            reader,
            trustedRoot.file);
    try (OwnedWorkspace owned = git.open(runtime)) {
      JGitWorkspace workspace = owned.git();
      String baseBranch =
          Optional.ofNullable(base)
              .filter(b -> !b.isBlank())
              .or(workspace::currentBranch)
              .orElse("main");
      Optional<String> pushToken = git.pushToken(env);
      GitRemote gitRemote = git.remote(env, workspace);
      String target = RepositoryPaths.directory(to);
      PromotionSettings settings =
          pullRequest.settings(
              baseBranch,
              PromotionSettings.promoteBranch(target),
              "countersign: promote " + RepositoryPaths.directory(from) + " to " + target,
              target,
              PromotionBody.Purpose.PROMOTE);
      GitHubApi api = PullRequestOptions.api(runtime, reporter, pushToken);
      GitWorkspace publishing = git.publishing(workspace, () -> api);
      PullRequestPublisher publisher =
          new PullRequestPublisher(
              publishing, new GitHubPullRequestHost(api), gitRemote, reporter, settings);
      PromotionJob.Outcome outcome =
          new PromotionJob(
                  publishing,
                  publisher,
                  reader,
                  commit -> trustAt(publishing, commit, trust, reader),
                  git.authorship(env, false),
                  reporter)
              .run(from, to, gitRemote);
      if (outcome instanceof PromotionJob.Rejected rejected) {
        for (DocumentVerdict failure : rejected.failures()) {
          // The annotation carries file and line (printed as a "file:line:" prefix outside
          // Actions).
          reporter.error(
              failure.description() + " does not verify: " + failure.reason(),
              Annotation.at(failure.file().toString(), failure.line()));
        }
        List<String> files =
            rejected.failures().stream().map(f -> f.file().toString()).distinct().toList();
        reporter.output("result", "rejected");
        reporter.output("pull-request-number", "");
        reporter.output("pull-request-url", "");
        reporter.output("commit-sha", "");
        runtime
            .err()
            .println(
                "Promotion stopped: "
                    + files.size()
                    + " of "
                    + rejected.checkedFiles()
                    + " source file(s) did not verify ("
                    + String.join(", ", files)
                    + "); nothing was pushed, perhaps you should re-sign them through the pipeline,"
                    + " or check the trust policy");
        return ExitCode.REJECTED.code();
      }
      return PullRequestOptions.report(
          runtime, reporter, ((PromotionJob.Published) outcome).result(), settings);
    }
  }

  /**
   * The trust that judges the sources of {@code commit}: the policy file and its keys read from
   * that commit's git objects, as {@code publish} and {@code check} read theirs, never from the
   * work tree.
   */
  private static PromotionJob.Trust trustAt(
      GitWorkspace workspace,
      String commit,
      PromotionTrust.Request request,
      ManifestReader reader) {
    PromotionTrust trust = request.resolve(new BaseCommit(workspace, commit).files());
    return new PromotionJob.Trust(
        trust.verifier(),
        new SignatureFacts(reader, trust.format(), trust.policy().keys()),
        trust
            .gatedSignedDirectories()
            .map(
                dirs ->
                    dirs.stream()
                        .map(dir -> RepositoryPaths.directory(RepositoryPaths.slashed(dir)))
                        .toList()));
  }
}
