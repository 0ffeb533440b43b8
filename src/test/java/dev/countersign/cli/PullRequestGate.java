package dev.countersign.cli;

import dev.countersign.gate.GateRepository;
import dev.countersign.git.GitFixture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The merge gate's pull requests, end to end through the Action entry: a bare origin whose main
 * branch holds a {@link GateRepository} (trust policy, a trusted key, governance policies and
 * manifests signed with that key); pull request branches on top, each checked out (detached,
 * shallow where actions/checkout would be); {@code check} run on a real pull_request event payload
 * naming the base commit.
 */
final class PullRequestGate {

  private final Path tmp;
  private final GitFixture git;
  private final GateRepository seed;
  private String baseSha;
  private int checkouts;

  /** main set up from a keyed {@link GateRepository} in {@code tmp}. */
  PullRequestGate(Path tmp) throws Exception {
    this(tmp, GateRepository.create(tmp.resolve("seed"), tmp.resolve("scratch")));
  }

  /** main set up from {@code seed}. */
  PullRequestGate(Path tmp, GateRepository seed) throws Exception {
    this.tmp = tmp;
    this.git = new GitFixture(tmp.resolve("git"));
    this.seed = seed;
    git.commitToOrigin("main", filesOf(seed.root()), Set.of(), "countersign set-up");
    baseSha = git.originHead("main");
  }

  GitFixture git() {
    return git;
  }

  /** The repository main was set up from; signs with the trusted key. */
  GateRepository seed() {
    return seed;
  }

  /** The key file {@link #seed} signs with, and its password, for {@code sign --key}. */
  Path signingKey() {
    return tmp.resolve("scratch/cosign.key");
  }

  String baseSha() {
    return baseSha;
  }

  /** The base the next pull requests target: origin's main as it is now. */
  void baseIsMain() throws IOException {
    baseSha = git.originHead("main");
  }

  /** A base commit the event names, whether or not it exists. */
  void baseSha(String sha) {
    baseSha = sha;
  }

  /** Pushes a pull request branch on top of main and checks it out (detached). */
  Path pullRequest(Map<String, String> writes, Set<String> deletes, int depth) throws Exception {
    String branch = "pr-" + (++checkouts);
    git.branchOnOrigin(branch, "main");
    git.commitToOrigin(branch, writes, deletes, "the pull request");
    return git.cloneBranch("ws-" + checkouts, branch, depth);
  }

  /**
   * {@link #pullRequest}, checked out with the git program as actions/checkout does, so the pull
   * request's own {@code .gitattributes} apply to the work tree.
   */
  Path pullRequestCheckedOutByGit(Map<String, String> writes) throws Exception {
    return pullRequestCheckedOutByGit(writes, Map.of());
  }

  /**
   * {@link #pullRequestCheckedOutByGit(Map)} that also adds submodule entries: path to the commit
   * id each names.
   */
  Path pullRequestCheckedOutByGit(Map<String, String> writes, Map<String, String> submodules)
      throws Exception {
    String branch = "pr-" + (++checkouts);
    git.branchOnOrigin(branch, "main");
    git.commitToOrigin(branch, writes, Set.of(), "the pull request");
    for (Map.Entry<String, String> submodule : submodules.entrySet()) {
      git.commitGitlinkToOrigin(branch, submodule.getKey(), submodule.getValue());
    }
    return git.checkoutWithGit("ws-" + checkouts, branch);
  }

  /**
   * {@code countersign check} as the Action runs it on a pull_request event for {@code ws}, whose
   * checked-out commit is the pull request's head.
   */
  CliRun check(Path ws, Map<String, String> extra) throws IOException {
    return check(ws, GitFixture.headOf(ws), extra);
  }

  /**
   * {@code countersign check} as the Action runs it on a pull_request event for {@code ws} whose
   * payload names {@code head} as the pull request's head commit.
   */
  CliRun check(Path ws, String head, Map<String, String> extra) throws IOException {
    Path event = tmp.resolve("event-" + System.nanoTime() + ".json");
    Files.writeString(
        event,
        "{\"action\":\"synchronize\",\"number\":7,\"pull_request\":{\"number\":7,"
            + "\"base\":{\"ref\":\"main\",\"sha\":\""
            + baseSha
            + "\"},\"head\":{\"ref\":\"pr\",\"sha\":\""
            + head
            + "\"}}}");
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", "pull_request");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_WORKSPACE", ws.toString());
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_COMMAND", "check");
    env.putAll(extra);
    return CliRun.run(env, "action");
  }

  private static Map<String, String> filesOf(Path root) throws IOException {
    Map<String, String> files = new TreeMap<>();
    try (Stream<Path> walk = Files.walk(root)) {
      for (Path file : walk.filter(Files::isRegularFile).toList()) {
        files.put(
            root.relativize(file).toString().replace('\\', '/'),
            Files.readString(file, StandardCharsets.UTF_8));
      }
    }
    return files;
  }
}
