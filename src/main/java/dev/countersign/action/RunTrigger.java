package dev.countersign.action;

import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import java.util.Optional;

/**
 * Whether a workflow run should reconcile a branch, decided from the event alone. Signing runs
 * after code is merged, in the base repository, on the branch the merge landed on:
 *
 * <ul>
 *   <li>{@code pull_request} closed and merged: reconcile {@code pull_request.base.ref} from the
 *       payload ({@code GITHUB_REF} has changed meaning over time for these runs);
 *   <li>{@code push} to a branch: reconcile it; tags and deletions: no-op;
 *   <li>{@code schedule}, {@code workflow_dispatch}: reconcile the branch in {@code GITHUB_REF},
 *       falling back to the repository's default branch from the payload;
 *   <li>other pull request actions and unknown events: no-op, with a one-line reason.
 * </ul>
 *
 * Refused (thrown): {@code pull_request_target}, which runs with the base repository's secrets
 * while the checkout may be pull request code, and any reconcile whose checkout is a pull request
 * ref ({@code refs/pull/...}), i.e. unmerged code.
 */
public sealed interface RunTrigger {

  String reason();

  /** Reconcile {@code branch} (a short name, e.g. {@code main}). */
  record Reconcile(String branch, String reason) implements RunTrigger {}

  /** Do nothing; the run succeeds. */
  record Skip(String reason) implements RunTrigger {}

  String ZERO_SHA = "0000000000000000000000000000000000000000";

  /**
   * Like {@link #decide(GitHubEvent, Env)}, with the {@code branch} input taking the place of the
   * event's branch. Refusals and skips are not overridden: an explicit branch does not make an
   * unmerged pull request signable.
   */
  static RunTrigger decide(GitHubEvent event, Env env, Optional<String> branchOverride) {
    RunTrigger decided = decide(event, env);
    if (decided instanceof Reconcile reconcile
        && branchOverride.isPresent()
        && !branchOverride.get().equals(reconcile.branch())) {
      String branch = shortBranch(branchOverride.get());
      return new Reconcile(
          branch, reconcile.reason() + "; reconciling " + branch + " as the branch input asks");
    }
    return decided;
  }

  static RunTrigger decide(GitHubEvent event, Env env) {
    String name = event.name();
    switch (name) {
      case "pull_request_target":
        throw new EnvironmentProblem(
            "countersign refuses to run on pull_request_target: that event runs with the base"
                + " repository's secrets and signing identity while the code may come from the pull"
                + " request",
            "perhaps you should trigger the workflow on pull_request with types: [closed] (it signs"
                + " after the merge)");
      case "pull_request":
        return pullRequest(event);
      case "push":
        return push(event, env);
      case "schedule":
      case "workflow_dispatch":
        return branchOfRun(event, env);
      default:
        return new Skip(
            "the "
                + name
                + " event does not start signing; countersign runs on a merged"
                + " pull_request, push, schedule or workflow_dispatch");
    }
  }

  private static RunTrigger pullRequest(GitHubEvent event) {
    String action = event.text("action").orElse("(none)");
    String number = event.text("pull_request", "number").or(() -> event.text("number")).orElse("?");
    if (!action.equals("closed")) {
      return new Skip(
          "pull request #"
              + number
              + " was "
              + action
              + ", not merged; signing waits for the merge");
    }
    if (!event.isTrue("pull_request", "merged")) {
      return new Skip("pull request #" + number + " was closed without merging; nothing to sign");
    }
    String base =
        event
            .text("pull_request", "base", "ref")
            .orElseThrow(
                () ->
                    new EnvironmentProblem(
                        "The merged pull_request payload has no pull_request.base.ref while"
                            + " deciding which branch to sign",
                        "perhaps you should pass the branch input explicitly"));
    return new Reconcile(
        shortBranch(base), "pull request #" + number + " was merged into " + shortBranch(base));
  }

  private static RunTrigger push(GitHubEvent event, Env env) {
    String ref = event.text("ref").or(() -> env.get("GITHUB_REF")).orElse("");
    if (event.isTrue("deleted") || event.text("after").map(ZERO_SHA::equals).orElse(false)) {
      return new Skip("the push deleted " + ref + "; nothing to sign");
    }
    if (ref.startsWith("refs/tags/")) {
      return new Skip(
          "the push was of tag "
              + ref.substring("refs/tags/".length())
              + ", not a branch; nothing to sign");
    }
    if (!ref.startsWith("refs/heads/")) {
      return new Skip(
          "the push was to "
              + (ref.isEmpty() ? "an unknown ref" : ref)
              + ", not a branch; nothing to sign");
    }
    refuseUnmergedCheckout(env, "push");
    String branch = ref.substring("refs/heads/".length());
    return new Reconcile(branch, "push to " + branch);
  }

  private static RunTrigger branchOfRun(GitHubEvent event, Env env) {
    refuseUnmergedCheckout(env, event.name());
    Optional<String> ref = env.get("GITHUB_REF").or(() -> event.text("ref")).map(String::strip);
    if (ref.isPresent() && ref.get().startsWith("refs/heads/")) {
      String branch = ref.get().substring("refs/heads/".length());
      return new Reconcile(branch, event.name() + " run on " + branch);
    }
    Optional<String> defaultBranch = event.text("repository", "default_branch");
    if (defaultBranch.isPresent() && ref.map(r -> !r.startsWith("refs/")).orElse(true)) {
      return new Reconcile(
          defaultBranch.get(), event.name() + " run on the default branch " + defaultBranch.get());
    }
    throw new EnvironmentProblem(
        "Cannot tell which branch the "
            + event.name()
            + " run should sign (GITHUB_REF is "
            + ref.orElse("unset")
            + ")",
        "perhaps you should pass the branch input");
  }

  private static void refuseUnmergedCheckout(Env env, String eventName) {
    Optional<String> ref = env.get("GITHUB_REF");
    if (ref.isPresent() && ref.get().startsWith("refs/pull/")) {
      throw new EnvironmentProblem(
          "countersign refuses to sign a pull request checkout ("
              + ref.get()
              + ") on a "
              + eventName
              + " run: that code is not merged",
          "perhaps you should run it on the branch the pull request merges into");
    }
  }

  private static String shortBranch(String ref) {
    return ref.startsWith("refs/heads/") ? ref.substring("refs/heads/".length()) : ref;
  }
}
