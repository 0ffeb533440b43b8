package dev.countersign.pipeline;

import dev.countersign.git.CommitAuthorship;
import dev.countersign.git.GitIdentity;
import dev.countersign.git.GitRemote;
import dev.countersign.support.problems.UsageProblem;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a {@link ReconcileJob} does. Build with {@link #builder(String, GitRemote)}.
 *
 * @param dirs unsigned-to-signed directory pairs; {@code unsigned:signed} by default
 * @param branch the branch to reconcile and push to (never inferred from HEAD)
 * @param remote where to push and fetch
 * @param pushAttempts how many times to try the push before giving up (at least 1)
 * @param authorship who the signing commit is by, its run id (e.g. GITHUB_RUN_ID) and sign-off
 * @param commitSubject replaces the generated first line of the commit message
 * @param dryRun print the plan and change nothing (nothing is signed either)
 * @param backoff base delay between push attempts; doubled each time and jittered
 * @param push push the commit; without it the run stops after committing locally (benchmarks, and
 *     inspecting the result before publishing it)
 * @param startFromRemote fetch the branch and start from its tip instead of from HEAD; for runs
 *     where HEAD may hold commits that must not be pushed (a developer's checkout). Off in Actions,
 *     where the checkout is the triggering commit of the branch itself
 */
public record ReconcileOptions(
    List<DirPair> dirs,
    String branch,
    GitRemote remote,
    int pushAttempts,
    CommitAuthorship authorship,
    Optional<String> commitSubject,
    boolean dryRun,
    Duration backoff,
    boolean startFromRemote,
    boolean push) {

  public ReconcileOptions {
    dirs = List.copyOf(dirs);
    Objects.requireNonNull(branch, "branch");
    Objects.requireNonNull(remote, "remote");
    Objects.requireNonNull(authorship, "authorship");
    Objects.requireNonNull(commitSubject, "commitSubject");
    Objects.requireNonNull(backoff, "backoff");
    if (dirs.isEmpty()) {
      throw new UsageProblem(
          "No directory pairs to reconcile", "perhaps you should pass unsigned:signed");
    }
    if (pushAttempts < 1 || pushAttempts > 20) {
      throw new UsageProblem(
          "push_attempts must be between 1 and 20, got " + pushAttempts,
          "perhaps you should use 3");
    }
    for (int i = 0; i < dirs.size(); i++) {
      for (int j = i + 1; j < dirs.size(); j++) {
        checkDisjoint(dirs.get(i), dirs.get(j));
      }
    }
  }

  private static void checkDisjoint(DirPair a, DirPair b) {
    for (String x : List.of(a.from(), a.to())) {
      for (String y : List.of(b.from(), b.to())) {
        if (x.equals(y) || x.startsWith(y + "/") || y.startsWith(x + "/")) {
          throw new UsageProblem(
              "The directory pairs " + a + " and " + b + " overlap",
              "perhaps you should give each pair its own directories");
        }
      }
    }
  }

  public static Builder builder(String branch, GitRemote remote) {
    return new Builder(branch, remote);
  }

  /**
   * Defaults: unsigned:signed, 3 push attempts, github-actions[bot] as author and committer, run id
   * {@code local}, no sign-off.
   */
  public static final class Builder {
    private List<DirPair> dirs = List.of(DirPair.DEFAULT);
    private final String branch;
    private final GitRemote remote;
    private int pushAttempts = 3;
    private CommitAuthorship authorship =
        new CommitAuthorship(
            GitIdentity.GITHUB_ACTIONS_BOT, GitIdentity.GITHUB_ACTIONS_BOT, "local", false);
    private Optional<String> commitSubject = Optional.empty();
    private boolean dryRun;
    private Duration backoff = Duration.ofSeconds(1);
    private boolean startFromRemote;
    private boolean push = true;

    private Builder(String branch, GitRemote remote) {
      this.branch = branch;
      this.remote = remote;
    }

    public Builder dirs(List<DirPair> value) {
      dirs = value;
      return this;
    }

    public Builder pushAttempts(int value) {
      pushAttempts = value;
      return this;
    }

    public Builder authorship(CommitAuthorship value) {
      authorship = value;
      return this;
    }

    public Builder commitSubject(String value) {
      commitSubject = Optional.ofNullable(value).filter(s -> !s.isBlank());
      return this;
    }

    public Builder dryRun(boolean value) {
      dryRun = value;
      return this;
    }

    public Builder backoff(Duration value) {
      backoff = value;
      return this;
    }

    public Builder push(boolean value) {
      push = value;
      return this;
    }

    public Builder startFromRemote(boolean value) {
      startFromRemote = value;
      return this;
    }

    public ReconcileOptions build() {
      return new ReconcileOptions(
          dirs,
          branch,
          remote,
          pushAttempts,
          authorship,
          commitSubject,
          dryRun,
          backoff,
          startFromRemote,
          push);
    }
  }
}
