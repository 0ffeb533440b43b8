/**
 * Git access for countersign: a {@link dev.countersign.git.GitWorkspace} port and its jgit adapter.
 *
 * <p>jgit types never leave this package. Push rejections are results ({@link
 * dev.countersign.git.PushOutcome}); transport and repository failures are thrown as {@code
 * RemoteProblem}/{@code EnvironmentProblem} with the cause kept and URL credentials removed from
 * messages.
 *
 * <p>Testing note: tests simulate a protected branch without any hook in production code: the test
 * fixture serves the bare origin through jgit's in-process {@code test://} transport with a {@code
 * ReceivePack} whose pre-receive hook declines the push as GitHub does ("pre-receive hook declined"
 * plus "error: GH006 ..." remote messages), which jgit reports as {@code REJECTED_OTHER_REASON}.
 */
package dev.countersign.git;
