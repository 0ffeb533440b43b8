package dev.countersign.git;

import dev.countersign.support.problems.EnvironmentProblem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Consumer;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.util.SystemReader;

/**
 * {@link GitWorkspace} over jgit, opened on an existing work tree (typically the one
 * actions/checkout made).
 *
 * <p>Isolation from git configuration, so a laptop and a runner behave alike:
 *
 * <ul>
 *   <li>commits are written with plumbing (HEAD's tree plus the change, explicit author and
 *       committer stamped from the injected clock in UTC), so {@code commit.gpgsign}, {@code
 *       user.*}, {@code commit.cleanup} and commit hooks have no effect;
 *   <li>the repository is opened on a file system view where no hook exists (jgit otherwise runs
 *       post-commit and pre-push hooks);
 *   <li>files are staged from the exact bytes given, so {@code core.autocrlf} and clean filters do
 *       not change what is committed;
 *   <li>fetch and push take an explicit URL and refspec, so {@code remote.*}, {@code push.default}
 *       and {@code url.*.insteadOf} do not apply, and the token is sent with preemptive basic
 *       authentication, which replaces any {@code http.extraheader} actions/checkout persisted.
 * </ul>
 *
 * <p>Fetched branches are kept under {@code refs/countersign/fetched/<branch>}.
 *
 * <p>This class opens the repository and hands each job to one part of this package: {@code
 * CommitReader} reads commits and trees, {@code WorkTreeCheckout} moves the work tree between
 * commits and tells what is uncommitted, {@code ChangeWriter} writes and commits countersign's
 * change, {@code RemoteTransfers} fetches, pushes and records pushes; all of them share one {@code
 * WorkTreeRepository}.
 */
public final class JGitWorkspace implements GitWorkspace, AutoCloseable {

  /** Held while jgit's global configuration loads; see {@link #loadGlobalConfiguration}. */
  private static final Object GLOBAL_CONFIGURATION = new Object();

  private final WorkTreeRepository workTree;
  private final CommitReader commits;
  private final WorkTreeCheckout checkouts;
  private final ChangeWriter changes;
  private final RemoteTransfers remotes;

  private JGitWorkspace(
      Path directory, Repository repository, Clock clock, Consumer<Path> afterWrite) {
    this.workTree = new WorkTreeRepository(directory, repository, new Git(repository));
    this.commits = new CommitReader(workTree);
    this.checkouts = new WorkTreeCheckout(workTree);
    this.changes = new ChangeWriter(workTree, checkouts, clock, afterWrite);
    this.remotes = new RemoteTransfers(workTree, checkouts);
  }

  /**
   * Initialises jgit's file-system classes on the calling thread: {@code FS}, the platform subclass
   * its static initialiser picks, and the workspace's own subclass of that. Call it once, before
   * any other thread may use jgit (the start-up preloading): a thread initialising {@code FS} and
   * another initialising a subclass of it (which initialises its superclasses first) wait for each
   * other's class initialisation forever.
   */
  public static void initializeFileSystemClasses() {
    NoHooksFs.forThisPlatform();
  }

  /**
   * Loads what the first {@link #open} of a process reads before anything else: jgit's own
   * configuration (with {@link FileStoreTiming}'s entries), the system configuration (to find it,
   * jgit runs {@code git} where one is installed) and the user's, with the classes behind them.
   * jgit keeps what it loaded and reads a file again only when it changed, so an open that follows
   * finds them ready. Safe from any thread, any number of times; one load at a time, so that a
   * second caller waits for a load under way instead of finding the system configuration again
   * beside it (jgit's cache of its location fills only when the search ends). A configuration that
   * cannot be read is left for the open to report.
   */
  public static void loadGlobalConfiguration() {
    synchronized (GLOBAL_CONFIGURATION) {
      try {
        SystemReader.getInstance().getUserConfig();
      } catch (IOException | ConfigInvalidException reportedByOpen) {
        // open() meets it again, with the repository it was opening
      }
    }
  }

  /** Opens the work tree at {@code directory}; see {@link #open(Path, Clock, Consumer)}. */
  public static JGitWorkspace open(Path directory, Clock clock) {
    return open(directory, clock, p -> {});
  }

