package dev.countersign.git;

import dev.countersign.support.NoFollowPaths;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jgit.api.FetchCommand;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.PushCommand;
import org.eclipse.jgit.api.TransportCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.api.errors.InvalidRemoteException;
import org.eclipse.jgit.api.errors.TransportException;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheCheckout;
import org.eclipse.jgit.dircache.DirCacheEditor;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.errors.ConfigInvalidException;
import org.eclipse.jgit.errors.LargeObjectException;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.CoreConfig;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefLeaseSpec;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteConfig;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.FileTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.AndTreeFilter;
import org.eclipse.jgit.treewalk.filter.PathFilter;
import org.eclipse.jgit.treewalk.filter.PathFilterGroup;
import org.eclipse.jgit.treewalk.filter.TreeFilter;
import org.eclipse.jgit.util.FS;
import org.eclipse.jgit.util.SystemReader;
import org.eclipse.jgit.util.io.EolStreamTypeUtil;

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
 */
public final class JGitWorkspace implements GitWorkspace, AutoCloseable {

  /** The user name GitHub expects with a token in basic authentication. */
  static final String TOKEN_USER = "x-access-token";

  private static final String FETCHED_PREFIX = "refs/countersign/fetched/";
  private static final int TIMEOUT_SECONDS = 120;

  /** Held while jgit's global configuration loads; see {@link #loadGlobalConfiguration}. */
  private static final Object GLOBAL_CONFIGURATION = new Object();

  /** Names of staged files; unguessable so that nothing can be waiting at one. */
  private static final java.security.SecureRandom RANDOM_NAMES = new java.security.SecureRandom();

  private final Path directory;
  private final Repository repository;
  private final Git git;
  private final Clock clock;
  private final Consumer<Path> afterWrite;

  private JGitWorkspace(
      Path directory, Repository repository, Clock clock, Consumer<Path> afterWrite) {
    this.directory = directory;
    this.repository = repository;
    this.git = new Git(repository);
    this.clock = clock;
    this.afterWrite = afterWrite;
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
    return directory;
  }

  /**
   * A remote command's failure as the problem it is: ours as it stands, a bad remote URL, a
   * transport failure ({@link #transportProblem}), else {@code failed} ("Fetch failed") and {@code
   * hint}.
   */
  private static CountersignException remoteFailure(
      Exception e, GitRemote remote, String step, String failed, String hint) {
    if (e instanceof CountersignException ours) {
      return ours;
    }
    if (e instanceof InvalidRemoteException) {
      return new UsageProblem(
          "Invalid remote " + GitRemote.sanitize(remote.url()) + " while " + step,
          "perhaps you should pass the repository URL, e.g. https://github.com/OWNER/REPO.git",
          e);
    }
    if (e instanceof TransportException transport) {
      return transportProblem(transport, step, remote);
    }
    return new RemoteProblem(
        failed + " while " + step + ": " + GitRemote.sanitize(e.getMessage()), hint, e);
  }

  private static RemoteProblem noSuchBranch(String branch, String step, Exception cause) {
    return new RemoteProblem(
        "The remote has no branch " + branch + " while " + step,
        "perhaps you should check the branch input or that the branch still exists",
        cause);
  }

