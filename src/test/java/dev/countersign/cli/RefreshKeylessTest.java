package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The scheduled refresh ({@code --mode pull-request --from-worktree}) signing keylessly against the
 * loopback Sigstore stack, through the Action entry, with the WireMock GitHub for the pull request:
 * what the base branch holds where a signed file is to be written is judged before anything is
 * signed, so a refresh that could not commit makes no log entry.
 */
@RequiresSigstoreStack
class RefreshKeylessTest {

  private static final String BOT = "countersign/sign-main";
  private static final String GENERATED = "unsigned/egress/allowlist.yaml";

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;
  private FakeGitHub github;

  RefreshKeylessTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void setUp() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "hello\n"), Set.of(), "initial");
    github = FakeGitHub.start(ActionTestEnv.TOKEN);
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void control_filesAndDirectoriesBesideTheSignedFile_theRefreshSignsAndProposesIt()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "signed/egress/README",
            "notes\n",
            "signed/egress/allowlist.yml/README",
            "not the target: allowlist.yaml is\n"),
        Set.of(),
        "beside");
    stack.resetStats();

    CliRun run = refresh();

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(stack.stats().logEntries()).isEqualTo(1);
    assertThat(git.originFiles(BOT).keySet())
        .contains(
            "signed/egress/allowlist.yaml",
            "signed/egress/README",
            "signed/egress/allowlist.yml/README");
  }

  @Test
  void directoryOnTheBaseWhereTheSignedFileGoes_exits6NamingIt_beforeAnythingIsLogged()
      throws Exception {
    git.commitToOrigin(
        "main", Map.of("signed/egress/allowlist.yaml/README", "notes\n"), Set.of(), "directory");

    assertRefusedBeforeSigning(
        ws -> {},
        "signed/egress/allowlist.yaml",
        "is a directory, but the signed file of " + GENERATED + " is to be written there");
  }

  @Test
  void fileMergedAfterTheCheckoutWhereTheSignedFilesDirectoryMustBe_exits6_beforeAnythingIsLogged()
      throws Exception {
    // Merged after the checkout: the work tree has no signed/egress, the base tip has.
    assertRefusedBeforeSigning(
        ws -> git.commitToOrigin("main", Map.of("signed/egress", "notes\n"), Set.of(), "file"),
        "signed/egress",
        "is a file, but signed/egress/allowlist.yaml, the signed file of "
            + GENERATED
            + ", is to be written below it");
  }

  @Test
  void linkMergedAfterTheCheckoutInTheSignedDirectory_exits6NamingIt_beforeAnythingIsLogged()
      throws Exception {
    assertRefusedBeforeSigning(
        ws -> git.commitSymlinkToOrigin("main", "signed/egress", tmp.toString()),
        "signed/egress",
        "is a symbolic link");
  }

  /**
   * The refresh, with {@code step} run before it, stopped with exit code 6 and an annotation on
   * {@code path} saying {@code why}, having asked for no certificate and made no log entry, moved
   * nothing in its checkout, and pushed or proposed nothing.
   */
  private void assertRefusedBeforeSigning(Step step, String path, String why) throws Exception {
    stack.resetStats();
    Path[] checkout = new Path[1];
    String[] main = new String[1];
    String[] checkedOut = new String[1];
    CliRun run =
        refresh(
            ws -> {
              checkout[0] = ws;
              checkedOut[0] = GitFixture.headOf(ws);
              step.run(ws);
              main[0] = git.originHead("main");
            });

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(stack.stats().logEntries()).as("no log entry: %s", run.all()).isZero();
    assertThat(stack.stats().certificates()).as("no certificate").isZero();
    assertThat(run.out())
        .contains("::error file=" + path + ",title=invalid manifest::" + path + ": " + why);
    assertThat(git.originHead("main")).isEqualTo(main[0]);
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
    Path ws = checkout[0];
    assertThat(GitFixture.headOf(ws)).isEqualTo(checkedOut[0]);
    assertThat(GitFixture.git(ws, "status", "--porcelain")).isEqualTo("?? unsigned/\n");
    assertThat(ws.resolve(GENERATED)).hasContent(allowlist());
  }

  private CliRun refresh() throws Exception {
    return refresh(ws -> {});
  }

  /** A step of the workflow, given the checkout, run after the generator. */
  private interface Step {
    void run(Path ws) throws Exception;
  }

  /**
   * A scheduled refresh: a fresh checkout of main, the generator's allowlist written into
   * unsigned/, {@code step}, then the Action signing keylessly.
   */
  private CliRun refresh(Step step) throws Exception {
    Path ws = git.clone("ws", 1, true);
    Path file = ws.resolve(GENERATED);
    Files.createDirectories(file.getParent());
    Files.writeString(file, allowlist());
    step.run(ws);
    Map<String, String> env = ActionTestEnv.of(stack, tmp, ws, "schedule", scheduleEvent());
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("INPUT_MODE", "pull-request");
    env.put("INPUT_FROM_WORKTREE", "true");
    return CliRun.run(env, "action");
  }

  private static String scheduleEvent() throws IOException {
    try (InputStream in =
        RefreshKeylessTest.class.getResourceAsStream("/action/events/schedule.minimal.json")) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private static String allowlist() {
    return PromotionPipelineTest.allowlist("203.0.113.0/24");
  }
}