  /**
   * Opens the work tree whose root is {@code directory} (it must contain {@code .git}; parent
   * directories are not searched).
   *
   * @param clock stamps commit times (UTC)
   * @param afterWrite called with every file and directory the workspace creates, e.g. to hand it
   *     to the workspace owner when running as root in a container
   * @throws EnvironmentProblem when {@code directory} is not a git work tree
   */
  public static JGitWorkspace open(Path directory, Clock clock, Consumer<Path> afterWrite) {
    Path dir = directory.toAbsolutePath().normalize();
    if (!Files.exists(dir.resolve(Constants.DOT_GIT))) {
      throw notARepository(dir, null);
    }
    // The repository reads the global configuration first: join the start-up preloading's load
    // if it is under way rather than run a second one (and git twice more) in parallel.
    loadGlobalConfiguration();
    try {
      Repository repo =
          new FileRepositoryBuilder()
              .setFS(NoHooksFs.forThisPlatform())
              .setWorkTree(dir.toFile())
              .setMustExist(true)
              .build();
      if (repo.isBare()) {
        repo.close();
        throw notARepository(dir, null);
      }
      leaveMaintenanceToGit(repo);
      if (repo.getRepositoryState() != org.eclipse.jgit.lib.RepositoryState.SAFE) {
        String state = repo.getRepositoryState().getDescription();
        repo.close();
        throw new EnvironmentProblem(
            "The repository in "
                + dir
                + " is in the middle of an operation ("
                + state
                + ") while opening it",
            "perhaps you should finish or abort it (git rebase --abort, git merge --abort) before"
                + " countersign");
      }
      return new JGitWorkspace(dir, repo, clock, afterWrite);
    } catch (RepositoryNotFoundException e) {
      throw notARepository(dir, e);
    } catch (IOException | IllegalArgumentException e) {
      throw new EnvironmentProblem(
          "Could not open the git repository in " + dir + " while starting",
          "perhaps you should check that actions/checkout completed and the directory is readable",
          e);
    }
  }

  /**
   * jgit runs {@code gc --auto} after every fetch, by default in a background thread that takes
   * {@code .git/gc.log.lock} and may write packs after the workspace was handed to its owner (as
   * root in the container: root-owned files in the runner's clone), or be cut off at exit. So
   * countersign never collects: set in memory only, the repository's own configuration untouched.
   */
  private static void leaveMaintenanceToGit(Repository repo) {
    StoredConfig config = repo.getConfig();
    config.setInt("gc", null, "auto", 0);
    config.setInt("gc", null, "autoPackLimit", 0);
    config.setBoolean("gc", null, "autoDetach", false);
  }

  private static EnvironmentProblem notARepository(Path dir, Throwable cause) {
    return new EnvironmentProblem(
        "not a git repository: " + dir,
        "perhaps you should run actions/checkout before countersign",
        cause);
  }

  @Override
  public Path directory() {
    return workTree.directory();
  }

