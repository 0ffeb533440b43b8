package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.Sleeper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One repository as countersign meets it in Actions: a bare git origin ({@link GitFixture}), the
 * GitHub REST fake serving pull requests and the Git Data API from that same origin, a signing key,
 * and the CLI run in-process with every wait recorded instead of slept.
 */
final class GitHubSession implements AutoCloseable {

  static final String TOKEN = "ghs_faultTestToken0123456789";
  static final String PASSWORD = "fault-test";
  static final String BOT = "countersign/sign-main";

  final GitFixture git;
  final FakeGitHub github;
  final List<Duration> sleeps = new ArrayList<>();
  private final Path tmp;
  private final Path privateKey;
  final Path publicKey;
  private int workspaces;

  GitHubSession(Path tmp) throws Exception {
    this.tmp = tmp;
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin("main", Map.of("README.md", "hello\n"), java.util.Set.of(), "initial");
    github = FakeGitHub.start(TOKEN).backedBy(git.originDir());
    privateKey = tmp.resolve("keys/cosign.key");
    publicKey = tmp.resolve("keys/cosign.pub");
    Files.createDirectories(privateKey.getParent());
    KeyPairFiles.generate(privateKey, publicKey, PASSWORD.toCharArray(), new SecureRandom());
  }

  /** The manifests most runs here sign: a ConfigMap and an egress NetworkPolicy under unsigned/. */
  static Map<String, String> twoManifests() {
    return Map.of(
        "unsigned/config/flags.yaml", ActionPipelineTest.configMap("flags", "on"),
        "unsigned/egress/payments.yaml", ActionPipelineTest.networkPolicy("payments-egress"));
  }

  /** Commits {@link #twoManifests} to origin's main; returns main's new head. */
  String addTwoManifestsToMain() throws java.io.IOException {
    return git.commitToOrigin("main", twoManifests(), java.util.Set.of(), "add manifests");
  }

  /** {@code countersign run} with a key, from a fresh clone of origin, plus {@code args}. */
  CliRun run(String... args) throws Exception {
    return runWith(env(), args);
  }

  /** {@link #run} in the environment {@code env} instead of {@link #env()}. */
  CliRun runWith(Map<String, String> env, String... args) throws Exception {
    return runIn(git.clone("ws" + (++workspaces), 0, false), env, args);
  }

  /**
   * {@code countersign run} with a key in the checkout {@code ws} (as a later step of the same job
   * would), plus {@code args}.
   */
  CliRun runIn(Path ws, Map<String, String> env, String... args) throws Exception {
    return runIn(sleeps::add, ws, env, args);
  }

  /**
   * {@link #runIn(Path, Map, String...)} with every wait between push attempts going to {@code
   * sleeper} (which may move origin, so the next attempt loses the race too).
   */
  CliRun runIn(Sleeper sleeper, Path ws, Map<String, String> env, String... args) throws Exception {
    List<String> all =
        new ArrayList<>(List.of("run", "--repo", ws.toString(), "--key", privateKey.toString()));
    all.addAll(List.of(args));
    Files.deleteIfExists(tmp.resolve("output"));
    return CliRun.run(sleeper, env, all.toArray(String[]::new));
  }

  Path lastWorkspace() {
    return tmp.resolve("git").resolve("ws" + workspaces);
  }

  Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("GITHUB_RUN_ID", "777");
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("GITHUB_TOKEN", TOKEN);
    env.put("COSIGN_PASSWORD", PASSWORD);
    return env;
  }

  /** POST, PATCH and DELETE requests GitHub received, in order. */
  List<String> writes() {
    return github.requests().stream().filter(r -> r.matches("(POST|PATCH|DELETE) .*")).toList();
  }

  /** The last value of each step output of the last run (GITHUB_OUTPUT, heredoc form included). */
  Map<String, String> outputs() throws IOException {
    return ActionTestEnv.outputs(tmp.resolve("output"));
  }

  /** The files of {@code branch} on origin verify with the session key. */
  void assertVerifies(String branch) throws IOException {
    Path dir = tmp.resolve("verify-" + System.nanoTime());
    for (Map.Entry<String, String> f : git.originFiles(branch).entrySet()) {
      Path p = dir.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    CliRun verify =
        CliRun.run(
            Map.of(), "verify", "--key", publicKey.toString(), dir.resolve("signed").toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
  }

  @Override
  public void close() {
    github.close();
  }
}
