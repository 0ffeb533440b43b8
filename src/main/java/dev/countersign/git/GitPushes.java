package dev.countersign.git;

import java.util.Optional;

/**
 * How HEAD reaches a branch of a remote: the part of a {@link GitWorkspace} that a publisher may
 * make differently (through GitHub's API, say) while everything else stays the local workspace's;
 * see {@link GitWorkspace#pushingThrough}.
 */
public interface GitPushes {

  /**
   * Pushes {@code HEAD} to {@code refs/heads/<branch>} on the remote, fast-forward only. Rejections
   * come back as results; transport and authentication failures are thrown as {@link
   * dev.countersign.support.problems.RemoteProblem}.
   */
  PushOutcome push(GitRemote remote, String branch);

  /**
   * Force-pushes {@code HEAD} to {@code refs/heads/<branch>} only if the remote branch is still at
   * {@code expectedRemoteId} (empty: only if it does not exist). For branches countersign owns,
   * such as promotion branches. A moved branch comes back as {@link PushOutcome.Rejected}.
   */
  PushOutcome pushWithLease(GitRemote remote, String branch, Optional<String> expectedRemoteId);
}
