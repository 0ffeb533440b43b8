package dev.countersign.signing;

import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import java.io.IOException;
import java.security.cert.CertificateException;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * The problems keyless signing reports, naming the service (OIDC, Fulcio) and its status, with the
 * hint that fits; Rekor's are {@link RekorFailures}'. Anything quoted from a service goes through
 * {@link #redact}.
 */
final class KeylessFailures {

  static final String STEP = " while signing keylessly";
  static final String RETRY_HINT = ", perhaps you should retry in a few minutes";
  // A JWT (header.payload.signature, base64url). Removed from anything we quote from a service so
  // that a token echoed back in an error can never reach a log.
  private static final Pattern JWT =
      Pattern.compile("eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

  private KeylessFailures() {}

  /** Fulcio answered with an error status. 400/401/403: the token was refused. */
  static CountersignException fulcioStatus(
      SigstoreHttp.Response response, IdentityTokenSource.Kind tokenKind) {
    String description = "HTTP " + response.status() + " " + redact(response.bodyExcerpt());
    int status = response.status();
    if (status == 400 || status == 401 || status == 403) {
      return new EnvironmentProblem(
          "Fulcio rejected the OIDC identity token from "
              + tokenKind.description
              + " ("
              + description
              + ")"
              + STEP,
          tokenKind == IdentityTokenSource.Kind.GITHUB_ACTIONS
              ? ", perhaps you should check that the job's token is meant for Sigstore"
                  + " (audience sigstore) and re-run the job"
              : ", perhaps you should pass a fresh token with audience \"sigstore\" from an issuer"
                  + " this Fulcio trusts, or sign with --key");
    }
    return new RemoteProblem(
        "Fulcio failed to issue a signing certificate (" + description + ")" + STEP, RETRY_HINT);
  }

  /** Fulcio could not be reached. */
  static CountersignException fulcioUnreachable(IOException failure) {
    if (isTls(failure)) {
      return tlsFailure("Fulcio", failure, STEP, "--signing-config");
    }
    return new RemoteProblem(
        "Could not obtain a signing certificate from Fulcio" + STEP + ": " + describe(failure),
        RETRY_HINT,
        failure);
  }

  /** Fulcio's certificate does not chain to the trusted root or lacks a valid SCT. */
  static CountersignException fulcioUntrusted(Exception failure) {
    return new RemoteProblem(
        "Fulcio returned a signing certificate that does not verify against the trusted root"
            + STEP
            + ": "
            + redact(String.valueOf(failure.getMessage())),
        ", perhaps you should check that --trusted-root belongs to the Fulcio named in"
            + " --signing-config",
        failure);
  }

  /**
   * No TLS connection to {@code service} (Fulcio, Rekor): its URL or the trust store is wrong.
   *
   * @param step the end of the message ({@link #STEP} for keyless signing)
   * @param namedBy where the user named the service's URL
   */
  static CountersignException tlsFailure(
      String service, IOException failure, String step, String namedBy) {
    return new RemoteProblem(
        "Could not open a TLS connection to " + service + " (" + describe(failure) + ")" + step,
        ", perhaps you should check the "
            + service
            + " URL in "
            + namedBy
            + ", or add the CA of its TLS certificate to the Java trust"
            + " store (javax.net.ssl.trustStore)",
        failure);
  }

  /**
   * Whether {@code failure} is about TLS trust (a handshake or certificate failure): trying again
   * cannot help.
   */
  static boolean isTls(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof SSLException || t instanceof CertificateException) {
        return true;
      }
    }
    return false;
  }

  static String describe(Throwable cause) {
    if (cause == null) {
      return "no detail";
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName()
        + (message == null ? "" : ": " + redact(firstLine(message)));
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  static String redact(String text) {
    return text == null ? "" : JWT.matcher(text).replaceAll("[token]");
  }
}
