package dev.countersign.cli;

import static dev.countersign.cli.ActionPipelineTest.configMap;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.git.GitIdentity;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The loop guard through the Action entry (issue 9, finding 8): a merged pull request commit that
 * ends in a {@code Countersign-Run:} trailer and forges countersign's committer is still signed,
 * from a shallow checkout (as actions/checkout makes) and from a full one.
 */
@RequiresSigstoreStack
class LoopGuardActionTest {

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;

  LoopGuardActionTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "r\n"), Set.of(), "init");
  }

  @ParameterizedTest(name = "clone depth {0}")
  @ValueSource(ints = {1, 0})
  void mergedCommitQuotingTheMarkerTrailer_withForgedCommitter_isStillSigned(int depth)
      throws Exception {
    PersonIdent forged =
        new PersonIdent(
            GitIdentity.GITHUB_ACTIONS_BOT.name(), GitIdentity.GITHUB_ACTIONS_BOT.email());
    git.commitToOrigin(
        "main",
        Map.of("unsigned/pr.yaml", configMap("pr", "1")),
        Set.of(),
        "Add pr config (#12)\n\nLooks like a bot commit.\n\nCountersign-Run: 4343\n",
        forged);

    CliRun run =
        CliRun.run(
            ActionTestEnv.of(
                stack,
                tmp,
                git.clone("ws", depth, true),
                "pull_request",
                ActionTestEnv.mergedPullRequestEvent()),
            "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(Files.readString(tmp.resolve("output"))).contains("result=pushed\n");
    SortedMap<String, String> files = git.originFiles("main");
    assertThat(files).containsKey("signed/pr.yaml").doesNotContainKey("unsigned/pr.yaml");
    assertThat(files.get("signed/pr.yaml")).contains("cosign.sigstore.dev/message");
  }
}