  @Override
  public boolean sameChange(String commitA, String commitB) {
    try (ObjectReader reader = repository.newObjectReader()) {
      RevCommit a = rawCommit(reader, commitA);
      RevCommit b = rawCommit(reader, commitB);
      return a.getTree().equals(b.getTree()) && Arrays.equals(a.getParents(), b.getParents());
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not read commits " + commitA + " and " + commitB + " in " + directory,
          "perhaps you should check that the repository is not corrupt",
          e);
    }
  }

  /**
   * The commit as its object says, parents included: a {@link RevWalk} of this repository would
   * give a commit at the shallow boundary none.
   */
  private RevCommit rawCommit(ObjectReader reader, String revision) throws IOException {
    return RevCommit.parse(reader.open(resolve(revision), Constants.OBJ_COMMIT).getCachedBytes());
  }

  /**
   * The branch HEAD points at, or empty when HEAD is detached (as actions/checkout leaves it for
   * PRs).
   */
  public Optional<String> currentBranch() {
    try {
      String full = repository.getFullBranch();
      return full != null && full.startsWith(Constants.R_HEADS)
          ? Optional.of(full.substring(Constants.R_HEADS.length()))
          : Optional.empty();
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** The URL configured for remote {@code name} ({@code remote.<name>.url}), if any. */
  public Optional<String> remoteUrl(String name) {
    return Optional.ofNullable(repository.getConfig().getString("remote", name, "url"))
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
      Ref head = repository.exactRef(prefix + Constants.HEAD);
      if (head == null || !head.isSymbolic()) {
        return Optional.empty();
      }
      String target = head.getTarget().getName();
      return target.startsWith(prefix)
          ? Optional.of(target.substring(prefix.length()))
          : Optional.empty();
    } catch (IOException e) {
      throw readProblem(prefix + Constants.HEAD, e);
    }
  }

  @Override
  public String headCommitId() {
    try {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      if (head == null) {
        throw new EnvironmentProblem(
            "The repository in " + directory + " has no commit checked out",
            "perhaps you should run actions/checkout with a ref that exists");
      }
      return head.name();
    } catch (IOException e) {
      throw readProblem("HEAD", e);
    }
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, String dir) {
    String prefix = ChangeSet.checkedPath(RepositoryPaths.directory(dir));
    return readRegularFiles(
        commitId,
        PathFilter.create(prefix),
        tw -> Optional.of(tw.getPathString()),
        commitId + ":" + prefix);
  }

  /**
   * The regular files of {@code commitId} that {@code filter} passes, by the path {@code accepted}
   * gives for them (empty: skipped), read in one walk of the tree.
   */
  private SortedMap<String, byte[]> readRegularFiles(
      String commitId,
      TreeFilter filter,
      Function<TreeWalk, Optional<String>> accepted,
      String describe) {
    SortedMap<String, byte[]> files = new TreeMap<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(resolve(commitId));
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(filter);
      ObjectReader reader = tw.getObjectReader();
      while (tw.next()) {
        Optional<String> path = accepted.apply(tw);
        if (path.isPresent() && isRegularFile(tw.getFileMode(0))) {
          files.put(path.get(), load(reader, tw.getObjectId(0), path.get()));
        }
      }
      return files;
    } catch (IOException e) {
      throw readProblem(describe, e);
    }
  }

  @Override
  public List<TreeEntry> entries(String commitId, String dir) {
    String prefix = ChangeSet.checkedPath(RepositoryPaths.directory(dir));
    List<TreeEntry> found = new ArrayList<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(resolve(commitId));
      ObjectReader reader = tw.getObjectReader();
      // A path filter does not report a parent that is not a tree (a link named like a parent
      // directory), so the parents are looked up one by one.
      int slash = prefix.indexOf('/');
      while (slash > 0) {
        try (TreeWalk parent =
            TreeWalk.forPath(repository, prefix.substring(0, slash), commit.getTree())) {
          if (parent == null) {
            return found;
          }
          if (parent.getFileMode(0) != FileMode.TREE) {
            found.add(
                new TreeEntry(
                    strictPath(parent.getRawPath()),
                    kindOf(parent.getFileMode(0)),
                    parent.getFileMode(0) == FileMode.GITLINK
                        ? 0
                        : reader.getObjectSize(parent.getObjectId(0), Constants.OBJ_BLOB)));
            return found;
          }
        }
        slash = prefix.indexOf('/', slash + 1);
      }
      tw.addTree(commit.getTree());
      tw.setRecursive(false);
      tw.setFilter(PathFilter.create(prefix));
      while (tw.next()) {
        String path = strictPath(tw.getRawPath());
        FileMode mode = tw.getFileMode(0);
        boolean below = path.startsWith(prefix + "/");
        if (mode == FileMode.TREE) {
          if (below) {
            found.add(new TreeEntry(path, TreeEntry.Kind.DIRECTORY, 0));
          }
          // The directory itself and its parents are entered, not listed.
          tw.enterSubtree();
          continue;
        }
        // A non-tree at the directory's own path or a parent's: a link where a directory should be.
        TreeEntry.Kind kind = kindOf(mode);
        long size =
            kind == TreeEntry.Kind.OTHER
                ? 0
                : reader.getObjectSize(tw.getObjectId(0), Constants.OBJ_BLOB);
        found.add(new TreeEntry(path, kind, size));
      }
      found.sort(Comparator.comparing(TreeEntry::path));
      return found;
    } catch (IOException e) {
      throw readProblem(commitId + ":" + prefix, e);
    }
  }

  private static TreeEntry.Kind kindOf(FileMode mode) {
    return isRegularFile(mode)
        ? TreeEntry.Kind.FILE
        : mode == FileMode.SYMLINK ? TreeEntry.Kind.LINK : TreeEntry.Kind.OTHER;
  }

  /**
   * A raw tree path as UTF-8, with U+FFFD for bytes that are not (jgit would fall back to Latin-1).
   */
  private static String strictPath(byte[] raw) {
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPLACE)
          .onUnmappableCharacter(CodingErrorAction.REPLACE)
          .replaceWith("\uFFFD")
          .decode(ByteBuffer.wrap(raw))
          .toString();
    } catch (CharacterCodingException e) {
      throw new IllegalStateException("a replacing decoder reported an error", e);
    }
  }

  @Override
  public Optional<byte[]> readFile(String commitId, String path) {
    String p = ChangeSet.checkedPath(path);
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit commit = walk.parseCommit(resolve(commitId));
      try (TreeWalk tw = TreeWalk.forPath(repository, p, commit.getTree())) {
        if (tw == null || !isRegularFile(tw.getFileMode(0))) {
          return Optional.empty();
        }
        return Optional.of(load(tw.getObjectReader(), tw.getObjectId(0), p));
      }
    } catch (IOException e) {
      throw readProblem(commitId + ":" + p, e);
    }
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, Collection<String> paths) {
    if (paths.isEmpty()) {
      return new TreeMap<>();
    }
    Set<String> wanted = new HashSet<>();
    for (String path : paths) {
      wanted.add(ChangeSet.checkedPath(path));
    }
    return readRegularFiles(
        commitId,
        PathFilterGroup.createFromStrings(wanted),
        tw -> {
          // Exactly the listed path, byte for byte, as readFile's lookup: not a non-tree parent
          // the filter also passes, nor a name that only decodes to the same string.
          String path = strictPath(tw.getRawPath());
          return wanted.contains(path)
                  && Arrays.equals(tw.getRawPath(), path.getBytes(StandardCharsets.UTF_8))
              ? Optional.of(path)
              : Optional.empty();
        },
        wanted.size() + " listed files of " + commitId);
  }

  @Override
  public SortedMap<String, WorkTreeDifference> workTreeDifferences(
      String commitId, Collection<String> paths) {
    Set<String> wanted = new HashSet<>();
    for (String path : paths) {
      wanted.add(ChangeSet.checkedPath(path));
    }
    SortedMap<String, WorkTreeDifference> differences = new TreeMap<>();
    if (wanted.isEmpty()) {
      return differences;
    }
    Map<String, ObjectId> committed = new HashMap<>();
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      tw.addTree(walk.parseCommit(resolve(commitId)).getTree());
      tw.setRecursive(true);
      tw.setFilter(PathFilterGroup.createFromStrings(wanted));
      while (tw.next()) {
        // Exactly a listed path, as readFiles takes it.
        String path = strictPath(tw.getRawPath());
        if (wanted.contains(path)
            && Arrays.equals(tw.getRawPath(), path.getBytes(StandardCharsets.UTF_8))
            && isRegularFile(tw.getFileMode(0))) {
          committed.put(path, tw.getObjectId(0));
        }
      }
    } catch (IOException e) {
      throw readProblem(wanted.size() + " listed files of " + commitId, e);
    }
    ObjectInserter.Formatter ids = new ObjectInserter.Formatter();
    for (String path : wanted) {
      Path file = workTreeFile(path);
      Optional<ObjectId> inWorkTree = workTreeBlobId(ids, file, path);
      ObjectId inCommit = committed.get(path);
      if (inWorkTree.isEmpty() && inCommit != null) {
        differences.put(path, WorkTreeDifference.NOT_IN_WORK_TREE);
      } else if (inWorkTree.isPresent() && inCommit == null) {
        differences.put(path, WorkTreeDifference.NOT_IN_COMMIT);
      } else if (inWorkTree.isPresent() && !inWorkTree.get().equals(inCommit)) {
        differences.put(path, WorkTreeDifference.CHANGED);
      }
    }
    return differences;
  }

  /** The blob id of the regular file {@code file} as it is, streamed; empty when it is none. */
  private Optional<ObjectId> workTreeBlobId(ObjectInserter.Formatter ids, Path file, String path) {
    Optional<BasicFileAttributes> attributes = NoFollowPaths.lstat(file);
    if (attributes.isEmpty() || !attributes.get().isRegularFile()) {
      return Optional.empty();
    }
    try (InputStream in =
        Files.newInputStream(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return Optional.of(ids.idFor(Constants.OBJ_BLOB, attributes.get().size(), in));
    } catch (IOException e) {
      // Also a file that changed size while it was read: git's id needs the length up front.
      throw InputProblem.unreadable(Path.of(path), e);
    }
  }

  /**
   * A blob's bytes. One too large for jgit to hold in memory is an input problem naming the file,
   * not a crash: callers check sizes with {@link #entries} first, so this is a backstop.
   */
  private static byte[] load(ObjectReader reader, ObjectId blob, String path) throws IOException {
    try {
      return reader.open(blob, Constants.OBJ_BLOB).getBytes();
    } catch (LargeObjectException e) {
      throw new InputProblem(
          Path.of(path),
          0,
          "is too large to read (" + e.getMessage() + ")",
          "perhaps you should split it into smaller files",
          e);
    }
  }

  @Override
  public List<String> parents(String commitId) {
    try (ObjectReader reader = repository.newObjectReader()) {
      // Parsed outside a walk of this repository: a walk reads .git/shallow and would report a
      // boundary commit of a shallow clone as having no parents.
      byte[] raw =
          reader.open(ObjectId.fromString(commitId), Constants.OBJ_COMMIT).getCachedBytes();
      RevCommit commit = RevCommit.parse(raw);
      List<String> parents = new ArrayList<>();
      for (RevCommit parent : commit.getParents()) {
        parents.add(parent.name());
      }
      return List.copyOf(parents);
    } catch (IOException e) {
      throw readProblem(commitId, e);
    }
  }

  @Override
  public Optional<String> findCommit(String revision) {
    try {
      ObjectId id = repository.resolve(revision + "^{commit}");
      if (id == null) {
        return Optional.empty();
      }
      try (RevWalk walk = new RevWalk(repository)) {
        walk.parseCommit(id);
      }
      return Optional.of(id.name());
    } catch (IOException | RuntimeException missing) {
      // Unknown, ambiguous, or named but not present (a shallow clone's boundary): not here.
      return Optional.empty();
    }
  }

  @Override
  public Map<String, List<FileVersion>> history(
      String commitId, Collection<String> paths, int maxCommits) {
    Map<String, List<FileVersion>> versions = new TreeMap<>();
    List<String> scope = paths.stream().map(ChangeSet::checkedPath).distinct().toList();
    if (scope.isEmpty()) {
      return versions;
    }
    Map<String, Set<ObjectId>> seen = new HashMap<>();
    TreeFilter under = PathFilterGroup.createFromStrings(scope);
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit start = walk.parseCommit(resolve(commitId));
      // Every commit is read as its change to its first parent (side branches are walked too),
      // so a version is found once, where it was introduced; the start commit whole, first.
      collect(walk, start, null, under, versions, seen);
      walk.markStart(start);
      int count = 0;
      for (RevCommit commit : walk) {
        if (++count > maxCommits) {
          break;
        }
        RevCommit parent = commit.getParentCount() == 0 ? null : commit.getParent(0);
        try {
          if (parent != null) {
            walk.parseHeaders(parent);
          }
        } catch (org.eclipse.jgit.errors.MissingObjectException shallowBoundary) {
          // The parent is beyond a shallow clone's boundary: this commit is read whole.
          parent = null;
        }
        collect(walk, commit, parent, under, versions, seen);
      }
      return versions;
    } catch (org.eclipse.jgit.errors.MissingObjectException shallowEnd) {
      // The local history ends here (a shallow clone): what was found is all there is.
      return versions;
    } catch (IOException e) {
      throw readProblem(commitId + ":" + scope, e);
    }
  }

  /**
   * Adds the regular files under {@code under} that {@code commit} holds and {@code parent} (when
   * given) does not hold with the same content.
   */
  private void collect(
      RevWalk walk,
      RevCommit commit,
      RevCommit parent,
      TreeFilter under,
      Map<String, List<FileVersion>> versions,
      Map<String, Set<ObjectId>> seen)
      throws IOException {
    try (TreeWalk tw = new TreeWalk(walk.getObjectReader())) {
      if (parent == null) {
        tw.addTree(commit.getTree());
        tw.setFilter(under);
      } else {
        tw.addTree(commit.getTree());
        tw.addTree(parent.getTree());
        tw.setFilter(AndTreeFilter.create(under, TreeFilter.ANY_DIFF));
      }
      tw.setRecursive(true);
      while (tw.next()) {
        String path = tw.getPathString();
        if (isRegularFile(tw.getFileMode(0))
            && seen.computeIfAbsent(path, p -> new HashSet<>()).add(tw.getObjectId(0).copy())) {
          versions
              .computeIfAbsent(path, p -> new ArrayList<>())
              .add(
                  new FileVersion(
                      commit.name(), load(tw.getObjectReader(), tw.getObjectId(0), path)));
        }
      }
    }
  }

  /** The full id of the commit {@code revision} names (HEAD, a branch, an abbreviated id). */
  public String resolveCommit(String revision) {
    try (RevWalk walk = new RevWalk(repository)) {
      return walk.parseCommit(resolve(revision)).name();
    } catch (IOException e) {
      throw readProblem(revision, e);
    }
  }

  /**
   * The committer time of {@code commitId} (what {@code publish} stamps its artifact with, instead
   * of the clock).
   */
  public Instant commitTime(String commitId) {
    try (RevWalk walk = new RevWalk(repository)) {
      return Instant.ofEpochSecond(walk.parseCommit(resolve(commitId)).getCommitTime());
    } catch (IOException e) {
      throw readProblem(commitId, e);
    }
  }

  @Override
  public String lastCommitMessage(String revision) {
    try (RevWalk walk = new RevWalk(repository)) {
      return walk.parseCommit(resolve(revision)).getFullMessage();
    } catch (IOException e) {
      throw readProblem(revision, e);
    }
  }

  // From this many new blobs on, apply writes one pack instead of loose objects, as git's own
  // receive-pack does (transfer.unpackLimit 100): a loose object is a temp file, a deflate stream
  // and a rename each, 1.3 ms per file and most of a 5,000-manifest run's system time.
  static final int PACK_FROM_BLOBS = 100;

  private ObjectInserter inserterFor(int blobs) {
    if (blobs >= PACK_FROM_BLOBS
        && repository.getObjectDatabase()
            instanceof org.eclipse.jgit.internal.storage.file.ObjectDirectory objects) {
      // jgit's PackInserter (internal API, stable since jgit 5): one pack + index per flush.
      return objects.newPackInserter();
    }
    return repository.newObjectInserter();
  }

  @Override
  public CommitFacts commitFacts(String revision) {
    try (RevWalk walk = new RevWalk(repository)) {
      RevCommit commit = walk.parseCommit(resolve(revision));
      PersonIdent committer = commit.getCommitterIdent();
      return new CommitFacts(
          commit.getFullMessage(),
          committer.getName(),
          committer.getEmailAddress(),
          changesAgainstParent(walk, commit));
    } catch (IOException e) {
      throw readProblem(revision, e);
    }
  }

  /** Paths {@code commit} changed against its only parent; empty when that parent is not here. */
  private Optional<List<CommitFacts.Change>> changesAgainstParent(RevWalk walk, RevCommit commit) {
    if (commit.getParentCount() != 1) {
      return Optional.empty();
    }
    try (TreeWalk tw = new TreeWalk(repository)) {
      RevCommit parent = walk.parseCommit(commit.getParent(0));
      tw.addTree(parent.getTree());
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      List<CommitFacts.Change> changes = new ArrayList<>();
      while (tw.next()) {
        changes.add(
            new CommitFacts.Change(tw.getPathString(), tw.getFileMode(1) == FileMode.MISSING));
      }
      return Optional.of(List.copyOf(changes));
    } catch (IOException e) {
      // A shallow clone has the commit but not its parent: the changes cannot be told.
      return Optional.empty();
    }
  }

  @Override
  public void apply(ChangeSet changes) {
    write(changes);
  }

  @Override
  public void refuseToOverwriteUncommittedWork(ChangeSet changes) {
    workTreeFiles(changes);
    // Loose objects: the bytes asked about are mostly in the repository already (a run asks with
    // the unsigned files), which this inserter skips and a pack inserter would copy.
    try (ObjectInserter inserter = repository.newObjectInserter()) {
      Map<String, ObjectId> blobs = new HashMap<>();
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        blobs.put(write.getKey(), inserter.insert(Constants.OBJ_BLOB, write.getValue()));
      }
      checkedTree(changes, blobs, inserter);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not compare the work tree in "
              + directory
              + " with the "
              + (changes.writes().size() + changes.deletes().size())
              + " path(s) countersign would write or delete",
          "perhaps you should check that the workspace is readable and has free space",
          e);
    }
  }

  /**
   * {@link #apply}, returning the tree of HEAD with {@code changes} made to it, in the object
   * database with its blobs.
   */
  private ObjectId write(ChangeSet changes) {
    Map<String, Path> files = workTreeFiles(changes);
    Staging staging = new Staging();
    String current = null;
    boolean applied = false;
    DirCache index = null;
    try (ObjectInserter inserter = inserterFor(changes.writes().size())) {
      // First every blob and the tree of the change, so that uncommitted work in its way stops
      // it before the work tree is touched; then every file in full beside its target. All with
      // no lock held: a full disk here leaves nothing behind (the finally below removes what was
      // staged).
      Map<String, ObjectId> blobs = new HashMap<>();
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        blobs.put(current, inserter.insert(Constants.OBJ_BLOB, write.getValue()));
      }
      current = null;
      ObjectId tree = checkedTree(changes, blobs, inserter);
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        staging.write(files.get(current), write.getValue());
      }
      current = null;
      index = repository.lockDirCache();
      DirCacheEditor editor = index.editor();
      // Then renames, which need no space for content.
      for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
        current = write.getKey();
        Path file = staging.commit(files.get(current));
        ObjectId blob = blobs.get(current);
        Instant modified = Files.getLastModifiedTime(file, LinkOption.NOFOLLOW_LINKS).toInstant();
        int length = write.getValue().length;
        editor.add(new RegularFileEdit(current, blob, length, modified));
      }
      for (String path : changes.deletes()) {
        current = path;
        Files.deleteIfExists(files.get(path));
        editor.add(new DirCacheEditor.DeletePath(path));
      }
      current = null;
      editor.commit(); // writes the index and releases the lock
      index = null;
      applied = true;
      return tree;
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write "
              + (current == null ? changes.toString() : current)
              + " to the work tree in "
              + directory
              + " while applying "
              + changes.writes().size()
              + " write(s) and "
              + changes.deletes().size()
              + " deletion(s)"
              + (staging.committed() ? "" : "; the work tree and index were left as they were")
              + ": "
              + e.getMessage(),
          "perhaps you should check that the workspace is writable, has free space, and that no"
              + " other git process holds .git/index.lock",
          e);
    } finally {
      if (!applied) {
        staging.discard();
      }
      staging.close();
      if (index != null) {
        index.unlock();
      }
    }
  }

  /**
   * Files of one {@link #apply} written in full beside their targets ({@link #write}) and then
   * renamed onto them ({@link #commit}); {@link #discard} removes what was not renamed, and the
   * directories made for them when none of their files arrived. Until {@link #close}, a JVM that
   * stops first (SIGTERM from a cancelled job) discards them from a shutdown hook, as jgit releases
   * its lock files: otherwise they stay beside the manifests as untracked files, for a later step
   * that commits everything to push. The other thread keeps running while the hook does; a file it
   * creates after the hook's walk stays.
   */
  private final class Staging implements AutoCloseable {
    private final Map<Path, Path> staged = new ConcurrentHashMap<>();
    private final Set<Path> readyParents = new HashSet<>();
    private final List<Path> createdDirectories = new CopyOnWriteArrayList<>();
    private final Thread onExit = new Thread(this::discard, "countersign-staged-files");
    private boolean committed;

    Staging() {
      try {
        Runtime.getRuntime().addShutdownHook(onExit);
      } catch (IllegalStateException stopping) {
        // The JVM is already stopping: the caller's failure path is all there is.
      }
    }

    /** The files are renamed or discarded: the shutdown hook is not needed any more. */
    @Override
    public void close() {
      try {
        Runtime.getRuntime().removeShutdownHook(onExit);
      } catch (IllegalStateException stopping) {
        // The hook is running, or never ran: either way nothing is left to do here.
      }
    }

    /**
     * Writes {@code bytes} to a new file beside {@code file} ({@link #workTreeFile} checked it),
     * creating its parents without following a link anywhere below the work tree's root; parents
     * made or checked for an earlier file need no second walk. What is at {@code file} itself must
     * be a regular file or nothing, so the rename cannot fail on it later.
     */
    void write(Path file, byte[] bytes) throws IOException {
      if (readyParents.add(file.getParent())) {
        List<Path> created = NoFollowPaths.createParents(directory, file);
        createdDirectories.addAll(created);
        created.forEach(afterWrite);
      }
      NoFollowPaths.lstat(file)
          .filter(existing -> !existing.isRegularFile())
          .ifPresent(
              existing -> {
                throw new InputProblem(
                    directory.relativize(file),
                    0,
                    "is in the work tree but is not a regular file, so the signed file cannot be"
                        + " written there",
                    "perhaps you should remove it from the work tree");
              });
      Path temporary =
          file.resolveSibling(".countersign-" + Long.toHexString(RANDOM_NAMES.nextLong()) + ".tmp");
      staged.put(file, temporary);
      try (var out =
          Files.newOutputStream(
              temporary,
              StandardOpenOption.CREATE_NEW,
              StandardOpenOption.WRITE,
              LinkOption.NOFOLLOW_LINKS)) {
        out.write(bytes);
      }
      afterWrite.accept(temporary);
    }

    /** Renames the file staged for {@code file} onto it; returns {@code file}. */
    Path commit(Path file) throws IOException {
      committed = true;
      // rename(2) replaces what is at the target, a link included, and never follows it.
      Files.move(staged.get(file), file, StandardCopyOption.ATOMIC_MOVE);
      staged.remove(file);
      return file;
    }

    boolean committed() {
      return committed;
    }

    void discard() {
      for (Path temporary : staged.values()) {
        try {
          Files.deleteIfExists(temporary);
        } catch (IOException e) {
          // Best effort after a failure that is being reported; an untracked leftover is inert.
        }
      }
      staged.clear();
      for (int i = createdDirectories.size() - 1; i >= 0; i--) {
        try {
          Files.deleteIfExists(createdDirectories.get(i));
        } catch (IOException notEmpty) {
          // A file did arrive in it: it stays.
        }
      }
      createdDirectories.clear();
    }
  }

  /**
   * {@link #workTreeFile} for every path {@code changes} writes or deletes, by path: all are
   * checked before anything is written, so a link anywhere on the way stops the whole change set
   * with the work tree untouched. The checked paths are the ones written.
   */
  private Map<String, Path> workTreeFiles(ChangeSet changes) {
    Map<String, Path> files = new HashMap<>();
    for (String path : changes.writes().keySet()) {
      files.put(path, workTreeFile(path));
    }
    for (String path : changes.deletes()) {
      files.put(path, workTreeFile(path));
    }
    return files;
  }

  /**
   * The work tree file for a repository-relative path: lexically inside the work tree, and no
   * existing component of it below the root is a symbolic link.
   *
   * @throws InputProblem naming the link
   */
  private Path workTreeFile(String relative) {
    return NoFollowPaths.inside(directory, Path.of(ChangeSet.checkedPath(relative)));
  }

  @Override
  public String commit(ChangeSet changes, CommitRequest request) {
    ObjectId tree = write(changes);
    try (ObjectInserter inserter = repository.newObjectInserter();
        RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      RevCommit parent = head == null ? null : walk.parseCommit(head);
      if (parent != null && parent.getTree().equals(tree)) {
        throw new InternalProblem("Nothing to commit in " + directory + ": the change is in HEAD");
      }
      Instant now = clock.instant();
      CommitBuilder commit = new CommitBuilder();
      commit.setTreeId(tree);
      if (head != null) {
        commit.setParentId(head);
      }
      commit.setAuthor(person(request.author(), now));
      commit.setCommitter(person(request.committer(), now));
      commit.setEncoding(StandardCharsets.UTF_8);
      commit.setMessage(request.message());
      ObjectId id = inserter.insert(commit);
      inserter.flush();

      // Updating HEAD moves the checked-out branch, or HEAD itself when detached.
      RefUpdate update = repository.updateRef(Constants.HEAD);
      update.setNewObjectId(id);
      update.setExpectedOldObjectId(head == null ? ObjectId.zeroId() : head);
      update.setRefLogIdent(person(request.committer(), now));
      update.setRefLogMessage("commit (countersign): " + firstLine(request.message()), false);
      // The commit is HEAD's child by construction, and the expected old value still guards the
      // update. Forced, because jgit's fast-forward check walks parents and sees none at a shallow
      // boundary: a commit identical to one fetched one commit deep (same change, same second, as
      // when a bot branch already holds it) would be REJECTED.
      update.setForceUpdate(true);
      RefUpdate.Result result = update.update(walk);
      if (result != RefUpdate.Result.NEW
          && result != RefUpdate.Result.FAST_FORWARD
          && result != RefUpdate.Result.FORCED) {
        throw new EnvironmentProblem(
            "Could not move HEAD to the new commit ("
                + result
                + ") in "
                + directory
                + " while committing",
            "perhaps you should make sure no other git process is using the repository");
      }
      return id.name();
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not write a commit in " + directory + " while committing",
          "perhaps you should check that the repository is writable",
          e);
    }
  }

  /**
   * The tree of HEAD with {@code changes} (whose blobs are {@code blobs}, by path) made to it,
   * inserted and flushed, once moving index and work tree from HEAD's tree to it is known to
   * overwrite nothing uncommitted ({@link #workInTheWay}).
   *
   * @throws UsageProblem naming the paths in the way; nothing in the work tree or index changed
   */
  private ObjectId checkedTree(
      ChangeSet changes, Map<String, ObjectId> blobs, ObjectInserter inserter) throws IOException {
    try (RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      RevCommit parent = head == null ? null : walk.parseCommit(head);
      ObjectId tree = treeWith(walk.getObjectReader(), parent, changes, blobs, inserter);
      inserter.flush();
      List<String> inTheWay = workInTheWay(parent == null ? null : parent.getTree(), tree);
      if (!inTheWay.isEmpty()) {
        throw uncommittedWorkInTheWay(
            inTheWay, "writing countersign's change, which writes or deletes them,", null);
      }
      return tree;
    }
  }

  /**
   * The tree of {@code parent} (none: empty) with {@code changes} made to it: never the index, so
   * what a step before countersign staged (a file added, edited, deleted or made executable, an
   * intent-to-add entry) cannot ride along under countersign's name.
   */
  private static ObjectId treeWith(
      ObjectReader reader,
      RevCommit parent,
      ChangeSet changes,
      Map<String, ObjectId> blobs,
      ObjectInserter inserter)
      throws IOException {
    DirCache tree = DirCache.newInCore();
    org.eclipse.jgit.dircache.DirCacheBuilder builder = tree.builder();
    if (parent != null) {
      builder.addTree(new byte[0], DirCacheEntry.STAGE_0, reader, parent.getTree());
    }
    builder.finish();
    DirCacheEditor editor = tree.editor();
    for (String path : changes.writes().keySet()) {
      ObjectId blob = blobs.get(path);
      editor.add(new RegularFileEdit(path, blob, 0, null));
    }
    for (String path : changes.deletes()) {
      editor.add(new DirCacheEditor.DeletePath(path));
    }
    editor.finish();
    return tree.writeTree(inserter);
  }

  private static PersonIdent person(GitIdentity identity, Instant when) {
    return new PersonIdent(identity.name(), identity.email(), when, ZoneOffset.UTC);
  }

  @Override
  public PushOutcome push(GitRemote remote, String branch) {
    return doPush(remote, branch, Optional.empty());
  }

  @Override
  public PushOutcome pushWithLease(
      GitRemote remote, String branch, Optional<String> expectedRemoteId) {
    return doPush(remote, branch, Optional.of(expectedRemoteId.orElse(ObjectId.zeroId().name())));
  }

  private PushOutcome doPush(GitRemote remote, String branch, Optional<String> lease) {
    String target = Constants.R_HEADS + checkedBranch(branch);
    String step = "pushing to " + target + " of " + remote.url();
    try {
      PushCommand push =
          git.push()
              .setRemote(remote.url())
              .setRefSpecs(
                  new RefSpec((lease.isPresent() ? "+" : "") + Constants.HEAD + ":" + target))
              .setTimeout(TIMEOUT_SECONDS);
      if (lease.isPresent()) {
        push.setRefLeaseSpecs(new RefLeaseSpec(target, lease.get()));
      }
      authenticate(push, remote);
      List<PushResult> results = new ArrayList<>();
      push.call().forEach(results::add);
      return outcome(results, target, branch, step);
    } catch (GitAPIException | RuntimeException e) {
      throw remoteFailure(
          e,
          remote,
          step,
          "Push failed",
          "perhaps you should retry; if it persists run with --stacktrace and report it");
    }
  }

  private PushOutcome outcome(List<PushResult> results, String target, String branch, String step) {
    StringBuilder messages = new StringBuilder();
    RemoteRefUpdate update = null;
    for (PushResult result : results) {
      if (result.getMessages() != null) {
        messages.append(result.getMessages());
      }
      RemoteRefUpdate u = result.getRemoteUpdate(target);
      if (u != null) {
        update = u;
      }
    }
    String remoteMessages = GitRemote.sanitize(messages.toString());
    if (update == null) {
      throw new InternalProblem("The remote did not report on " + target + " while " + step);
    }
    String reason = update.getMessage() == null ? "" : GitRemote.sanitize(update.getMessage());
    switch (update.getStatus()) {
      case OK:
        return new PushOutcome.Pushed(branch, update.getNewObjectId().name(), false);
      case UP_TO_DATE:
        return new PushOutcome.Pushed(branch, update.getNewObjectId().name(), true);
      case REJECTED_NONFASTFORWARD:
      case REJECTED_REMOTE_CHANGED:
      case REJECTED_NODELETE:
        return new PushOutcome.Rejected(branch, update.getStatus().name(), reason);
      case REJECTED_OTHER_REASON:
        return new PushOutcome.Refused(branch, reason, remoteMessages);
      default:
        throw new RemoteProblem(
            "The remote left "
                + target
                + " in state "
                + update.getStatus()
                + " while "
                + step
                + (remoteMessages.isBlank() ? "" : ": " + remoteMessages.strip()),
            "perhaps you should retry the run");
    }
  }

  @Override
  public String fetch(GitRemote remote, String branch) {
    String name = checkedBranch(branch);
    String source = Constants.R_HEADS + name;
    String local = FETCHED_PREFIX + name;
    String step = "fetching " + source + " from " + remote.url();
    try {
      FetchCommand fetch =
          git.fetch()
              .setRemote(remote.url())
              .setRefSpecs(new RefSpec("+" + source + ":" + local))
              .setTagOpt(TagOpt.NO_TAGS)
              .setRemoveDeletedRefs(false)
              .setTimeout(TIMEOUT_SECONDS);
      if (isShallow()) {
        // Stay shallow: the fresh tip is all a recompute needs, and deepening a big repository
        // is slow (and hits jgit's unshallow bug, eclipse-jgit/jgit#182).
        fetch.setDepth(1);
      }
      authenticate(fetch, remote);
      FetchResult result = fetch.call();
      if (result.getAdvertisedRef(source) == null) {
        throw noSuchBranch(branch, step, null);
      }
      Ref fetched = repository.exactRef(local);
      if (fetched == null) {
        throw new InternalProblem(
            "Fetched " + source + " but " + local + " is missing while " + step);
      }
      return fetched.getObjectId().name();
    } catch (TransportException e) {
      if (String.valueOf(e.getMessage()).contains("does not have " + source)) {
        throw noSuchBranch(branch, step, e);
      }
      throw transportProblem(e, step, remote);
    } catch (GitAPIException e) {
      throw remoteFailure(e, remote, step, "Fetch failed", "perhaps you should retry the run");
    } catch (IOException e) {
      throw readProblem(local, e);
    }
  }

  @Override
  public Optional<String> fetchIfExists(GitRemote remote, String branch) {
    String source = Constants.R_HEADS + checkedBranch(branch);
    String step = "listing " + source + " on " + remote.url();
    try {
      org.eclipse.jgit.api.LsRemoteCommand list =
          git.lsRemote().setRemote(remote.url()).setHeads(true).setTimeout(TIMEOUT_SECONDS);
      authenticate(list, remote);
      boolean present = list.call().stream().anyMatch(ref -> ref.getName().equals(source));
      return present ? Optional.of(fetch(remote, branch)) : Optional.empty();
    } catch (GitAPIException e) {
      throw remoteFailure(
          e, remote, step, "Listing branches failed", "perhaps you should retry the run");
    }
  }

  private boolean isShallow() {
    File shallow = new File(repository.getDirectory(), "shallow");
    return shallow.isFile() && shallow.length() > 0;
  }

  @Override
  public void resetTo(String commitId) {
    try {
      ObjectId target = resolve(commitId);
      ObjectId current = repository.resolve(Constants.HEAD + "^{commit}");
      // The work tree first, while HEAD has not moved: a path in the way stops it with nothing
      // changed. Then HEAD, detached, so no local branch moves (it may not even be the branch
      // we push to).
      checkOutChangedPaths(
          current,
          target,
          (edited, conflict) ->
              uncommittedWorkInTheWay(
                  edited,
                  "moving to " + CommitIds.abbreviate(target.name()) + ", which changes them,",
                  conflict));
      RefUpdate detach = repository.updateRef(Constants.HEAD, true);
      detach.setNewObjectId(target);
      detach.setRefLogMessage("countersign: start from " + target.name(), false);
      RefUpdate.Result r = detach.forceUpdate();
      if (r == RefUpdate.Result.LOCK_FAILURE || r == RefUpdate.Result.IO_FAILURE) {
        throw new EnvironmentProblem(
            "Could not detach HEAD (" + r + ") in " + directory + " while moving to " + commitId,
            "perhaps you should make sure no other git process is using the repository");
      }
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not move the work tree in " + directory + " to " + commitId,
          "perhaps you should check that the workspace is writable",
          e);
    }
  }

  @Override
  public Checkout checkout() {
    try {
      Ref head = repository.exactRef(Constants.HEAD);
      if (head == null || head.getObjectId() == null) {
        throw new EnvironmentProblem(
            "The repository in " + directory + " has no commit checked out",
            "perhaps you should run actions/checkout with a ref that exists");
      }
      return new Checkout(
          head.isSymbolic() ? Optional.of(head.getTarget().getName()) : Optional.empty(),
          head.getObjectId().name());
    } catch (IOException e) {
      throw readProblem(Constants.HEAD, e);
    }
  }

  @Override
  public void restore(Checkout checkout) {
    Checkout now = checkout();
    if (now.equals(checkout)) {
      return;
    }
    try {
      ObjectId target = resolve(checkout.commitId());
      ObjectId left = ObjectId.fromString(now.commitId());
      RefUpdate.Result moved;
      if (checkout.branch().isPresent()) {
        RefUpdate branch = repository.updateRef(checkout.branch().get());
        branch.setNewObjectId(target);
        branch.setRefLogMessage("countersign: back to where the run started", false);
        RefUpdate.Result back = branch.forceUpdate();
        if (back == RefUpdate.Result.LOCK_FAILURE || back == RefUpdate.Result.IO_FAILURE) {
          moved = back;
        } else {
          moved = repository.updateRef(Constants.HEAD).link(checkout.branch().get());
        }
      } else {
        RefUpdate detach = repository.updateRef(Constants.HEAD, true);
        detach.setNewObjectId(target);
        detach.setRefLogMessage("countersign: back to where the run started", false);
        moved = detach.forceUpdate();
      }
      if (moved == RefUpdate.Result.LOCK_FAILURE || moved == RefUpdate.Result.IO_FAILURE) {
        throw new EnvironmentProblem(
            "Could not put HEAD back on "
                + checkout.branch().orElse(checkout.commitId())
                + " ("
                + moved
                + ") in "
                + directory,
            "perhaps you should make sure no other git process is using the repository");
      }
      checkOutChangedPaths(
          left,
          target,
          (edited, conflict) ->
              new EnvironmentProblem(
                  "Could not put "
                      + String.join(", ", edited)
                      + " in "
                      + directory
                      + " back: edited since countersign changed them",
                  "perhaps you should make sure no other process writes to the checkout while"
                      + " countersign runs",
                  conflict));
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not put the work tree in "
              + directory
              + " back to "
              + checkout.branch().orElse(checkout.commitId()),
          "perhaps you should check that the workspace is writable",
          e);
    }
  }

  /**
   * The usage problem for {@code paths} (sorted) that hold work nobody committed, which {@code
   * change} (what countersign was about to do, saying it changes them) would overwrite.
   */
  private UsageProblem uncommittedWorkInTheWay(List<String> paths, String change, Exception cause) {
    return new UsageProblem(
        "The checkout in "
            + directory
            + " has uncommitted changes to "
            + String.join(", ", paths)
            + " that "
            + change
            + " would overwrite",
        "perhaps you should commit or stash them in the step that makes them, or run countersign"
            + " before it; nothing of them was overwritten",
        cause);
  }

  /**
   * The paths where moving index and work tree from the tree {@code from} (null: none) to the tree
   * {@code to} would overwrite or delete work nobody committed, sorted; changes nothing (none: from
   * the empty tree, {@link #treeOrEmpty}). A path counts when it differs between the two trees and
   * the index or work tree holds something else than {@code from} has there (an edit, staged or
   * not, a staged deletion, an untracked file where {@code to} has one), unless that is already
   * what {@code to} has: jgit's checkout conflicts, the very test on which {@link
   * #checkOutChangedPaths} stops, with a file holding its index entry's text counted as unedited
   * ({@link TextExactTreeIterator}). As for git checkout, a file missing from the work tree holds
   * nothing to lose, and an untracked file git ignores is expendable.
   */
  private List<String> workInTheWay(ObjectId from, ObjectId to) throws IOException {
    DirCacheCheckout scan =
        new DirCacheCheckout(
            repository,
            treeOrEmpty(from),
            repository.readDirCache(),
            to,
            new TextExactTreeIterator(repository));
    scan.preScanTwoTrees();
    return scan.getConflicts().stream().sorted().toList();
  }

  /**
   * {@code tree}, or the empty tree (written to the object database) for none, when HEAD is on a
   * branch with no commit yet. jgit's checkout from no tree is a forced one (its one-tree scan puts
   * the target over a staged file and deletes one the target lacks); from the empty tree, what is
   * staged there is work nobody committed, as on any other branch.
   */
  private ObjectId treeOrEmpty(ObjectId tree) throws IOException {
    if (tree != null) {
      return tree;
    }
    try (ObjectInserter inserter = repository.newObjectInserter()) {
      ObjectId empty = inserter.insert(new TreeFormatter());
      inserter.flush();
      return empty;
    }
  }

  /**
   * Puts the paths that differ between the commits {@code from} (where HEAD is, or was) and {@code
   * to} in index and work tree as {@code to} has them, as {@code git checkout} does: not a hard
   * reset, which would also throw away what a step before countersign left uncommitted elsewhere
   * (an edited file, a staged new one). {@link #resetTo} and {@link #restore} both move this way.
   *
   * @param from null when HEAD has no commit
   * @param inTheWay the problem to throw when a path that differs was edited, staged or is an
   *     untracked file where {@code to} has one: given those paths, sorted, and jgit's exception as
   *     the cause; nothing has moved then
   */
  private void checkOutChangedPaths(
      ObjectId from,
      ObjectId to,
      BiFunction<List<String>, Exception, CountersignException> inTheWay)
      throws IOException {
    DirCache index = repository.lockDirCache();
    try (RevWalk walk = new RevWalk(repository)) {
      DirCacheCheckout move =
          new DirCacheCheckout(
              repository,
              treeOrEmpty(from == null ? null : walk.parseCommit(from).getTree()),
              index,
              walk.parseCommit(to).getTree(),
              new TextExactTreeIterator(repository));
      // Not forced: a forced checkout also reverts every other edited file. A path that differs
      // and holds work nobody committed stops it before anything moves.
      move.checkout();
    } catch (org.eclipse.jgit.errors.CheckoutConflictException edited) {
      throw inTheWay.apply(Arrays.stream(edited.getConflictingFiles()).sorted().toList(), edited);
    } finally {
      index.unlock();
    }
  }

  @Override
  public void recordPush(Checkout start, GitRemote remote, String branch, String pushedCommit) {
    String pushedBranch = Constants.R_HEADS + checkedBranch(branch);
    Checkout now = checkout();
    if (!now.commitId().equals(pushedCommit)) {
      throw new InternalProblem(
          "HEAD is at " + now.commitId() + ", not at " + pushedCommit + ", which was pushed");
    }
    try {
      ObjectId pushed = ObjectId.fromString(pushedCommit);
      if (start.branch().filter(pushedBranch::equals).isPresent()) {
        if (now.branch().filter(pushedBranch::equals).isEmpty()) {
          setRef(pushedBranch, pushed, "countersign: pushed to " + branch);
          RefUpdate.Result attached = repository.updateRef(Constants.HEAD).link(pushedBranch);
          failOnLock(attached, "put HEAD on " + pushedBranch);
        }
      } else if (start.branch().isPresent() && !start.branch().equals(now.branch())) {
        // HEAD left the branch it started on (a retry starts from the fresh tip, detached): the
        // commit an earlier attempt made on it was never pushed.
        setRef(
            start.branch().get(),
            ObjectId.fromString(start.commitId()),
            "countersign: back to where the run started");
      }
      setRef(FETCHED_PREFIX + checkedBranch(branch), pushed, "countersign: pushed");
      for (String tracking : trackingRefs(remote, pushedBranch)) {
        setRef(tracking, pushed, "countersign: pushed to " + branch);
      }
    } catch (IOException | URISyntaxException e) {
      throw new EnvironmentProblem(
          "Could not record the push of " + pushedCommit + " to " + branch + " in " + directory,
          "perhaps you should make sure no other git process is using the repository",
          e);
    }
  }

  /**
   * The remote-tracking refs that stand for {@code branch} of {@code remote}: of each configured
   * remote with its URL, the destination its fetch refspecs map the branch to.
   */
  private List<String> trackingRefs(GitRemote remote, String branch) throws URISyntaxException {
    List<String> refs = new ArrayList<>();
    for (RemoteConfig configured : RemoteConfig.getAllRemoteConfigs(repository.getConfig())) {
      boolean sameUrl =
          configured.getURIs().stream()
              .anyMatch(uri -> GitRemote.sanitize(uri.toString()).equals(remote.url()));
      if (!sameUrl) {
        continue;
      }
      for (RefSpec spec : configured.getFetchRefSpecs()) {
        if (spec.matchSource(branch) && spec.getDestination() != null) {
          refs.add(spec.expandFromSource(branch).getDestination());
        }
      }
    }
    return refs;
  }

  private void setRef(String name, ObjectId commit, String why) throws IOException {
    RefUpdate update = repository.updateRef(name);
    update.setNewObjectId(commit);
    update.setRefLogMessage(why, false);
    failOnLock(update.forceUpdate(), "move " + name);
  }

  private void failOnLock(RefUpdate.Result result, String what) {
    if (result == RefUpdate.Result.LOCK_FAILURE
        || result == RefUpdate.Result.IO_FAILURE
        || result == RefUpdate.Result.REJECTED) {
      throw new EnvironmentProblem(
          "Could not " + what + " (" + result + ") in " + directory,
          "perhaps you should make sure no other git process is using the repository");
    }
  }

  @Override
  public List<String> uncommittedChanges() {
    try {
      // The same view of the work tree as the checks before a commit or a move: a file holding
      // its committed text, with line ends converted as git add does, is not an edit.
      org.eclipse.jgit.api.Status status =
          git.status().setWorkingTreeIt(new TextExactTreeIterator(repository)).call();
      java.util.SortedSet<String> changed = new java.util.TreeSet<>();
      changed.addAll(status.getAdded());
      changed.addAll(status.getChanged());
      changed.addAll(status.getRemoved());
      changed.addAll(status.getMissing());
      changed.addAll(status.getModified());
      changed.addAll(status.getConflicting());
      return List.copyOf(changed);
    } catch (GitAPIException | org.eclipse.jgit.api.errors.JGitInternalException e) {
      throw new EnvironmentProblem(
          "Could not compare the work tree in " + directory + " with HEAD",
          "perhaps you should check that the workspace is readable",
          e);
    }
  }

  @Override
  public CommitContent commitContent(String commitId) {
    try (RevWalk walk = new RevWalk(repository);
        TreeWalk tw = new TreeWalk(repository)) {
      RevCommit commit = walk.parseCommit(resolve(commitId));
      if (commit.getParentCount() == 0) {
        throw new InternalProblem(
            "The commit " + commit.name() + " has no parent to describe it against");
      }
      RevCommit parent = walk.parseCommit(commit.getParent(0));
      tw.addTree(parent.getTree());
      tw.addTree(commit.getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      ChangeSet changes = ChangeSet.empty();
      ObjectReader reader = tw.getObjectReader();
      while (tw.next()) {
        FileMode after = tw.getFileMode(1);
        FileMode before = tw.getFileMode(0);
        if (after == FileMode.MISSING) {
          changes = changes.delete(tw.getPathString());
        } else if (after == FileMode.REGULAR_FILE
            && (before == FileMode.MISSING || isRegularFile(before))) {
          // An executable file countersign rewrote is staged as a plain one: the API's tree
          // entry (mode 100644) makes the same change.
          changes =
              changes.write(
                  tw.getPathString(),
                  reader.open(tw.getObjectId(1), Constants.OBJ_BLOB).getBytes());
        } else {
          // countersign only ever writes and deletes regular files; anything else is not ours.
          throw new InternalProblem(
              "The commit "
                  + commit.name()
                  + " changes "
                  + tw.getPathString()
                  + " to a "
                  + after
                  + ", which only regular files may be");
        }
      }
      return new CommitContent(
          commit.name(), parent.name(), parent.getTree().name(), commit.getFullMessage(), changes);
    } catch (IOException e) {
      throw readProblem(commitId, e);
    }
  }

  @Override
  public void adoptCommit(String commitId) {
    try (RevWalk walk = new RevWalk(repository)) {
      ObjectId head = repository.resolve(Constants.HEAD + "^{commit}");
      RevCommit adopted = walk.parseCommit(resolve(commitId));
      if (head == null || !walk.parseCommit(head).getTree().equals(adopted.getTree())) {
        throw new InternalProblem(
            "The commit " + commitId + " does not hold HEAD's tree, so HEAD cannot move to it");
      }
      RefUpdate update = repository.updateRef(Constants.HEAD);
      update.setNewObjectId(adopted);
      update.setExpectedOldObjectId(head);
      update.setRefLogMessage("countersign: the same commit, as the remote made it", false);
      failOnLock(update.forceUpdate(), "move HEAD to " + commitId);
    } catch (IOException e) {
      throw readProblem(commitId, e);
    }
  }

  @Override
  public void close() {
    repository.close();
  }

  private <C extends TransportCommand<C, ?>> void authenticate(C command, GitRemote remote) {
    if (remote.token().isEmpty()) {
      return;
    }
    String token = remote.token().get();
    command.setCredentialsProvider(new UsernamePasswordCredentialsProvider(TOKEN_USER, token));
    // Preemptive: sent with the first request, so it replaces an http.extraheader persisted by
    // actions/checkout v4/v5 (which jgit would otherwise send, never asking our provider).
    command.setTransportConfigCallback(
        transport -> {
          if (transport instanceof TransportHttp http) {
            http.setPreemptiveBasicAuthentication(TOKEN_USER, token);
          }
        });
  }

  /**
   * Words of jgit's transport errors that mean the remote refused our credentials: "not authorized"
   * / "Authentication is required" (401), "git-receive-pack not permitted" (403).
   */
  private static final List<String> AUTHENTICATION_FAILURES =
      List.of("not authorized", "authentication", "not permitted", "401", "403");

  private static RemoteProblem transportProblem(
      TransportException e, String step, GitRemote remote) {
    String message = GitRemote.sanitize(e.getMessage());
    String lower = String.valueOf(message).toLowerCase(Locale.ROOT);
    String hint;
    if (AUTHENTICATION_FAILURES.stream().anyMatch(lower::contains)) {
      hint =
          remote.token().isPresent()
              ? "perhaps you should give the token contents: write permission on this repository"
              : "perhaps you should pass a token (the token input, or --token)";
    } else {
      hint = "perhaps you should check the repository URL and network access, then retry";
    }
    return new RemoteProblem("Git transport failed while " + step + ": " + message, hint, e);
  }

  private ObjectId resolve(String revision) throws IOException {
    ObjectId id = repository.resolve(revision + "^{commit}");
    if (id == null) {
      throw new EnvironmentProblem(
          "Unknown revision " + revision + " in " + directory,
          "perhaps you should fetch it first (actions/checkout with a deeper fetch-depth)");
    }
    return id;
  }

  private EnvironmentProblem readProblem(String what, IOException e) {
    return new EnvironmentProblem(
        "Could not read " + what + " from the repository in " + directory,
        "perhaps you should run actions/checkout again; the clone may be incomplete",
        e);
  }

  private static boolean isRegularFile(FileMode mode) {
    return mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE;
  }

  private static String checkedBranch(String branch) {
    String b =
        branch.startsWith(Constants.R_HEADS)
            ? branch.substring(Constants.R_HEADS.length())
            : branch;
    if (!Repository.isValidRefName(Constants.R_HEADS + b)) {
      throw new UsageProblem(
          "Invalid branch name \"" + branch + "\"",
          "perhaps you should pass a branch name such as main");
    }
    return b;
  }

  private static String firstLine(String message) {
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }

  /**
   * The work tree as jgit's checkout and status see it, except that a file holding its index
   * entry's text is never modified. jgit (and git, for an entry it cannot trust by its stat data)
   * compares the file's content, its line ends converted as {@code git add} would, with the blob as
   * it is: a file committed with CRLF line ends under a {@code text} attribute in .gitattributes,
   * which any pull request can add, counted as edited right after checkout though nobody touched
   * it, and every run that signs it stopped as if a step had left work in it. Here the blob's line
   * ends are converted too.
   */
  private static final class TextExactTreeIterator extends FileTreeIterator {

    TextExactTreeIterator(Repository repository) {
      super(repository);
    }

    private TextExactTreeIterator(TextExactTreeIterator parent, File directory, FS fs) {
      super(parent, directory, fs, parent.fileModeStrategy);
    }

    /** Below a directory, the same; jgit still decides whether to enter it (ignored ones not). */
    @Override
    protected AbstractTreeIterator enterSubtree() {
      return new TextExactTreeIterator(this, getEntryFile(), fs);
    }

    @Override
    public boolean isModified(DirCacheEntry entry, boolean forceContentCheck, ObjectReader reader)
        throws IOException {
      return super.isModified(entry, forceContentCheck, reader) && !holdsItsText(entry, reader);
    }

    /**
     * The file is a regular one of the entry's mode and, with the line ends of both converted as
     * {@code git add} would (the attributes' and core.autocrlf's conversion, no filter command),
     * holds the entry's blob.
     */
    private boolean holdsItsText(DirCacheEntry entry, ObjectReader reader) throws IOException {
      FileMode mode = entry.getFileMode();
      if (reader == null
          || entry.getStage() != DirCacheEntry.STAGE_0
          || (mode != FileMode.REGULAR_FILE && mode != FileMode.EXECUTABLE_FILE)
          || getEntryRawMode() != mode.getBits()) {
        return false;
      }
      CoreConfig.EolStreamType lineEnds = getEolStreamType();
      ObjectLoader blob = reader.open(entry.getObjectId(), Constants.OBJ_BLOB);
      try (InputStream committed = EolStreamTypeUtil.wrapInputStream(blob.openStream(), lineEnds);
          InputStream present =
              EolStreamTypeUtil.wrapInputStream(
                  Files.newInputStream(getEntryFile().toPath(), LinkOption.NOFOLLOW_LINKS),
                  lineEnds)) {
        byte[] expected = new byte[8192];
        byte[] actual = new byte[8192];
        int n;
        while ((n = committed.readNBytes(expected, 0, expected.length)) > 0) {
          if (present.readNBytes(actual, 0, n) != n
              || !Arrays.equals(expected, 0, n, actual, 0, n)) {
            return false;
          }
        }
        return present.read() < 0;
      }
    }
  }

  /**
   * Makes a path a regular file holding {@code blob}. With {@code modified} set, the entry also
   * records the written file's length and time, so that git sees the work tree file as clean
   * without hashing it again; without, the entry is for a tree that has no work tree.
   */
  private static final class RegularFileEdit extends DirCacheEditor.PathEdit {
    private final ObjectId blob;
    private final long length;
    private final Instant modified;

    RegularFileEdit(String path, ObjectId blob, long length, Instant modified) {
      super(path);
      this.blob = blob;
      this.length = length;
      this.modified = modified;
    }

    @Override
    public void apply(DirCacheEntry entry) {
      entry.setFileMode(FileMode.REGULAR_FILE);
      entry.setObjectId(blob);
      if (modified != null) {
        entry.setLength(length);
        entry.setLastModified(modified);
      }
    }
  }
}
