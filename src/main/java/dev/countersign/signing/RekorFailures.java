package dev.countersign.signing;

import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.time.Duration;

/**
 * The problems a Rekor upload reports, the same for keyless and keyed signing but for the step they
 * name and the options their hints point at. Anything quoted from Rekor goes through {@link
 * KeylessFailures#redact}.
 *
 * @param step the end of every message, e.g. {@code " while signing keylessly"}
 * @param logNamedBy where the user named the log, for hints, e.g. {@code "--signing-config"}
 * @param trustHint the hint when the answer does not verify: which trust material to check
 */
record RekorFailures(String step, String logNamedBy, String trustHint) {

  /** Keyless signing: the log and its trust material come from the signing config and root. */
  static final RekorFailures KEYLESS =
      new RekorFailures(
          KeylessFailures.STEP,
          "--signing-config",
          ", perhaps you should check that --trusted-root belongs to the Rekor named in"
              + " --signing-config");

  /** Keyed signing with {@code --tlog-upload}: the log is {@code --rekor-url}. */
  static final RekorFailures KEYED =
      new RekorFailures(
          " while signing with a key",
          "--rekor-url",
          ", perhaps you should check that --trusted-root (default: the public-good root) names"
              + " the Rekor at --rekor-url");

  /** Rekor answered with an error status, on the last of {@code tries} tries. */
  CountersignException status(SigstoreHttp.Response response, int tries) {
    return new RemoteProblem(
        "Rekor did not accept the log entry"
            + step
            + ": HTTP "
            + response.status()
            + " "
            + KeylessFailures.redact(response.bodyExcerpt())
            + afterTries(tries),
        response.status() == 429
            ? ", perhaps you should retry later, or pass a lower --parallel"
            : KeylessFailures.RETRY_HINT);
  }

  /** Rekor throttled the upload and asked for a longer wait than countersign gives. */
  CountersignException asksToWait(
      SigstoreHttp.Response response, Duration asked, Duration longest) {
    return new RemoteProblem(
        "Rekor did not accept the log entry"
            + step
            + ": HTTP "
            + response.status()
            + ", asking to wait "
            + asked.toSeconds()
            + " s, longer than the "
            + longest.toSeconds()
            + " s countersign waits",
        ", perhaps you should retry later, or pass a lower --parallel");
  }

  /** Rekor could not be reached, on the last of {@code tries} tries. */
  CountersignException unreachable(IOException failure, int tries) {
    if (KeylessFailures.isTls(failure)) {
      return KeylessFailures.tlsFailure("Rekor", failure, step, logNamedBy);
    }
    return new RemoteProblem(
        "Rekor did not accept the log entry"
            + step
            + ": "
            + KeylessFailures.describe(failure)
            + afterTries(tries),
        KeylessFailures.RETRY_HINT,
        failure);
  }

  /** Rekor's answer does not verify (SET, inclusion proof, checkpoint, time) or is unreadable. */
  CountersignException untrusted(String what, Exception failure) {
    return new RemoteProblem(
        "Rekor returned a log entry that does not verify ("
            + KeylessFailures.redact(what)
            + ")"
            + step,
        trustHint,
        failure);
  }

  /** Rekor logged something else than the entry it was sent. */
  CountersignException notTheUpload() {
    return new RemoteProblem(
        "Rekor's entry does not carry the uploaded signature" + step,
        ", perhaps you should check that " + logNamedBy + " names the intended Rekor");
  }

  private static String afterTries(int tries) {
    return tries > 1 ? " (" + tries + " tries)" : "";
  }
}
