/**
 * Git access for countersign: a {@link dev.countersign.git.GitWorkspace} port and its jgit adapter.
 *
 * <p>jgit types never leave this package. Push rejections are results ({@link
 * dev.countersign.git.PushOutcome}); transport and repository failures are thrown as {@code
 * RemoteProblem}/{@code EnvironmentProblem} with the cause kept and URL credentials removed from
 * messages.
 *
 * <p>Testing note: jgit's in-process receiver for {@code file://} remotes ignores hook scripts, so
 * a protected branch is simulated with a real {@code pre-receive} hook served by a forked {@code
 * git-receive-pack} ({@code JGitWorkspace.open(..., receivePack)}); it answers exactly like GitHub
 * ("ng refs/heads/main pre-receive hook declined" plus "remote: error: GH006 ..." lines), which
 * jgit reports as {@code REJECTED_OTHER_REASON}.
 */
package dev.countersign.git;
