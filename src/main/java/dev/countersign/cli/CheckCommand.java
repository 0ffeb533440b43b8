package dev.countersign.cli;

import dev.countersign.action.GitHubEvent;
import dev.countersign.gate.BaseCommit;
import dev.countersign.gate.ChangeUnderReview;
import dev.countersign.gate.GateReport;
import dev.countersign.gate.GateReportFormats;
import dev.countersign.gate.MergeGate;
import dev.countersign.git.GitRemote;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.RepositoryFiles;
import dev.countersign.support.Env;
import dev.countersign.support.Memoized;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

@Command(
    name = "check",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = {
      "The merge gate: verify signed manifests, validate unsigned ones, apply the governance"
          + " policies.",
      "Everything as the trust policy describes it. Run it on the pull request's merge result.",
      "On pull_request, pull_request_target and merge_group events the checkout must be the"
          + " event's change, the rules",
      "(trust policy, keys, governance policies) come from the base commit,",
      "and signed files may change only the way countersign changes them (see docs/check.md).",
      "Exit 0 when everything passes, 1 when a finding is an error, 2-6 when the gate cannot"
          + " decide (README: Exit codes)."
    })
final class CheckCommand extends Subcommand {

  /** Where the rules that judge the change come from. */
  enum PolicySource {
    auto,
    base,
    worktree
  }

  /** Events whose payload names the commit the change targets. */
  private static final Set<String> CHANGE_EVENTS =
      Set.of("pull_request", "pull_request_target", "merge_group");

  @Mixin RepoOption repo;

  @Mixin PolicyOption policy;

  @Option(
      names = "--policy-from",
      paramLabel = "SOURCE",
      defaultValue = "auto",
      description = {
        "Where the trust policy, its keys and the governance policies are read: base (the commit"
            + " the change targets,",
        "from git objects), worktree (the checked-out files; for local runs), or auto (default:"
            + " base when there is a base",
        "commit, from --base or a pull_request, pull_request_target or merge_group event, else"
            + " worktree)."
      })
  PolicySource policyFrom;

  @Option(
      names = "--base",
      paramLabel = "REV",
      description =
          "The commit the change targets (default: what GitHub's merge checkout was built on,"
              + " else the pull_request or merge_group event's base). Enables the signed-directory"
              + " rules.")
  String baseRevision;

  @Mixin TrustedRootOption trustedRoot;

  @Mixin FindingOutput output;

  @Mixin MaxFileSizeOption maxFileSize;

  @Override
  int call(Runtime runtime) {
    Path repository = repo.existingDirectory(runtime.env(), "check");
    // Read once, and only when needed: --base alone asks the payload nothing.
    Supplier<Optional<EventBase>> event = Memoized.of(() -> EventBase.read(runtime.env()));
    Optional<String> revision = baseRevision(event);
    if (policyFrom == PolicySource.base && revision.isEmpty()) {
      throw new UsageProblem(
          "--policy-from base needs the commit the change targets while starting countersign check",
          "perhaps you should pass --base REV, or run on a pull_request or merge_group event");
    }
    Supplier<TrustedRoot> roots = trustedRoot.root();
    GateReport report;
    if (revision.isEmpty()) {
      report = check(repository, RepositoryFiles.workTree(repository), Optional.empty(), roots);
    } else {
      // Fetching the base branch writes into .git (FETCH_HEAD, objects): in the Action the runner
      // user must own them afterwards, whatever the outcome.
      try (OwnedWorkspace owned = repo.open(runtime)) {
        JGitWorkspace git = owned.git();
        Optional<String> mergedInto =
            event.get().flatMap(change -> change.change().requireCheckedOut(git));
        // GitHub's merge names the base it was built on; the payload's base commit may be older
        // and lack rules the base branch has since gained. An explicit --base still wins.
        String baseCommit =
            baseRevision == null ? mergedInto.orElse(revision.get()) : revision.get();
        BaseCommit base = new BaseCommit(git, resolveBase(event, git, baseCommit));
        RepositoryFiles rules =
            policyFrom == PolicySource.worktree
                ? RepositoryFiles.workTree(repository)
                : base.files();
        requirePolicyUnlessTheChangeAddsIt(rules, git);
        report = check(repository, rules, Optional.of(base), roots);
      }
    }

    return output.print(
        runtime,
        repository.toAbsolutePath(),
        report,
        "check",
        GateReportFormats.summaryLines(report));
  }

  /**
   * The pull request that adopts countersign adds the first trust policy, so its base has none to
   * judge it by; saying "run countersign init" to the author who just did would send them in a
   * circle. It still is no pass: nothing judged the change.
   *
   * @throws UsageProblem when the base has no trust policy and the checked-out change adds one
   */
  private void requirePolicyUnlessTheChangeAddsIt(RepositoryFiles rules, JGitWorkspace git) {
    if (rules.read(policy.file).isPresent()
        || git.readFile(git.headCommitId(), RepositoryPaths.slashed(policy.file)).isEmpty()) {
      return;
    }
    throw new UsageProblem(
        "No trust policy found at "
            + policy.file
            + " in "
            + rules.describe()
            + " while starting countersign check: the base's rules judge a change, and this"
            + " change adds the first trust policy",
        "perhaps you should review this change by hand and merge it without the check, since it"
            + " adopts countersign; check judges the changes after it by the rules it adds");
  }

