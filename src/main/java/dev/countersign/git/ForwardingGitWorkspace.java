package dev.countersign.git;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;

/**
 * A {@link GitWorkspace} that forwards every call to another one; a subclass overrides only what it
 * changes (as {@code GitHubSignedCommits} does for the pushes). The one place that spells out the
 * forwarding, so a decorator does not repeat the whole port.
 */
public abstract class ForwardingGitWorkspace implements GitWorkspace {

  /** The workspace every call not overridden goes to. */
  protected final GitWorkspace local;

  protected ForwardingGitWorkspace(GitWorkspace local) {
    this.local = Objects.requireNonNull(local, "local");
  }

  @Override
  public PushOutcome push(GitRemote remote, String branch) {
    return local.push(remote, branch);
  }

  @Override
  public PushOutcome pushWithLease(
      GitRemote remote, String branch, Optional<String> expectedRemoteId) {
    return local.pushWithLease(remote, branch, expectedRemoteId);
  }

  @Override
  public Path directory() {
    return local.directory();
  }

  @Override
  public String headCommitId() {
    return local.headCommitId();
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, String directory) {
    return local.readFiles(commitId, directory);
  }

  @Override
  public SortedMap<String, byte[]> readFiles(String commitId, Collection<String> paths) {
    return local.readFiles(commitId, paths);
  }

  @Override
  public List<TreeEntry> entries(String commitId, String directory) {
    return local.entries(commitId, directory);
  }

  @Override
  public CommitFacts commitFacts(String revision) {
    return local.commitFacts(revision);
  }

  @Override
  public Optional<String> findCommit(String revision) {
    return local.findCommit(revision);
  }

  @Override
  public Map<String, List<FileVersion>> history(
      String commitId, Collection<String> paths, int maxCommits) {
    return local.history(commitId, paths, maxCommits);
  }

  @Override
  public Optional<byte[]> readFile(String commitId, String path) {
    return local.readFile(commitId, path);
  }

  @Override
  public String lastCommitMessage(String revision) {
    return local.lastCommitMessage(revision);
  }

  @Override
  public void apply(ChangeSet changes) {
    local.apply(changes);
  }

  @Override
  public String commit(CommitRequest request) {
    return local.commit(request);
  }

  @Override
  public String fetch(GitRemote remote, String branch) {
    return local.fetch(remote, branch);
  }

  @Override
  public Optional<String> fetchIfExists(GitRemote remote, String branch) {
    return local.fetchIfExists(remote, branch);
  }

  @Override
  public boolean sameTree(String commitA, String commitB) {
    return local.sameTree(commitA, commitB);
  }

  @Override
  public void resetTo(String commitId) {
    local.resetTo(commitId);
  }

  @Override
  public CommitContent commitContent(String commitId) {
    return local.commitContent(commitId);
  }

  @Override
  public void adoptCommit(String commitId) {
    local.adoptCommit(commitId);
  }
}
