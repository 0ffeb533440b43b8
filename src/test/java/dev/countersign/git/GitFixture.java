package dev.countersign.git;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.CommitBuilder;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.PersonIdent;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.lib.TreeFormatter;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.storage.file.FileRepositoryBuilder;
import org.eclipse.jgit.transport.ReceiveCommand;
import org.eclipse.jgit.transport.ReceivePack;
import org.eclipse.jgit.transport.TestProtocol;
import org.eclipse.jgit.transport.Transport;
import org.eclipse.jgit.transport.UploadPack;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Real repositories for tests: a bare "origin" that commits can be written to directly (as if
 * someone else pushed) and clones of it (full, shallow, detached) to use as workspaces.
 *
 * <p>Commits to origin are made with plumbing and fixed identities, so the fixture itself never
 * depends on the developer's git configuration either.
 */
public final class GitFixture {

  public static final PersonIdent OTHER =
      new PersonIdent(
          "Other Dev", "other@example.com", Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  /**
   * jgit's in-process {@code test://} transport, registered once: serves each protected origin
   * through a real {@link ReceivePack} whose pre-receive hook refuses pushes as GitHub does.
   */
  private static final TestProtocol<String> SERVED = registerServedProtocol();

  private final Path root;
  private final Path origin;
  private final List<Path> clones = new ArrayList<>();
  private String servedUrl;

  public GitFixture(Path root) throws Exception {
    this.root = root;
    this.origin = root.resolve("origin.git");
    Git.init().setBare(true).setInitialBranch("main").setDirectory(origin.toFile()).call().close();
  }

  public Path originDir() {
    return origin;
  }

  /** Origin's URL: its {@code file://} URL, or once a branch is protected the served one. */
  public String originUrl() {
    return servedUrl != null ? servedUrl : origin.toUri().toString();
  }

  public GitRemote remote() {
    return GitRemote.anonymous(originUrl());
  }

  /** Commits a symbolic link at {@code path} pointing to {@code target}. */
  public String commitSymlinkToOrigin(String branch, String path, String target)
      throws IOException {
    symlinks.put(path, target);
    try {
      return commitToOrigin(branch, Map.of(), Set.of(), "link " + path);
    } finally {
      symlinks.remove(path);
    }
  }

  private final Map<String, String> symlinks = new java.util.HashMap<>();

  /**
   * Commits a submodule entry (a gitlink, mode 160000) at {@code path} naming the commit {@code
   * commitId}, which origin need not hold.
   */
  public String commitGitlinkToOrigin(String branch, String path, String commitId)
      throws IOException {
    gitlinks.put(path, ObjectId.fromString(commitId));
    try {
      return commitToOrigin(branch, Map.of(), Set.of(), "submodule " + path);
    } finally {
      gitlinks.remove(path);
    }
  }

  private final Map<String, ObjectId> gitlinks = new java.util.HashMap<>();

  /**
   * Commits {@code text} at {@code directory/name/file}, where {@code directory} is a new top-level
   * directory, writing the trees directly: {@code name} may be one jgit's index refuses (it takes
   * {@code .git }, {@code .GIT.} and {@code git~1} for {@code .git}), as a pusher's own git could
   * write it.
   */
  public String commitUnderRawNameToOrigin(
      String branch, String directory, String name, String file, String text) throws IOException {
    try (Repository repo = openOrigin();
        ObjectInserter ins = repo.newObjectInserter();
        RevWalk walk = new RevWalk(repo)) {
      RevCommit parent = walk.parseCommit(repo.resolve(Constants.R_HEADS + branch));
      TreeFormatter leaf = new TreeFormatter();
      leaf.append(
          file,
          FileMode.REGULAR_FILE,
          ins.insert(Constants.OBJ_BLOB, text.getBytes(StandardCharsets.UTF_8)));
      TreeFormatter named = new TreeFormatter();
      named.append(name, FileMode.TREE, ins.insert(leaf));
      ObjectId namedId = ins.insert(named);
      // The root's entries in git's order (a tree sorts as if its name ended in "/").
      SortedMap<String, Object[]> root = new TreeMap<>();
      try (TreeWalk tw = new TreeWalk(repo)) {
        tw.addTree(parent.getTree());
        while (tw.next()) {
          root.put(
              tw.getNameString() + (tw.isSubtree() ? "/" : ""),
              new Object[] {tw.getNameString(), tw.getFileMode(0), tw.getObjectId(0)});
        }
      }
      if (root.put(directory + "/", new Object[] {directory, FileMode.TREE, namedId}) != null) {
        throw new IllegalArgumentException(directory + " exists on " + branch);
      }
      TreeFormatter tree = new TreeFormatter();
      root.values().forEach(e -> tree.append((String) e[0], (FileMode) e[1], (ObjectId) e[2]));
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(ins.insert(tree));
      cb.setParentId(parent);
      cb.setAuthor(OTHER);
      cb.setCommitter(OTHER);
      cb.setMessage("add " + directory + "/" + name + "/" + file);
      ObjectId id = ins.insert(cb);
      ins.flush();
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + branch);
      ru.setNewObjectId(id);
      ru.setExpectedOldObjectId(parent);
      RefUpdate.Result r = ru.update(walk);
      if (r != RefUpdate.Result.FAST_FORWARD) {
        throw new IllegalStateException("origin update " + r);
      }
      return id.name();
    }
  }

