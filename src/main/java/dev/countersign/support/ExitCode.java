package dev.countersign.support;

/**
 * The one table of process exit codes, shared by the CLI and the Action. A merge gate can tell "no"
 * (1) from "could not decide" (2-6).
 */
public enum ExitCode {
  /** Done, all verified, or nothing to do. */
  OK(0),
  /** A verification or governance check said no. */
  REJECTED(1),
  /** Bad flags, options or configuration. */
  USAGE(2),
  /** Cannot run here as configured: no OIDC token, not a git repository, missing token. */
  ENVIRONMENT(3),
  /** A remote service failed (Fulcio, Rekor, OIDC, git remote, GitHub); retrying may help. */
  REMOTE(4),
  /** A bug in countersign. */
  INTERNAL(5),
  /** An input file is not a usable Kubernetes manifest (malformed YAML, too large, symlink...). */
  INVALID_INPUT(6);

  private final int code;

  ExitCode(int code) {
    this.code = code;
  }

  public int code() {
    return code;
  }
}