  private GateReport check(
      Path repository,
      RepositoryFiles rules,
      Optional<BaseCommit> base,
      Supplier<TrustedRoot> roots) {
    if (rules.read(policy.file).isEmpty()) {
      throw new UsageProblem(
          "No trust policy found at "
              + policy.file
              + " in "
              + (rules instanceof RepositoryFiles.WorkTree
                  ? repository.toString()
                  : rules.describe())
              + " while starting countersign check",
          "perhaps you should run \"countersign init\" and commit its files, or pass --policy"
              + " FILE");
    }
    PolicyFile policyFile = new PolicyFileLoader().load(rules, policy.file);
    return new MergeGate(repository, policyFile, maxFileSize.reader(), roots, rules, base).check();
  }

  /**
   * What a change event (pull_request, pull_request_target, merge_group) says about the commit the
   * change targets and the change itself, read from the payload once.
   *
   * @param sha the base commit's full id, when the payload names one
   * @param branch the base branch, when the payload names one
   * @param head the change's head commit, when the payload names one
   * @param mergeCommits the commits GitHub built for this event to merge the head into the base
   */
  private record EventBase(
      String event,
      Optional<String> sha,
      Optional<String> branch,
      Optional<String> head,
      Set<String> mergeCommits) {

    /**
     * The change the event asks about.
     *
     * @throws EnvironmentProblem when the payload names no head commit
     */
    ChangeUnderReview change() {
      return new ChangeUnderReview(
          event,
          head.orElseThrow(
              () ->
                  new EnvironmentProblem(
                      "The "
                          + event
                          + " event names no head commit while starting countersign check",
                      "perhaps you should run check on pull_request or merge_group events only")),
          mergeCommits);
    }

    /** Empty when the run is not on a change event. */
    static Optional<EventBase> read(Env env) {
      Optional<String> event =
          env.get("GITHUB_EVENT_NAME").map(String::strip).filter(CHANGE_EVENTS::contains);
      if (event.isEmpty()) {
        return Optional.empty();
      }
      GitHubEvent payload = GitHubEvent.read(env);
      boolean mergeGroup = event.get().equals("merge_group");
      Optional<String> sha =
          mergeGroup
              ? payload.text("merge_group", "base_sha")
              : payload.text("pull_request", "base", "sha");
      Optional<String> ref =
          mergeGroup
              ? payload.text("merge_group", "base_ref")
              : payload.text("pull_request", "base", "ref");
      Optional<String> head =
          fullId(
              mergeGroup
                  ? payload.text("merge_group", "head_sha")
                  : payload.text("pull_request", "head", "sha"));
      Set<String> mergeCommits = new HashSet<>();
      if (!mergeGroup) {
        fullId(payload.text("pull_request", "merge_commit_sha")).ifPresent(mergeCommits::add);
      }
      if (event.get().equals("pull_request")) {
        // On pull_request, GITHUB_SHA is the merge commit GitHub built for this event; on
        // pull_request_target it is the base branch's tip, which holds none of the change.
        fullId(env.get("GITHUB_SHA")).ifPresent(mergeCommits::add);
      }
      return Optional.of(
          new EventBase(
              event.get(),
              sha,
              ref.map(r -> r.startsWith("refs/heads/") ? r.substring("refs/heads/".length()) : r)
                  .filter(r -> !r.isBlank()),
              head,
              mergeCommits));
    }

    private static Optional<String> fullId(Optional<String> text) {
      return text.map(String::strip).filter(id -> id.matches("[0-9a-f]{40}"));
    }
  }

  /** {@code --base}, else the base commit the pull_request or merge_group event names. */
  private Optional<String> baseRevision(Supplier<Optional<EventBase>> changeEvent) {
    if (baseRevision != null) {
      return Optional.of(baseRevision.strip()).filter(r -> !r.isEmpty());
    }
    Optional<EventBase> event = changeEvent.get();
    if (event.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        event
            .get()
            .sha()
            .filter(s -> s.matches("[0-9a-f]{40}"))
            .orElseThrow(
                () ->
                    new EnvironmentProblem(
                        "The "
                            + event.get().event()
                            + " event names no base commit while starting countersign check",
                        "perhaps you should run check on pull_request or merge_group events only,"
                            + " or pass --base REV")));
  }

  /**
   * The full id of the base commit, fetching the base branch from the checkout's origin when the
   * clone lacks it (actions/checkout fetches one commit of the merge result by default).
   */
  private static String resolveBase(
      Supplier<Optional<EventBase>> event, JGitWorkspace git, String revision) {
    Optional<String> found = git.findCommit(revision);
    if (found.isPresent()) {
      return found.get();
    }
    Optional<String> branch = event.get().flatMap(EventBase::branch);
    Optional<String> origin = git.remoteUrl("origin");
    if (branch.isPresent() && origin.isPresent()) {
      git.fetch(GitRemote.anonymous(origin.get()), branch.get());
      found = git.findCommit(revision);
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new EnvironmentProblem(
        "The base commit " + revision + " is not in the clone while starting countersign check",
        "perhaps you should check out with fetch-depth: 0 (actions/checkout), or fetch the base"
            + " branch before check");
  }
}