  /** Commits {@code text} at {@code path} as an executable file (mode 100755). */
  public String commitExecutableToOrigin(String branch, String path, String text)
      throws IOException {
    executables.add(path);
    try {
      return commitToOrigin(branch, Map.of(path, text), Set.of(), "executable " + path);
    } finally {
      executables.remove(path);
    }
  }

  private final Set<String> executables = new java.util.HashSet<>();

  /**
   * Creates branch {@code name} on origin at the tip of {@code from} (as a pull request's head
   * starts).
   */
  public String branchOnOrigin(String name, String from) throws IOException {
    try (Repository repo = openOrigin()) {
      ObjectId tip = repo.resolve(Constants.R_HEADS + from);
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + name);
      ru.setNewObjectId(tip);
      ru.setExpectedOldObjectId(ObjectId.zeroId());
      RefUpdate.Result r = ru.update();
      if (r != RefUpdate.Result.NEW) {
        throw new IllegalStateException("origin branch " + name + ": " + r);
      }
      return tip.name();
    }
  }

  /** Commits {@code writes} (path to UTF-8 text) and {@code deletes} on top of origin's branch. */
  public String commitToOrigin(
      String branch, Map<String, String> writes, Set<String> deletes, String message)
      throws IOException {
    return commitToOrigin(branch, writes, deletes, message, OTHER);
  }

  /**
   * Like {@link #commitToOrigin(String, Map, Set, String)}, authored and committed as {@code who}.
   */
  public String commitToOrigin(
      String branch,
      Map<String, String> writes,
      Set<String> deletes,
      String message,
      PersonIdent who)
      throws IOException {
    Map<String, byte[]> bytes = new TreeMap<>();
    writes.forEach((path, text) -> bytes.put(path, text.getBytes(StandardCharsets.UTF_8)));
    return commit(branch, bytes, deletes, message, who);
  }

  /** Commits {@code writes} (path to exact bytes) on top of origin's branch. */
  public String commitBytesToOrigin(String branch, Map<String, byte[]> writes, String message)
      throws IOException {
    return commit(branch, writes, Set.of(), message, OTHER);
  }

  private String commit(
      String branch,
      Map<String, byte[]> writes,
      Set<String> deletes,
      String message,
      PersonIdent who)
      throws IOException {
    try (Repository repo = openOrigin();
        ObjectInserter ins = repo.newObjectInserter();
        RevWalk walk = new RevWalk(repo)) {
      ObjectId parent = repo.resolve(Constants.R_HEADS + branch);
      SortedMap<String, ObjectId> entries = new TreeMap<>();
      Map<String, FileMode> modes = new java.util.HashMap<>();
      if (parent != null) {
        try (TreeWalk tw = new TreeWalk(repo)) {
          tw.addTree(walk.parseCommit(parent).getTree());
          tw.setRecursive(true);
          while (tw.next()) {
            entries.put(tw.getPathString(), tw.getObjectId(0));
            modes.put(tw.getPathString(), tw.getFileMode(0));
          }
        }
      }
      deletes.forEach(entries::remove);
      for (Map.Entry<String, byte[]> w : writes.entrySet()) {
        entries.put(w.getKey(), ins.insert(Constants.OBJ_BLOB, w.getValue()));
        modes.remove(w.getKey());
        if (executables.contains(w.getKey())) {
          modes.put(w.getKey(), FileMode.EXECUTABLE_FILE);
        }
      }
      for (Map.Entry<String, String> link : symlinks.entrySet()) {
        entries.put(
            link.getKey(),
            ins.insert(Constants.OBJ_BLOB, link.getValue().getBytes(StandardCharsets.UTF_8)));
        modes.put(link.getKey(), FileMode.SYMLINK);
      }
      gitlinks.forEach(
          (path, id) -> {
            entries.put(path, id);
            modes.put(path, FileMode.GITLINK);
          });
      DirCache dc = DirCache.newInCore();
      DirCacheBuilder b = dc.builder();
      entries.forEach(
          (path, id) -> {
            DirCacheEntry e = new DirCacheEntry(path);
            e.setFileMode(modes.getOrDefault(path, FileMode.REGULAR_FILE));
            e.setObjectId(id);
            b.add(e);
          });
      b.finish();
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(dc.writeTree(ins));
      if (parent != null) {
        cb.setParentId(parent);
      }
      cb.setAuthor(who);
      cb.setCommitter(who);
      cb.setMessage(message);
      ObjectId id = ins.insert(cb);
      ins.flush();
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + branch);
      ru.setNewObjectId(id);
      ru.setExpectedOldObjectId(parent == null ? ObjectId.zeroId() : parent);
      RefUpdate.Result r = ru.update(walk);
      if (r != RefUpdate.Result.NEW && r != RefUpdate.Result.FAST_FORWARD) {
        throw new IllegalStateException("origin update " + r);
      }
      return id.name();
    }
  }

  /**
   * Creates branch {@code name} on origin holding a merge as GitHub builds {@code
   * refs/pull/N/merge}: one commit with the tips of {@code base} and {@code head} as parents, in
   * that order, and {@code head}'s tree (right when {@code head} starts at {@code base}'s tip).
   *
   * @return the merge commit's id
   */
  public String mergeOnOrigin(String name, String base, String head) throws IOException {
    try (Repository repo = openOrigin();
        ObjectInserter ins = repo.newObjectInserter();
        RevWalk walk = new RevWalk(repo)) {
      RevCommit baseTip = walk.parseCommit(repo.resolve(Constants.R_HEADS + base));
      RevCommit headTip = walk.parseCommit(repo.resolve(Constants.R_HEADS + head));
      CommitBuilder cb = new CommitBuilder();
      cb.setTreeId(headTip.getTree());
      cb.setParentIds(baseTip, headTip);
      cb.setAuthor(OTHER);
      cb.setCommitter(OTHER);
      cb.setMessage("Merge " + headTip.name() + " into " + baseTip.name());
      ObjectId id = ins.insert(cb);
      ins.flush();
      RefUpdate ru = repo.updateRef(Constants.R_HEADS + name);
      ru.setNewObjectId(id);
      ru.setExpectedOldObjectId(ObjectId.zeroId());
      RefUpdate.Result r = ru.update(walk);
      if (r != RefUpdate.Result.NEW) {
        throw new IllegalStateException("origin branch " + name + ": " + r);
      }
      return id.name();
    }
  }

  /** Clones origin's {@code main} into {@code name}; depth 0 means full history. */
  public Path clone(String name, int depth, boolean detached) throws Exception {
    return clone(name, depth, detached, false);
  }

  /**
   * As {@link #clone(String, int, boolean)}, optionally without checking files out (HEAD is set,
   * the work tree is empty): for runs that read only commits, over trees too large to write.
   */
  public Path clone(String name, int depth, boolean detached, boolean noCheckout) throws Exception {
    Path dir = root.resolve(name);
    var clone =
        Git.cloneRepository()
            .setURI(originUrl())
            .setDirectory(dir.toFile())
            .setBranch("main")
            .setNoCheckout(noCheckout);
    if (depth > 0) {
      clone.setDepth(depth);
    }
    clones.add(dir);
    try (Git git = clone.call()) {
      awaitBackgroundGc(dir);
      if (detached) {
        ObjectId head = git.getRepository().resolve(Constants.HEAD);
        RefUpdate ru = git.getRepository().updateRef(Constants.HEAD, true);
        ru.setNewObjectId(head);
        ru.forceUpdate();
      }
    }
    return dir;
  }

  /**
   * Waits for the {@code gc --auto} that jgit's clone started in a background thread (it takes
   * {@code .git/gc.log.lock} before the clone returns and drops it when done), so a test starts
   * from a quiet clone: a collection still running would repack under the code under test, or leave
   * the lock that a test asserts countersign never takes.
   */
  private static void awaitBackgroundGc(Path workTree) throws InterruptedException {
    Path lock = workTree.resolve(".git/gc.log.lock");
    for (int i = 0; i < 600 && Files.exists(lock); i++) {
      Thread.sleep(50);
    }
    if (Files.exists(lock)) {
      throw new IllegalStateException("jgit's background gc of " + workTree + " did not end");
    }
  }

  /**
   * Clones origin's {@code branch} into {@code name} and leaves HEAD detached at its tip, as
   * actions/checkout leaves a pull request's merge result; depth 0 means full history.
   */
  public Path cloneBranch(String name, String branch, int depth) throws Exception {
    Path dir = root.resolve(name);
    var clone =
        Git.cloneRepository().setURI(originUrl()).setDirectory(dir.toFile()).setBranch(branch);
    if (depth > 0) {
      clone.setDepth(depth);
    }
    clones.add(dir);
    try (Git git = clone.call()) {
      awaitBackgroundGc(dir);
      ObjectId head = git.getRepository().resolve(Constants.HEAD);
      RefUpdate ru = git.getRepository().updateRef(Constants.HEAD, true);
      ru.setNewObjectId(head);
      ru.forceUpdate();
    }
    return dir;
  }

  /**
   * Checks out origin's {@code branch} into {@code name} as actions/checkout does, with the git
   * program rather than jgit: a fresh repository, one commit fetched, then a forced checkout of it
   * (detached). So the {@code .gitattributes} of the checked-out tree apply as they do on a runner
   * ({@code eol}, {@code ident}, {@code working-tree-encoding}); no user or system configuration is
   * read.
   */
  public Path checkoutWithGit(String name, String branch) throws Exception {
    Path dir = root.resolve(name);
    clones.add(dir);
    git(root, "init", "--quiet", dir.toString());
    git(dir, "remote", "add", "origin", originUrl());
    git(dir, "fetch", "--quiet", "--depth=1", "origin", branch);
    git(dir, "checkout", "--quiet", "--force", "--detach", "FETCH_HEAD");
    return dir;
  }

  /**
   * Runs the git program in {@code dir} with no user or system configuration, as a workflow step
   * before countersign would; returns what it printed.
   */
  public static String git(Path dir, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of("git", "-C", dir.toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
    builder.environment().put("GIT_CONFIG_NOSYSTEM", "1");
    builder.environment().put("GIT_CONFIG_GLOBAL", "/dev/null");
    Process process = builder.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (process.waitFor() != 0) {
      throw new IllegalStateException("git " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  /** The files on origin's branch as path to UTF-8 text. */
  public SortedMap<String, String> originFiles(String branch) throws IOException {
    SortedMap<String, String> files = new TreeMap<>();
    try (Repository repo = openOrigin();
        RevWalk walk = new RevWalk(repo);
        TreeWalk tw = new TreeWalk(repo)) {
      tw.addTree(walk.parseCommit(repo.resolve(Constants.R_HEADS + branch)).getTree());
      tw.setRecursive(true);
      while (tw.next()) {
        files.put(
            tw.getPathString(),
            new String(repo.open(tw.getObjectId(0)).getBytes(), StandardCharsets.UTF_8));
      }
    }
    return files;
  }

  /**
   * What the tip of origin's {@code branch} changes against its first parent: path to {@code A},
   * {@code M} or {@code D}, followed by the new mode for the first two ({@code A 100644}).
   */
  public SortedMap<String, String> originChanges(String branch) throws IOException {
    SortedMap<String, String> changes = new TreeMap<>();
    try (Repository repo = openOrigin();
        RevWalk walk = new RevWalk(repo);
        TreeWalk tw = new TreeWalk(repo)) {
      RevCommit tip = walk.parseCommit(repo.resolve(Constants.R_HEADS + branch));
      tw.addTree(walk.parseCommit(tip.getParent(0)).getTree());
      tw.addTree(tip.getTree());
      tw.setRecursive(true);
      tw.setFilter(org.eclipse.jgit.treewalk.filter.TreeFilter.ANY_DIFF);
      while (tw.next()) {
        FileMode before = tw.getFileMode(0);
        FileMode after = tw.getFileMode(1);
        changes.put(
            tw.getPathString(),
            after == FileMode.MISSING
                ? "D"
                : (before == FileMode.MISSING ? "A " : "M ") + after.toString());
      }
    }
    return changes;
  }

  public String originHead(String branch) throws IOException {
    try (Repository repo = openOrigin()) {
      ObjectId id = repo.resolve(Constants.R_HEADS + branch);
      return id == null ? null : id.name();
    }
  }

  public RevCommit originCommit(String branch) throws IOException {
    try (Repository repo = openOrigin();
        RevWalk walk = new RevWalk(repo)) {
      RevCommit c = walk.parseCommit(repo.resolve(Constants.R_HEADS + branch));
      walk.parseBody(c);
      return c;
    }
  }

  /** Number of commits reachable from origin's branch. */
  public int originCommitCount(String branch) throws IOException {
    try (Repository repo = openOrigin();
        RevWalk walk = new RevWalk(repo)) {
      walk.markStart(walk.parseCommit(repo.resolve(Constants.R_HEADS + branch)));
      int n = 0;
      for (RevCommit ignored : walk) {
        n++;
      }
      return n;
    }
  }

  /**
   * Makes origin refuse every push to {@code branch} the way GitHub refuses a protected branch: a
   * pre-receive hook on jgit's own {@link ReceivePack} declines the whole push and sends GitHub's
   * words as remote messages. From here on origin is served through jgit's in-process {@code
   * test://} transport: {@link #originUrl()}, {@link #remote()}, later clones and the {@code
   * origin} remote of the clones made so far all point there.
   */
  public void protectBranch(String branch) throws IOException {
    String protectedRef = Constants.R_HEADS + branch;
    Repository served = openOrigin();
    servedUrl = SERVED.register(protectedRef, served).toString();
    for (Path clone : clones) {
      try (Repository repo = open(clone)) {
        repo.getConfig().setString("remote", "origin", "url", servedUrl);
        repo.getConfig().save();
      }
    }
  }

  private static TestProtocol<String> registerServedProtocol() {
    TestProtocol<String> protocol =
        new TestProtocol<>(
            (protectedRef, repo) -> new UploadPack(repo),
            (protectedRef, repo) -> {
              ReceivePack receive = new ReceivePack(repo);
              receive.setPreReceiveHook(
                  (rp, commands) -> {
                    if (commands.stream().noneMatch(c -> c.getRefName().equals(protectedRef))) {
                      return;
                    }
                    // As git-receive-pack when the hook exits non-zero: every command declined.
                    rp.sendMessage(
                        "error: GH006: Protected branch update failed for " + protectedRef + ".");
                    rp.sendMessage("error: Changes must be made through a pull request.");
                    for (ReceiveCommand command : commands) {
                      command.setResult(
                          ReceiveCommand.Result.REJECTED_OTHER_REASON, "pre-receive hook declined");
                    }
                  });
              return receive;
            });
    Transport.register(protocol);
    return protocol;
  }

  public Repository openOrigin() throws IOException {
    return new FileRepositoryBuilder().setGitDir(origin.toFile()).setMustExist(true).build();
  }

  /** The commit a clone's HEAD points at (full hex id). */
  public static String headOf(Path workTree) throws IOException {
    try (Repository repo = open(workTree)) {
      return repo.resolve(Constants.HEAD).name();
    }
  }

  /** Opens a clone's repository for assertions. */
  public static Repository open(Path workTree) throws IOException {
    return new FileRepositoryBuilder().setWorkTree(workTree.toFile()).setMustExist(true).build();
  }
}
