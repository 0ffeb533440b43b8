package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import dev.countersign.support.MarkdownText;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The merged-PR pipeline end to end, as the GitHub Action runs it: a bare "origin", a clone as the
 * workspace, an event payload from a real delivery, the Action's INPUT_* and GITHUB_* environment,
 * keyless signing against the loopback Sigstore stack, and strict verification of what lands on
 * origin.
 */
@RequiresSigstoreStack
class ActionPipelineTest {

  private static final String TOKEN = "ghs_pipelineTestToken0123456789abcdef";
  private static final String EVENTS = "/action/events/";

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;

  ActionPipelineTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/egress/payments.yaml",
            networkPolicy("payments-egress"),
            "unsigned/config/flags.yaml",
            configMap("flags", "on"),
            "unsigned/multi.yaml",
            configMap("first", "1") + "---\n" + configMap("second", "2"),
            "README.md",
            "not a manifest\n"),
        Set.of(),
        "add manifests");
  }

  @Test
  void mergedPullRequest_signsMovesCommitsAndPushesOnce_thenSecondRunIsNoop() throws Exception {
    int commitsBefore = git.originCommitCount("main");
    Path ws = git.clone("ws", 1, true);

    CliRun run = CliRun.run(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(0);
    assertThat(git.originCommitCount("main")).isEqualTo(commitsBefore + 1);
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.keySet())
        .containsExactly(
            "README.md",
            "signed/config/flags.yaml",
            "signed/egress/payments.yaml",
            "signed/multi.yaml");
    assertThat(git.originCommit("main").getFullMessage()).contains("Countersign-Run: 4242");

    // Every signed file verifies for exactly the workflow identity in the stack's token.
    Path checkout = materialize(files, tmp.resolve("verify"));
    CliRun verify = verify(checkout.resolve("signed"), stack.identitySan());
    assertThat(verify.exitCode()).as(verify.all()).isEqualTo(0);
    assertThat(verify.out()).contains("4 verified, 0 rejected");
    assertThat(
            verify(
                    checkout.resolve("signed"),
                    "https://github.com/octo-org/octo-repo/.github/workflows/other.yml@refs/heads/main")
                .exitCode())
        .isEqualTo(ExitCode.REJECTED.code());

    // Outputs and summary.
    String outputs = Files.readString(tmp.resolve("output"));
    assertThat(outputs)
        .contains("result=pushed\n")
        .contains("commit-sha=" + git.originHead("main") + "\n")
        .containsPattern(
            "signed-files<<ghadelimiter_[^\\n"
                + "]+\\n"
                + "signed/config/flags.yaml\\n"
                + "signed/egress/payments.yaml\\n"
                + "signed/multi.yaml\\n");
    String summary = Files.readString(tmp.resolve("summary"));
    assertThat(summary)
        .contains("| manifest | result | message digest | signer | Rekor log index |")
        .contains("| signed/egress/payments.yaml | signed | sha256:")
        .contains(MarkdownText.cell(stack.identitySan()));
    assertThat(run.out()).contains("::group::");
    assertGroupsAreNotNested(run.out());
    assertNoTokenLeak(run);

    // Second run on the same state: countersign's own commit is the head.
    String signedHead = git.originHead("main");
    Files.delete(tmp.resolve("output"));
    CliRun again =
        CliRun.run(
            actionEnv(git.clone("ws2", 1, true), "pull_request", mergedPullRequestEvent()),
            "action");
    assertThat(again.exitCode()).as(again.all()).isEqualTo(0);
    assertThat(Files.readString(tmp.resolve("output"))).contains("result=noop\n");
    assertThat(git.originHead("main")).isEqualTo(signedHead);
  }

  @Test
  void mergedPullRequest_startedAsTheRunnerStartsIt_asksForOneTokenAndMasksItBeforeUse()
      throws Exception {
    stack.resetStats();
    Path ws = git.clone("ws", 1, true);

    CliRun run =
        CliRun.runAsStarted(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(0);
    assertThat(git.originFiles("main").keySet())
        .contains("signed/config/flags.yaml", "signed/egress/payments.yaml", "signed/multi.yaml");
    // The start-up request is the run's only one: the signer took its token.
    assertThat(stack.stats().raw().path("requests").path("oidc.token").asInt()).isEqualTo(1);
    assertThat(stack.stats().certificates()).isEqualTo(1);
    List<String> identityTokens =
        run.out()
            .lines()
            .filter(line -> line.startsWith("::add-mask::eyJ"))
            .map(line -> line.substring("::add-mask::".length()))
            .toList();
    assertThat(identityTokens).as(run.out()).hasSize(1);
    String jwt = identityTokens.get(0);
    assertThat(run.all().lines().filter(line -> line.contains(jwt)))
        .containsExactly("::add-mask::" + jwt);
    assertNoTokenLeak(run);
  }

  @Test
  void mergedPullRequest_whoseUnsignedDirectoryIsALink_startedAsTheRunnerStartsIt_asksForNothing()
      throws Exception {
    // The PR replaces unsigned/ with a link to a directory of manifests outside the repository.
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("planted.yaml"), configMap("planted", "x"));
    git.commitToOrigin(
        "main",
        Map.of(),
        Set.of(
            "unsigned/egress/payments.yaml", "unsigned/config/flags.yaml", "unsigned/multi.yaml"),
        "remove the manifests");
    git.commitSymlinkToOrigin("main", "unsigned", outside.toString());
    String before = git.originHead("main");
    Path ws = git.clone("ws", 1, true);
    assertThat(Files.isSymbolicLink(ws.resolve("unsigned"))).isTrue();
    stack.resetStats();

    CliRun run =
        CliRun.runAsStarted(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(git.originHead("main")).as(run.all()).isEqualTo(before);
    assertThat(git.originFiles("main").keySet()).noneMatch(path -> path.startsWith("signed/"));
    assertThat(stack.stats().raw().path("requests").path("oidc.token").asInt()).isZero();
    assertThat(stack.stats().certificates()).isZero();
  }

  @Test
  void scheduledRun_whenEverythingIsAlreadySigned_isNoopWithoutSigning() throws Exception {
    CliRun first =
        CliRun.run(
            actionEnv(
                git.clone("ws", 1, true),
                "workflow_dispatch",
                event("workflow_dispatch.octokit.json")),
            "action");
    assertThat(first.exitCode()).as(first.all()).isEqualTo(0);
    // Someone else commits after countersign, so the loop guard does not apply; nothing is
    // unsigned.
    git.commitToOrigin("main", Map.of("README.md", "changed\n"), Set.of(), "docs");
    String head = git.originHead("main");
    stack.resetStats();

    // Started as Main starts it: with nothing unsigned, not even the start-up token request.
    CliRun again =
        CliRun.runAsStarted(
            actionEnv(git.clone("ws2", 1, true), "schedule", event("schedule.minimal.json")),
            "action");

    assertThat(again.exitCode()).as(again.all()).isEqualTo(0);
    assertThat(Files.readString(tmp.resolve("output"))).contains("result=noop\n");
    assertThat(git.originHead("main")).isEqualTo(head);
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().tokens()).isZero();
  }

  @Test
  void concurrentCommitOnOrigin_beforePush_isFetchedAndTheRunStillLands() throws Exception {
    Path ws = git.clone("ws", 1, true);
    // Lands after checkout, before countersign pushes: the first push is rejected.
    git.commitToOrigin(
        "main",
        Map.of("unsigned/late.yaml", configMap("late", "x"), "docs/notes.md", "n\n"),
        Set.of(),
        "concurrent");

    CliRun run = CliRun.run(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(0);
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files).containsKeys("docs/notes.md", "signed/late.yaml", "signed/multi.yaml");
    assertThat(files.keySet()).noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(
            verify(materialize(files, tmp.resolve("v")).resolve("signed"), stack.identitySan())
                .exitCode())
        .isZero();
  }

  @Test
  void concurrentChangeToTheSameUnsignedFile_isRecomputed_andTheNewContentIsWhatGetsSigned()
      throws Exception {
    Path ws = git.clone("ws", 1, true);
    // After checkout, someone changes the very manifest countersign is about to sign.
    git.commitToOrigin(
        "main",
        Map.of("unsigned/config/flags.yaml", configMap("flags", "off")),
        Set.of(),
        "turn it off");

    CliRun run = CliRun.run(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(0);
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files.keySet()).noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(files.get("signed/config/flags.yaml"))
        .contains("value: \"off\"")
        .doesNotContain("value: \"on\"");
    assertThat(
            verify(materialize(files, tmp.resolve("v")).resolve("signed"), stack.identitySan())
                .exitCode())
        .isZero();
  }

  @Test
  void invalidUnsignedManifest_isAnnotatedOnItsLine_andNothingIsSignedOrPushed_noLogEntry()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of("unsigned/broken.yaml", configMap("broken", "x") + "data:\n  again: y\n"),
        Set.of(),
        "broken");
    String before = git.originHead("main");
    stack.resetStats();

    CliRun run =
        CliRun.run(
            actionEnv(git.clone("ws", 1, true), "pull_request", mergedPullRequestEvent()),
            "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/broken.yaml,line=8,title=invalid manifest::"
                + "unsigned/broken.yaml:8: duplicate key \"data\"");
    assertThat(git.originHead("main")).isEqualTo(before);
    // The certificate is requested in the background while the manifests are read, so the run may
    // have one; a certificate alone signs nothing. What makes a signature is a Rekor entry over a
    // manifest's digest, and there must be none. The run waits for a request under way, so the
    // counters are final here.
    assertThat(stack.stats().logEntries()).isZero();
    assertThat(stack.stats().certificates()).isLessThanOrEqualTo(1);
    assertNoTokenLeak(run);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "annotations: [1]       | 6 | metadata.annotations of document 1 must be a mapping, not a"
            + " list",
        "annotations: s         | 6 | metadata.annotations of document 1 must be a mapping, not a"
            + " string",
        "labels: [app]          | 6 | metadata.labels of document 1 must be a mapping, not a list",
        "annotations: {a: [1]}  | 6 | annotation \"a\" of document 1 must be a string, not a list",
      })
  void annotationsOrLabelsNotAMappingOfStrings_isAnnotatedOnItsLine_andNothingIsSignedOrPushed(
      String field, int line, String what) throws Exception {
    String odd =
        configMap("odd", "x")
            .replace("  namespace: apps\n", "  namespace: apps\n  " + field + "\n");
    git.commitToOrigin("main", Map.of("unsigned/odd.yaml", odd), Set.of(), "odd metadata");
    String before = git.originHead("main");
    stack.resetStats();
    Path ws = git.clone("ws", 1, true);

    CliRun run = CliRun.run(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/odd.yaml,line="
                + line
                + ",title=invalid manifest::unsigned/odd.yaml:"
                + line
                + ": "
                + what);
    assertThat(run.all()).doesNotContain("this is a bug in countersign");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(git.originFiles("main")).containsKey("unsigned/odd.yaml");
    assertThat(ws.resolve("unsigned/odd.yaml")).exists();
    assertThat(ws.resolve("signed")).doesNotExist();
    assertThat(stack.stats().logEntries()).isZero();
    assertNoTokenLeak(run);
  }

  @Test
  void keyInputWithTwoLines_isAUsageErrorForRun_andNothingIsSignedOrPushed() throws Exception {
    // promote takes one public key per line; run signs with one private key, so a second line is
    // refused rather than one of them picked.
    String before = git.originHead("main");
    Path ws = git.clone("ws", 1, true);
    Map<String, String> env = actionEnv(ws, "pull_request", mergedPullRequestEvent());
    env.put("INPUT_KEY", "keys/new.key\nkeys/old.key");
    stack.resetStats();

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out())
        .contains(
            "::error title=countersign usage problem::Input key: option '--key' (FILE) should be"
                + " specified only once");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(ws.resolve("unsigned/config/flags.yaml")).exists();
    assertThat(stack.stats().logEntries()).isZero();
    assertNoTokenLeak(run);
  }

  @Test
  void twoRunsStartedConcurrently_onDifferentNewFiles_bothEndSignedOnOrigin() throws Exception {
    CliRun first =
        CliRun.run(
            actionEnv(
                git.clone("ws0", 1, true),
                "workflow_dispatch",
                event("workflow_dispatch.octokit.json")),
            "action");
    assertThat(first.exitCode()).as(first.all()).isZero();
    git.commitToOrigin("main", Map.of("unsigned/a.yaml", configMap("a", "1")), Set.of(), "add a");
    Path wsA = git.clone("wsA", 1, true);
    git.commitToOrigin("main", Map.of("unsigned/b.yaml", configMap("b", "2")), Set.of(), "add b");
    Path wsB = git.clone("wsB", 1, true);

    String dispatch = event("workflow_dispatch.octokit.json");
    CompletableFuture<CliRun> a =
        CompletableFuture.supplyAsync(
            () -> CliRun.run(actionEnv(wsA, "workflow_dispatch", dispatch, "outA"), "action"));
    CompletableFuture<CliRun> b =
        CompletableFuture.supplyAsync(
            () -> CliRun.run(actionEnv(wsB, "workflow_dispatch", dispatch, "outB"), "action"));

    assertThat(a.get().exitCode()).as(a.get().all()).isZero();
    assertThat(b.get().exitCode()).as(b.get().all()).isZero();
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files).containsKeys("signed/a.yaml", "signed/b.yaml");
    assertThat(files.keySet()).noneMatch(p -> p.startsWith("unsigned/"));
    assertThat(
            verify(materialize(files, tmp.resolve("v")).resolve("signed"), stack.identitySan())
                .exitCode())
        .isZero();
  }

  @Test
  void rekorThrottlesTwice_theRunWaitsAndSaysSoInOneWarning_thenSignsEverything() throws Exception {
    Path ws = git.clone("ws", 1, true);
    Set<String> unsignedBefore = readTree(ws.resolve("unsigned")).keySet();
    stack.injectFault("{\"rekor\":{\"after\":0,\"status\":429,\"count\":2}}");
    List<Duration> waits = new CopyOnWriteArrayList<>();
    CliRun run;
    try {
      run =
          CliRun.run(waits::add, actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");
    } finally {
      stack.clearFaults();
    }

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(waits).isNotEmpty();
    // One line for the hold, not one per waiting upload, as an annotation on the run page.
    assertThat(
            run.out()
                .lines()
                .filter(l -> l.contains("Rekor answered a log entry upload with HTTP 429")))
        .singleElement()
        .asString()
        .startsWith("::warning")
        .contains("every upload waits")
        .contains("(try 2 of 4)");
    assertThat(git.originFiles("main").keySet())
        .noneMatch(p -> p.startsWith("unsigned/"))
        .containsAll(unsignedBefore.stream().map(p -> "signed/" + p).collect(Collectors.toList()));
    assertNoTokenLeak(run);
  }

  @Test
  void rekorFailsMidRun_exitsRemote_originUnchanged_unsignedIntact_thenRerunSucceeds()
      throws Exception {
    String before = git.originHead("main");
    Path ws = git.clone("ws", 1, true);
    Map<String, String> unsignedBefore = readTree(ws.resolve("unsigned"));
    stack.injectFault("{\"rekor\":{\"after\":1,\"status\":503}}");
    CliRun failed;
    try {
      // The Rekor upload's four tries wait nothing here (a sleeper that returns at once).
      failed =
          CliRun.run(
              duration -> {}, actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");
    } finally {
      stack.clearFaults();
    }

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(failed.err()).contains("Rekor");
    // The run page shows why the step failed, not only the log: one annotation for the problem.
    assertThat(
            failed
                .out()
                .lines()
                .filter(l -> l.startsWith("::error title=countersign remote service failed::")))
        .singleElement()
        .asString()
        .contains("Rekor");
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(readTree(ws.resolve("unsigned"))).isEqualTo(unsignedBefore);
    assertThat(ws.resolve("signed")).doesNotExist();
    assertNoTokenLeak(failed);

    CliRun rerun = CliRun.run(actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");
    assertThat(rerun.exitCode()).as(rerun.all()).isZero();
    assertThat(git.originFiles("main").keySet()).noneMatch(p -> p.startsWith("unsigned/"));
  }

  @Test
  void
      rekorFailsMidRun_asRootInARunnersWorkspace_everyFileIncludingGitInternalsGoesBackToTheRunner()
          throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid") == 0,
        "a docker action runs as root");
    Path ws = git.clone("ws", 1, true);
    try (var walk = Files.walk(ws)) { // as actions/checkout leaves it: the runner user's
      for (Path p : walk.toList()) {
        Files.setAttribute(p, "unix:uid", 1001, java.nio.file.LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", 118, java.nio.file.LinkOption.NOFOLLOW_LINKS);
      }
    }
    stack.injectFault("{\"rekor\":{\"after\":1,\"status\":503}}");
    CliRun failed;
    try {
      // The Rekor upload's four tries wait nothing here (a sleeper that returns at once).
      failed =
          CliRun.run(
              duration -> {}, actionEnv(ws, "pull_request", mergedPullRequestEvent()), "action");
    } finally {
      stack.clearFaults();
    }

    assertThat(failed.exitCode()).as(failed.all()).isEqualTo(ExitCode.REMOTE.code());
    List<String> notTheRunners = new ArrayList<>();
    try (var walk = Files.walk(ws)) {
      for (Path p : walk.toList()) {
        if ((Integer) Files.getAttribute(p, "unix:uid", java.nio.file.LinkOption.NOFOLLOW_LINKS)
                != 1001
            || (Integer) Files.getAttribute(p, "unix:gid", java.nio.file.LinkOption.NOFOLLOW_LINKS)
                != 118) {
          notTheRunners.add(ws.relativize(p).toString());
        }
      }
    }
    assertThat(notTheRunners).isEmpty();
    assertThat(ws.resolve(".git/FETCH_HEAD")).exists(); // the run did write git internals as root
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "pull_request.closed.not-merged.octokit.json, pull_request, 0, closed without merging",
    "pull_request.opened.octokit.json, pull_request, 0, opened",
    "push.octokit.json, push, 0, tag",
    "pull_request.closed.merged.from-fork.reallyfastci.json, pull_request_target, 3,"
        + " pull_request_target",
  })
  void negativeEvents_signNothing_andNeverPrintTheToken(
      String fixture, String eventName, int exitCode, String reasonWord) throws Exception {
    String before = git.originHead("main");
    stack.resetStats();

    CliRun run =
        CliRun.run(actionEnv(git.clone("ws", 1, true), eventName, event(fixture)), "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(exitCode);
    assertThat(run.all()).contains(reasonWord);
    assertThat(git.originHead("main")).isEqualTo(before);
    assertThat(stack.stats().certificates()).isZero();
    assertThat(stack.stats().logEntries()).isZero();
    assertNoTokenLeak(run);
  }

  // --- helpers ---

  /** GitHub Actions cannot nest log groups: every ::group:: closes before the next opens. */
  private static void assertGroupsAreNotNested(String out) {
    boolean open = false;
    for (String line : out.lines().toList()) {
      if (line.startsWith("::group::")) {
        assertThat(open).as("nested group at " + line).isFalse();
        open = true;
      } else if (line.equals("::endgroup::")) {
        assertThat(open).as("endgroup without group").isTrue();
        open = false;
      }
    }
    assertThat(open).as("unclosed group").isFalse();
  }

  /** The token may appear only in the ::add-mask:: command that tells the runner to hide it. */
  private static void assertNoTokenLeak(CliRun run) {
    List<String> leaks =
        run.all()
            .lines()
            .filter(line -> line.contains(TOKEN) && !line.equals("::add-mask::" + TOKEN))
            .toList();
    assertThat(leaks).isEmpty();
    assertThat(run.out()).startsWith("::add-mask::" + TOKEN);
  }

  private Map<String, String> actionEnv(Path ws, String eventName, String eventJson) {
    return actionEnv(ws, eventName, eventJson, "output");
  }

  private Map<String, String> actionEnv(
      Path ws, String eventName, String eventJson, String outputName) {
    Map<String, String> env =
        ActionTestEnv.of(stack, tmp, ws, eventName, eventJson, TOKEN, outputName);
    env.put("GITHUB_RUN_ID", "4242"); // what the Countersign-Run trailer must carry
    return env;
  }

  private CliRun verify(Path dir, String san) {
    return CliRun.run(
        Map.of(),
        "verify",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--certificate-identity",
        san,
        "--certificate-oidc-issuer",
        stack.identityIssuer(),
        dir.toString());
  }

  private static String event(String fixture) throws IOException {
    try (var in = ActionPipelineTest.class.getResourceAsStream(EVENTS + fixture)) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The real merged-PR delivery, adapted: its base branch is this origin's main. */
  private static String mergedPullRequestEvent() throws IOException {
    ObjectMapper json = new ObjectMapper();
    ObjectNode payload =
        (ObjectNode) json.readTree(event("pull_request.closed.merged.from-fork.reallyfastci.json"));
    ((ObjectNode) payload.get("pull_request").get("base")).put("ref", "main");
    return json.writeValueAsString(payload);
  }

  private static Path materialize(SortedMap<String, String> files, Path dir) throws IOException {
    for (Map.Entry<String, String> f : files.entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent() == null ? dir : p.getParent());
      Files.writeString(p, f.getValue());
    }
    return dir;
  }

  private static Map<String, String> readTree(Path dir) throws IOException {
    try (var walk = Files.walk(dir)) {
      List<Path> files = walk.filter(Files::isRegularFile).toList();
      Map<String, String> result = new HashMap<>();
      for (Path f : files) {
        result.put(dir.relativize(f).toString(), Files.readString(f));
      }
      return result;
    }
  }

  static String configMap(String name, String value) {
    return "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "
        + name
        + "\n  namespace: apps\ndata:\n  value: \""
        + value
        + "\"\n";
  }

  static String networkPolicy(String name) {
    return String.join(
        "\n",
        "apiVersion: networking.k8s.io/v1",
        "kind: NetworkPolicy",
        "metadata:",
        "  name: " + name,
        "  namespace: payments",
        "spec:",
        "  podSelector:",
        "    matchLabels:",
        "      app: payments",
        "  policyTypes: [Egress]",
        "  egress:",
        "    - to:",
        "        - ipBlock:",
        "            cidr: 203.0.113.0/24",
        "      ports:",
        "        - protocol: TCP",
        "          port: 443",
        "");
  }
}
