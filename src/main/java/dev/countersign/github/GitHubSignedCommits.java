package dev.countersign.github;

import dev.countersign.git.ChangeSet;
import dev.countersign.git.CommitContent;
import dev.countersign.git.CommitIds;
import dev.countersign.git.GitPushes;
import dev.countersign.git.GitRemote;
import dev.countersign.git.GitWorkspace;
import dev.countersign.git.PushOutcome;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.kohsuke.github.GHException;
import org.kohsuke.github.GHFileNotFoundException;
import org.kohsuke.github.GHRef;
import org.kohsuke.github.GHRepository;
import org.kohsuke.github.GHTreeBuilder;
import org.kohsuke.github.HttpException;

/**
 * Pushes for a {@link GitWorkspace} ({@link #over}) that make the commit through GitHub's Git Data
 * API instead of sending the local one ({@code sign_commits}), so that GitHub signs it and marks it
 * <i>Verified</i>, as branches that require signed commits demand. Everything else is the local
 * workspace's.
 *
 * <p>A push of HEAD becomes: one blob per written file ({@code POST /git/blobs}), a tree on the
 * parent's tree with the writes and the deletions ({@code sha: null}), in chunks of {@value
 * #TREE_CHUNK} entries ({@code POST /git/trees}), a commit with HEAD's message (trailers included)
 * and parent and no author or committer, which is what lets GitHub sign it ({@code POST
 * /git/commits}), then the ref update:
 *
 * <ul>
 *   <li>{@link #push}: fast-forward only ({@code force: false}); GitHub's 422 "Update is not a fast
 *       forward" is {@link PushOutcome.Rejected}, so callers fetch, recompute and retry as they do
 *       for a rejected git push; a protected branch's refusal is {@link PushOutcome.Refused};
 *   <li>{@link #pushWithLease}: for countersign's own branch, forced, after checking the branch is
 *       still where the caller saw it (the REST API has no compare-and-swap, so the check and the
 *       update are two requests).
 * </ul>
 *
 * <p>Afterwards the new commit is fetched and HEAD moved to it (same tree), so the checkout is what
 * the remote has. Trade-offs: GitHub shows the token's identity (the App, or {@code
 * github-actions[bot]}) as author and committer; files go through the API (GitHub's blob limit is
 * 100 MB; symbolic links and executable bits are not made).
 */
public final class GitHubSignedCommits implements GitPushes {

  static final int TREE_CHUNK = 100;

  private final GitWorkspace local;
  private final GitHubApi api;

  private GitHubSignedCommits(GitWorkspace local, GitHubApi api) {
    this.local = local;
    this.api = api;
  }

  /** {@code local} with its pushes made through GitHub's API by {@code api}. */
  public static GitWorkspace over(GitWorkspace local, GitHubApi api) {
    return GitWorkspace.pushingThrough(local, new GitHubSignedCommits(local, api));
  }

  @Override
  public PushOutcome push(GitRemote remote, String branch) {
    CommitContent content = local.commitContent(local.headCommitId());
    String operation = operation(content, branch);
    String made = create(content, operation);
    return updatingRef(
        operation,
        branch,
        "REJECTED_NONFASTFORWARD",
        repository -> {
          moveRef(repository, ref(repository, branch), branch, made, false);
          return adopt(remote, branch, made);
        });
  }

  @Override
  public PushOutcome pushWithLease(
      GitRemote remote, String branch, Optional<String> expectedRemoteId) {
    CommitContent content = local.commitContent(local.headCommitId());
    String operation = operation(content, branch);
    return updatingRef(
        operation,
        branch,
        "REJECTED_REMOTE_CHANGED",
        repository -> {
          Optional<GHRef> ref = ref(repository, branch);
          Optional<String> current = ref.map(r -> r.getObject().getSha());
          if (!current.equals(expectedRemoteId)) {
            return new PushOutcome.Rejected(
                branch,
                "REJECTED_REMOTE_CHANGED",
                "it is at " + current.map(CommitIds::abbreviate).orElse("nothing (deleted)"));
          }
          String made = create(content, operation);
          moveRef(repository, ref, branch, made, true);
          return adopt(remote, branch, made);
        });
  }

  private static String operation(CommitContent content, String branch) {
    return "committing "
        + CommitIds.abbreviate(content.id())
        + " to "
        + branch
        + " through GitHub's API";
  }

