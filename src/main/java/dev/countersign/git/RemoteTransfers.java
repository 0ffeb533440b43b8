package dev.countersign.git;

import dev.countersign.git.GitWorkspace.Checkout;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.eclipse.jgit.api.FetchCommand;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.api.PushCommand;
import org.eclipse.jgit.api.TransportCommand;
import org.eclipse.jgit.api.errors.GitAPIException;
import org.eclipse.jgit.api.errors.InvalidRemoteException;
import org.eclipse.jgit.api.errors.TransportException;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.FetchResult;
import org.eclipse.jgit.transport.PushResult;
import org.eclipse.jgit.transport.RefLeaseSpec;
import org.eclipse.jgit.transport.RefSpec;
import org.eclipse.jgit.transport.RemoteConfig;
import org.eclipse.jgit.transport.RemoteRefUpdate;
import org.eclipse.jgit.transport.TagOpt;
import org.eclipse.jgit.transport.TransportHttp;
import org.eclipse.jgit.transport.UsernamePasswordCredentialsProvider;

/**
 * Fetches from and pushes to a remote named by its URL, with the token as preemptive basic
 * authentication, and records a push in this clone's refs. Push rejections are outcomes; every
 * other failure is a problem with the URL's credentials removed.
 *
 * <p>A method named as one of {@link GitWorkspace} is that method of {@link JGitWorkspace}, whose
 * contract the interface states.
 */
final class RemoteTransfers {

  /** The user name GitHub expects with a token in basic authentication. */
  static final String TOKEN_USER = "x-access-token";

  private static final String FETCHED_PREFIX = "refs/countersign/fetched/";

  private static final int TIMEOUT_SECONDS = 120;

  private final WorkTreeRepository workTree;
  private final WorkTreeCheckout checkouts;
  private final Repository repository;
  private final Git git;

  RemoteTransfers(WorkTreeRepository workTree, WorkTreeCheckout checkouts) {
    this.workTree = workTree;
    this.checkouts = checkouts;
    this.repository = workTree.repository();
    this.git = workTree.git();
  }

  PushOutcome push(GitRemote remote, String branch) {
    return doPush(remote, branch, Optional.empty());
  }

  PushOutcome pushWithLease(GitRemote remote, String branch, Optional<String> expectedRemoteId) {
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

  String fetch(GitRemote remote, String branch) {
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
      throw workTree.readProblem(local, e);
    }
  }

  Optional<String> fetchIfExists(GitRemote remote, String branch) {
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

  void recordPush(Checkout start, GitRemote remote, String branch, String pushedCommit) {
    String pushedBranch = Constants.R_HEADS + checkedBranch(branch);
    Checkout now = checkouts.checkout();
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
          workTree.failOnLock(attached, "put HEAD on " + pushedBranch);
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
          "Could not record the push of "
              + pushedCommit
              + " to "
              + branch
              + " in "
              + workTree.directory(),
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
    workTree.failOnLock(update.forceUpdate(), "move " + name);
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
}