  /**
   * The branch HEAD points at, or empty when HEAD is detached (as actions/checkout leaves it for
   * PRs).
   */
  public Optional<String> currentBranch() {
    try {
      String full = workTree.repository().getFullBranch();
      return full != null && full.startsWith(Constants.R_HEADS)
          ? Optional.of(full.substring(Constants.R_HEADS.length()))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The URL configured for remote {@code name} ({@code remote.<name>.url}), if any. */
  public Optional<String> remoteUrl(String name) {
    return Optional.ofNullable(workTree.repository().getConfig().getString("remote", name, "url"))
        .filter(u -> !u.isBlank());
  }

  /**
   * The branch remote {@code name}'s HEAD points at, as the clone recorded it ({@code
   * refs/remotes/NAME/HEAD}, which git clone sets to the repository's default branch); empty when
   * it was never recorded.
   */
  public Optional<String> remoteDefaultBranch(String name) {
    String prefix = Constants.R_REMOTES + name + "/";
    try {
      Ref head = workTree.repository().exactRef(prefix + Constants.HEAD);
      if (head == null || !head.isSymbolic()) {
        return Optional.empty();
      }
      String target = head.getTarget().getName();
      return target.startsWith(prefix)
          ? Optional.of(target.substring(prefix.length()))
          : Optional.empty();
    } catch (IOException e) {
      throw workTree.readProblem(prefix + Constants.HEAD, e);
    }
  }

  @Override
  public String headCommitId() {
    return commits.headCommitId();
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, String dir) {
    return commits.readFiles(commitId, dir);
  }

  @Override
  public List<TreeEntry> entries(String commitId, String dir) {
    return commits.entries(commitId, dir);
  }

  @Override
  public List<TreeEntry> entriesNamed(String commitId, String name) {
    return commits.entriesNamed(commitId, name);
  }

  @Override
  public Optional<byte[]> readFile(String commitId, String path) {
    return commits.readFile(commitId, path);
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, Collection<String> paths) {
    return commits.readFiles(commitId, paths);
  }

  @Override
  public SortedMap<String, WorkTreeDifference> workTreeDifferences(
      String commitId, Collection<String> paths) {
    return commits.workTreeDifferences(commitId, paths);
  }

  @Override
  public String lastCommitMessage(String revision) {
    return commits.lastCommitMessage(revision);
  }

  @Override
  public void apply(ChangeSet changes) {
    this.changes.apply(changes);
  }

  @Override
  public void refuseToOverwriteUncommittedWork(String commitId, ChangeSet changes) {
    this.changes.refuseToOverwriteUncommittedWork(commitId, changes);
  }

  @Override
  public Checkout checkout() {
    return checkouts.checkout();
  }

  @Override
  public void restore(Checkout checkout) {
    checkouts.restore(checkout);
  }

  @Override
  public void recordPush(Checkout start, GitRemote remote, String branch, String pushedCommit) {
    remotes.recordPush(start, remote, branch, pushedCommit);
  }

  @Override
  public List<String> uncommittedChanges() {
    return checkouts.uncommittedChanges();
  }

  @Override
  public String commit(ChangeSet changes, CommitRequest request) {
    return this.changes.commit(changes, request);
  }

  @Override
  public PushOutcome push(GitRemote remote, String branch) {
    return remotes.push(remote, branch);
  }

  @Override
  public PushOutcome pushWithLease(
      GitRemote remote, String branch, Optional<String> expectedRemoteId) {
    return remotes.pushWithLease(remote, branch, expectedRemoteId);
  }

  @Override
  public String fetch(GitRemote remote, String branch) {
    return remotes.fetch(remote, branch);
  }

  @Override
  public Optional<String> fetchIfExists(GitRemote remote, String branch) {
    return remotes.fetchIfExists(remote, branch);
  }

  @Override
  public boolean sameChange(String commitA, String commitB) {
    return commits.sameChange(commitA, commitB);
  }

  @Override
  public void resetTo(String commitId) {
    checkouts.resetTo(commitId);
  }

  @Override
  public CommitFacts commitFacts(String revision) {
    return commits.commitFacts(revision);
  }

  @Override
  public List<String> parents(String commitId) {
    return commits.parents(commitId);
  }

  @Override
  public Optional<String> findCommit(String revision) {
    return commits.findCommit(revision);
  }

  @Override
  public Map<String, List<FileVersion>> history(
      String commitId, Collection<String> paths, int maxCommits) {
    return commits.history(commitId, paths, maxCommits);
  }

  @Override
  public CommitContent commitContent(String commitId) {
    return commits.commitContent(commitId);
  }

  @Override
  public void adoptCommit(String commitId) {
    changes.adoptCommit(commitId);
  }

  /** The full id of the commit {@code revision} names (HEAD, a branch, an abbreviated id). */
  public String resolveCommit(String revision) {
    return commits.resolveCommit(revision);
  }

  /**
   * The committer time of {@code commitId} (what {@code publish} stamps its artifact with, instead
   * of the clock).
   */
  public Instant commitTime(String commitId) {
    return commits.commitTime(commitId);
  }

  @Override
  public void close() {
    workTree.repository().close();
  }
}
