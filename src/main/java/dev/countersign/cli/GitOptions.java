package dev.countersign.cli;

import dev.countersign.action.ActionInputs;
import dev.countersign.action.Reporter;
import dev.countersign.git.CommitAuthorship;
import dev.countersign.git.GitIdentity;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.github.GitHubApi;
import dev.countersign.github.GitHubSignedCommits;
import dev.countersign.support.Env;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the repository is, where it pushes, with which token and as whom: shared by the commands
 * that commit and push ({@code run}, {@code promote}).
 */
final class GitOptions {

  @Mixin RepoOption repo;

  @Option(
      names = "--remote",
      paramLabel = "URL",
      description =
          "Where to fetch and push (default: the checkout's origin, else"
              + " GITHUB_SERVER_URL/GITHUB_REPOSITORY).")
  String remote;

  @Option(
      names = "--token",
      paramLabel = "TOKEN",
      description =
          "Token to push and open pull requests with (default: GITHUB_TOKEN); sent as preemptive"
              + " basic auth, never from the checkout's stored credentials.")
  String token;

  @Option(
      names = "--sign-commits",
      description =
          "Make the commit through GitHub's API so that GitHub signs it (Verified), for branches"
              + " that require signed commits; needs GITHUB_REPOSITORY and a token. See"
              + " docs/promotion.md.")
  boolean signCommits;

  @Option(
      names = "--author",
      paramLabel = "NAME <EMAIL>",
      description =
          "Commit author (default: the triggering actor's noreply address, else"
              + " github-actions[bot]).")
  String author;

  @Option(
      names = "--committer",
      paramLabel = "NAME <EMAIL>",
      description = "Commit committer (default: github-actions[bot]).")
  String committer;

  /**
   * The run's reporter, with a {@code --token} typed on the command line masked before anything is
   * printed (secrets first: nothing may be printed before the runner knows to hide them).
   */
  Reporter reporter(Runtime runtime) {
    Reporter reporter = Reporter.forEnvironment(runtime.env(), runtime.out(), runtime.err());
    maskToken(runtime.env(), reporter);
    return reporter;
  }

  /**
   * Masks a {@code --token} typed on the command line. The Action entry point has masked its inputs
   * already, before anything was printed.
   */
  void maskToken(Env env, Reporter reporter) {
    if (token != null && !ActionInputs.read(env, "token").equals(Optional.of(token))) {
      reporter.mask(token);
    }
  }

  Path workTree(Env env) {
    return repo.workTree(env);
  }

  /** See {@link RepoOption#open}. */
  OwnedWorkspace open(Runtime runtime) {
    return repo.open(runtime);
  }

  Optional<String> pushToken(Env env) {
    return Optional.ofNullable(token).or(() -> env.get("GITHUB_TOKEN"));
  }

  /** {@code --remote}, else the checkout's origin, else the GitHub repository of the run. */
  GitRemote remote(Env env, JGitWorkspace workspace) {
    String url =
        Optional.ofNullable(remote)
            .or(() -> workspace.remoteUrl("origin"))
            .or(
                () ->
                    env.get("GITHUB_REPOSITORY")
                        .map(
                            r ->
                                GitRemote.githubUrl(
                                    env.getOrDefault("GITHUB_SERVER_URL", "https://github.com"),
                                    r)))
            .orElseThrow(
                () ->
                    new UsageProblem(
                        "No remote to push to", "pass --remote URL or add an origin remote"));
    return pushToken(env).map(t -> GitRemote.withToken(url, t)).orElse(GitRemote.anonymous(url));
  }

  /**
   * Who the run's commits are by ({@code --author}, {@code --committer}), with the run id of
   * GITHUB_RUN_ID ({@code local} outside Actions) in their marker trailer.
   */
  CommitAuthorship authorship(Env env, boolean signoff) {
    return new CommitAuthorship(
        author(env), committer(), env.getOrDefault("GITHUB_RUN_ID", "local"), signoff);
  }

  /** As peter-evans/create-pull-request: the actor's noreply address in Actions. */
  private GitIdentity author(Env env) {
    return Optional.ofNullable(author)
        .map(GitIdentity::parse)
        .or(
            () ->
                env.get("GITHUB_ACTOR")
                    .flatMap(
                        actor ->
                            env.get("GITHUB_ACTOR_ID")
                                .map(id -> GitIdentity.githubUser(actor, id))))
        .orElse(GitIdentity.GITHUB_ACTIONS_BOT);
  }

  private GitIdentity committer() {
    return Optional.ofNullable(committer)
        .map(GitIdentity::parse)
        .orElse(GitIdentity.GITHUB_ACTIONS_BOT);
  }

  /**
   * The workspace pushes go through: {@code workspace} itself, or with {@code --sign-commits} one
   * that makes each pushed commit through GitHub's API.
   */
  GitWorkspace publishing(GitWorkspace workspace, Supplier<GitHubApi> api) {
    return signCommits ? GitHubSignedCommits.over(workspace, api.get()) : workspace;
  }
}