  /** A ref update against the repository; GitHub's answers to it are mapped by {@link #refusal}. */
  private interface RefUpdate {
    PushOutcome apply(GHRepository repository) throws IOException;
  }

  /**
   * Runs {@code update}: a lost race or the branch's rules become outcomes ({@link #refusal}), any
   * other failure the API's problem for {@code operation}.
   */
  private PushOutcome updatingRef(
      String operation, String branch, String rejectedStatus, RefUpdate update) {
    try {
      return update.apply(api.repository(operation));
    } catch (HttpException e) {
      return refusal(e, branch, rejectedStatus).orElseThrow(() -> api.translate(e, operation));
    } catch (IOException | GHException e) {
      throw api.translate(e, operation);
    }
  }

  /**
   * Creates {@code branch} at {@code made}, or moves it there ({@code force}: not only forward).
   */
  private static void moveRef(
      GHRepository repository, Optional<GHRef> ref, String branch, String made, boolean force)
      throws IOException {
    if (ref.isEmpty()) {
      repository.createRef("refs/heads/" + branch, made);
    } else {
      ref.get().updateTo(made, force);
    }
  }

  /** Blobs, trees and the commit; returns the new commit's id. */
  private String create(CommitContent content, String operation) {
    return api.call(
        operation,
        () -> {
          GHRepository repository = api.repository(operation);
          List<Map.Entry<String, Optional<String>>> entries = new ArrayList<>();
          ChangeSet changes = content.changes();
          for (Map.Entry<String, byte[]> write : changes.writes().entrySet()) {
            String blob = repository.createBlob().binaryContent(write.getValue()).create().getSha();
            entries.add(Map.entry(write.getKey(), Optional.of(blob)));
          }
          changes.deletes().forEach(path -> entries.add(Map.entry(path, Optional.empty())));
          String tree = content.parentTree();
          for (int from = 0; from < entries.size(); from += TREE_CHUNK) {
            GHTreeBuilder builder = repository.createTree().baseTree(tree);
            for (Map.Entry<String, Optional<String>> entry :
                entries.subList(from, Math.min(entries.size(), from + TREE_CHUNK))) {
              if (entry.getValue().isPresent()) {
                builder.shaEntry(entry.getKey(), entry.getValue().get(), false);
              } else {
                builder.delete(entry.getKey());
              }
            }
            tree = builder.create().getSha();
          }
          // No author() or committer(): GitHub signs only commits it attributes to the token
          // itself.
          return repository
              .createCommit()
              .message(content.message())
              .tree(tree)
              .parent(content.parent())
              .create()
              .getSHA1();
        });
  }

  private static Optional<GHRef> ref(GHRepository repository, String branch) throws IOException {
    try {
      return Optional.of(repository.getRef("heads/" + branch));
    } catch (GHFileNotFoundException absent) {
      return Optional.empty();
    }
  }

  /**
   * GitHub's answers to a ref update that are results, not failures: a lost race ({@code rejected},
   * worth a fetch and retry) or the branch's rules ({@link PushOutcome.Refused}).
   */
  private static Optional<PushOutcome> refusal(
      HttpException e, String branch, String rejectedStatus) {
    String message = GitHubApi.detail(e);
    String lower = message.toLowerCase(Locale.ROOT);
    if (e.getResponseCode() == 422
        && (lower.contains("fast forward") || lower.contains("already exists"))) {
      return Optional.of(new PushOutcome.Rejected(branch, rejectedStatus, message));
    }
    if (e.getResponseCode() == 409 || e.getResponseCode() == 422) {
      return Optional.of(
          new PushOutcome.Refused(
              branch,
              "GitHub refused the update of refs/heads/"
                  + branch
                  + " (HTTP "
                  + e.getResponseCode()
                  + ": "
                  + message
                  + ")",
              ""));
    }
    return Optional.empty();
  }

  /**
   * Fetches the commit GitHub made and moves HEAD to it, so the checkout matches the remote. When
   * another push landed on the branch in between, the fetch brings GitHub's commit as the tip's
   * ancestor (not one commit deep, in a shallow clone: HEAD then keeps the local commit of the same
   * change).
   */
  private PushOutcome adopt(GitRemote remote, String branch, String made) {
    String tip = local.fetch(remote, branch);
    if (tip.equals(made) || local.findCommit(made).isPresent()) {
      local.adoptCommit(made);
    }
    return new PushOutcome.Pushed(branch, made, false);
  }
}
