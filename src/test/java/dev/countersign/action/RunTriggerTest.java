package dev.countersign.action;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.Env;
import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RunTriggerTest {

  static Path events() {
    try {
      return Path.of(RunTriggerTest.class.getResource("/action/events/PROVENANCE.md").toURI())
          .getParent();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  static GitHubEvent event(String name, String file) throws IOException {
    return GitHubEvent.read(
        Env.of(
            Map.of(
                "GITHUB_EVENT_NAME",
                name,
                "GITHUB_EVENT_PATH",
                events().resolve(file).toString())));
  }

  static Env env(String githubRef) {
    Map<String, String> vars = new HashMap<>();
    if (githubRef != null) {
      vars.put("GITHUB_REF", githubRef);
    }
    return Env.of(vars);
  }

  /** file, event name, GITHUB_REF (null: unset), expected branch (null: skip), expected reason. */
  static Stream<Arguments> decisions() {
    return Stream.of(
        Arguments.of(
            "pull_request.closed.merged.from-fork.reallyfastci.json",
            "pull_request",
            "refs/pull/3/merge",
            "master",
            "pull request #3 was merged into master"),
        Arguments.of(
            "pull_request.closed.not-merged.octokit.json",
            "pull_request",
            "refs/pull/2/merge",
            null,
            "pull request #2 was closed without merging; nothing to sign"),
        Arguments.of(
            "pull_request.opened.octokit.json",
            "pull_request",
            "refs/pull/2/merge",
            null,
            "pull request #2 was opened, not merged; signing waits for the merge"),
        Arguments.of(
            "pull_request.hub4j.json",
            "pull_request",
            "refs/pull/1/merge",
            null,
            "pull request #1 was opened, not merged; signing waits for the merge"),
        Arguments.of(
            "push.merge-to-master.reallyfastci.json",
            "push",
            "refs/heads/master",
            "master",
            "push to master"),
        Arguments.of("push.hub4j.json", "push", "refs/heads/changes", "changes", "push to changes"),
        Arguments.of(
            "push.new-branch.octokit.json",
            "push",
            "refs/heads/master",
            "master",
            "push to master"),
        Arguments.of(
            "push.octokit.json",
            "push",
            "refs/tags/simple-tag",
            null,
            "the push deleted refs/tags/simple-tag; nothing to sign"),
        Arguments.of(
            "schedule.constructed.json",
            "schedule",
            "refs/heads/develop",
            "develop",
            "schedule run on develop"),
        Arguments.of(
            "schedule.minimal.json", "schedule", "refs/heads/main", "main", "schedule run on main"),
        Arguments.of(
            "workflow_dispatch.hub4j.json",
            "workflow_dispatch",
            "refs/heads/main",
            "main",
            "workflow_dispatch run on main"),
        Arguments.of(
            "workflow_dispatch.octokit.json",
            "workflow_dispatch",
            null,
            "master",
            "workflow_dispatch run on master"),
        Arguments.of(
            "workflow_run.hub4j.json",
            "workflow_run",
            "refs/heads/main",
            null,
            "the workflow_run event does not start signing; countersign runs on a merged"
                + " pull_request, push, schedule or workflow_dispatch"));
  }

  @ParameterizedTest(name = "{0} as {1}")
  @MethodSource("decisions")
  void decide_everyFixture_givesTheExpectedDecision(
      String file, String name, String ref, String branch, String reason) throws IOException {
    RunTrigger trigger = RunTrigger.decide(event(name, file), env(ref));

    if (branch == null) {
      assertThat(trigger).isEqualTo(new RunTrigger.Skip(reason));
    } else {
      assertThat(trigger).isEqualTo(new RunTrigger.Reconcile(branch, reason));
    }
  }

  @Test
  void decisions_coverEveryFixtureFile() throws IOException {
    Set<String> covered =
        decisions().map(a -> (String) a.get()[0]).collect(Collectors.toCollection(TreeSet::new));
    try (Stream<Path> files = Files.list(events())) {
      assertThat(files.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".json")))
          .containsExactlyInAnyOrderElementsOf(covered);
    }
  }

  @Test
  void decide_scheduleWithoutGithubRef_fallsBackToThePayloadsDefaultBranch() throws IOException {
    assertThat(RunTrigger.decide(event("schedule", "schedule.constructed.json"), env(null)))
        .isEqualTo(new RunTrigger.Reconcile("master", "schedule run on the default branch master"));
  }

  @Test
  void decide_legacyScheduleWithoutRefOrRepository_asksForTheBranchInput() throws IOException {
    assertThatThrownBy(
            () -> RunTrigger.decide(event("schedule", "schedule.minimal.json"), env(null)))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage("Cannot tell which branch the schedule run should sign (GITHUB_REF is unset)")
        .satisfies(
            e ->
                assertThat(((EnvironmentProblem) e).hint())
                    .hasValue("perhaps you should pass the branch input"));
  }

  @Test
  void decide_pullRequestTarget_isRefusedEvenWhenMerged() throws IOException {
    GitHubEvent merged =
        event("pull_request_target", "pull_request.closed.merged.from-fork.reallyfastci.json");

    assertThatThrownBy(() -> RunTrigger.decide(merged, env("refs/heads/master")))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageStartingWith("countersign refuses to run on pull_request_target")
        .satisfies(e -> assertThat(((EnvironmentProblem) e).exitCode().code()).isEqualTo(3));
  }

  @Test
  void decide_dispatchOnAPullRequestRef_isRefused() throws IOException {
    assertThatThrownBy(
            () ->
                RunTrigger.decide(
                    event("workflow_dispatch", "workflow_dispatch.hub4j.json"),
                    env("refs/pull/5/merge")))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage(
            "countersign refuses to sign a pull request checkout (refs/pull/5/merge) on a"
                + " workflow_dispatch run: that code is not merged");
  }

  @Test
  void decide_pushWhileCheckoutIsAPullRequestRef_isRefused() throws IOException {
    assertThatThrownBy(
            () -> RunTrigger.decide(event("push", "push.hub4j.json"), env("refs/pull/1/head")))
        .isInstanceOf(EnvironmentProblem.class);
  }

  @Test
  void decide_branchInput_replacesTheEventsBranchButNeverASkipOrRefusal() throws IOException {
    assertThat(
            RunTrigger.decide(
                event("push", "push.hub4j.json"),
                env("refs/heads/changes"),
                java.util.Optional.of("main")))
        .isEqualTo(
            new RunTrigger.Reconcile(
                "main", "push to changes; reconciling main as the branch input asks"));
    assertThat(
            RunTrigger.decide(
                event("pull_request", "pull_request.opened.octokit.json"),
                env(null),
                java.util.Optional.of("main")))
        .isInstanceOf(RunTrigger.Skip.class);
    assertThatThrownBy(
            () ->
                RunTrigger.decide(
                    event("pull_request_target", "pull_request.opened.octokit.json"),
                    env(null),
                    java.util.Optional.of("main")))
        .isInstanceOf(EnvironmentProblem.class);
  }

  @Test
  void decide_pushOfATagThatIsNotADeletion_isSkipped() {
    GitHubEvent tag =
        GitHubEvent.parse(
            "push",
            "{\"ref\":\"refs/tags/v1\",\"deleted\":false,\"after\":\"1111111111111111111111111111111111111111\"}");

    assertThat(RunTrigger.decide(tag, env("refs/tags/v1")))
        .isEqualTo(new RunTrigger.Skip("the push was of tag v1, not a branch; nothing to sign"));
  }

  @Test
  void decide_branchDeletionByZeroAfter_isSkipped() {
    GitHubEvent deletion =
        GitHubEvent.parse(
            "push", "{\"ref\":\"refs/heads/x\",\"after\":\"" + RunTrigger.ZERO_SHA + "\"}");

    assertThat(RunTrigger.decide(deletion, env("refs/heads/x")))
        .isInstanceOf(RunTrigger.Skip.class);
  }

  @Test
  void read_missingEventName_explainsWhereItComesFrom() {
    assertThatThrownBy(() -> GitHubEvent.read(Env.empty()))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage("GITHUB_EVENT_NAME is not set while reading the triggering event");
  }

  @Test
  void read_payloadFileMissing_namesTheFile() {
    Env env =
        Env.of(Map.of("GITHUB_EVENT_NAME", "push", "GITHUB_EVENT_PATH", "/nonexistent/event.json"));

    assertThatThrownBy(() -> GitHubEvent.read(env))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageStartingWith(
            "The event payload /nonexistent/event.json named by GITHUB_EVENT_PATH does not exist");
  }

  @Test
  void parse_invalidJson_isAnEnvironmentProblemWithTheLine() {
    assertThatThrownBy(() -> GitHubEvent.parse("push", "{\n\"ref\": }"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage("The push event payload (GITHUB_EVENT_PATH) is not valid JSON (line 2)");
  }

  @Test
  void parse_nested100000Deep_isAnEnvironmentProblem_notACrash() {
    String deep = "{\"a\":" + "[".repeat(100_000) + "]".repeat(100_000) + "}";

    assertThatThrownBy(() -> GitHubEvent.parse("pull_request", deep))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageStartingWith(
            "The pull_request event payload (GITHUB_EVENT_PATH) nests deeper than 100 levels");
  }

  @Test
  void parse_notAnObject_isAnEnvironmentProblem() {
    assertThatThrownBy(() -> GitHubEvent.parse("push", "[1, 2]"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage("The push event payload (GITHUB_EVENT_PATH) is an array, not a JSON object");
  }

  @Test
  void fieldsOfTheWrongType_areEnvironmentProblems_namingTheField() {
    GitHubEvent mergedAsText =
        GitHubEvent.parse("pull_request", "{\"pull_request\":{\"merged\":\"yes\"}}");
    assertThatThrownBy(() -> mergedAsText.isTrue("pull_request", "merged"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessage(
            "The pull_request event payload (GITHUB_EVENT_PATH) has a string at pull_request.merged"
                + " where true or false belongs");
    GitHubEvent prAsNumber = GitHubEvent.parse("pull_request", "{\"pull_request\": 7}");
    assertThatThrownBy(() -> prAsNumber.text("pull_request", "base", "ref"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("has a number at pull_request where an object belongs");
    GitHubEvent refAsObject = GitHubEvent.parse("push", "{\"ref\": {\"x\": 1}}");
    assertThatThrownBy(() -> refAsObject.text("ref"))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("has an object at ref where a string belongs");
    // Absent and null are answers, not errors.
    GitHubEvent nulls =
        GitHubEvent.parse("pull_request", "{\"pull_request\": null, \"ref\": null}");
    assertThat(nulls.text("pull_request", "base", "ref")).isEmpty();
    assertThat(nulls.isTrue("pull_request", "merged")).isFalse();
    assertThat(nulls.text("ref")).isEmpty();
  }

  @Test
  void read_payloadPathIsADirectory_orTooLarge_isAnEnvironmentProblem(
      @org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) throws Exception {
    assertThatThrownBy(
            () ->
                GitHubEvent.read(
                    Env.of(
                        Map.of("GITHUB_EVENT_NAME", "push", "GITHUB_EVENT_PATH", tmp.toString()))))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("named by GITHUB_EVENT_PATH is a directory");
    java.nio.file.Path big = tmp.resolve("big.json");
    try (java.nio.channels.FileChannel ch =
        java.nio.channels.FileChannel.open(
            big,
            java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE)) {
      ch.write(
          java.nio.ByteBuffer.wrap(new byte[] {' '}),
          GitHubEvent.MAX_BYTES); // sparse: no 32 MB written
    }
    assertThatThrownBy(
            () ->
                GitHubEvent.read(
                    Env.of(
                        Map.of("GITHUB_EVENT_NAME", "push", "GITHUB_EVENT_PATH", big.toString()))))
        .isInstanceOf(EnvironmentProblem.class)
        .hasMessageContaining("more than the " + GitHubEvent.MAX_BYTES + " countersign reads");
  }
}
