package dev.countersign.signing;

import com.google.api.client.http.HttpResponseException;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.sigstore.KeylessSignerException;
import dev.sigstore.fulcio.client.FulcioVerificationException;
import dev.sigstore.oidc.client.OidcException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.security.cert.CertificateException;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Translates what sigstore-java throws while signing into our problems, naming the service
 * (OIDC, Fulcio, Rekor) and its status. sigstore-java reports most failures as a
 * {@link KeylessSignerException} with a fixed message and the real failure as its cause; Fulcio's
 * gRPC errors escape unwrapped as {@link StatusRuntimeException}.
 */
final class KeylessFailures {

  private static final String STEP = " while signing keylessly";
  private static final String RETRY_HINT = ", perhaps you should retry in a few minutes";
  // A JWT (header.payload.signature, base64url). Removed from anything we quote from a service so
  // that a token echoed back in an error can never reach a log.
  private static final Pattern JWT =
      Pattern.compile("eyJ[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*");

  private KeylessFailures() {}

  static CountersignException translate(Throwable failure, IdentityTokenSource.Kind tokenKind) {
    if (failure instanceof CountersignException problem) {
      return problem;
    }
    if (failure instanceof StatusRuntimeException grpc) {
      return fulcio(grpc, tokenKind);
    }
    if (failure instanceof KeylessSignerException keyless) {
      return signerFailure(keyless, tokenKind);
    }
    return new InternalProblem(
        "Unexpected " + failure.getClass().getSimpleName() + STEP + ": " + redact(failure.getMessage()),
        ", perhaps you should report this with the --stacktrace output",
        failure);
  }

  private static CountersignException signerFailure(
      KeylessSignerException failure, IdentityTokenSource.Kind tokenKind) {
    String what = String.valueOf(failure.getMessage());
    Throwable cause = failure.getCause();
    Optional<StatusRuntimeException> grpc = find(failure, StatusRuntimeException.class);
    if (grpc.isPresent()) {
      return fulcio(grpc.get(), tokenKind);
    }
    Optional<OidcException> oidc = find(failure, OidcException.class);
    if (oidc.isPresent()) {
      return oidc(failure, oidc.get(), tokenKind);
    }
    if (what.startsWith("Failed to obtain signing certificate")) {
      if (cause instanceof FulcioVerificationException || cause instanceof CertificateException) {
        return new RemoteProblem(
            "Fulcio returned a signing certificate that does not verify against the trusted root"
                + STEP
                + ": "
                + redact(String.valueOf(cause.getMessage())),
            ", perhaps you should check that --trusted-root belongs to the Fulcio named in"
                + " --signing-config",
            failure);
      }
      return new RemoteProblem(
          "Could not obtain a signing certificate from Fulcio" + STEP + ": " + describe(cause),
          RETRY_HINT,
          failure);
    }
    if (what.startsWith("Failed to put entry in rekor")) {
      return new RemoteProblem(
          "Rekor did not accept the log entry" + STEP + ": " + describe(cause), RETRY_HINT, failure);
    }
    if (what.contains("rekor") || what.contains("log entry")) {
      return new RemoteProblem(
          "Rekor returned a log entry that does not verify (" + what + ")" + STEP,
          ", perhaps you should check that --trusted-root belongs to the Rekor named in"
              + " --signing-config",
          failure);
    }
    return new InternalProblem(
        "sigstore-java failed" + STEP + ": " + redact(what) + " (" + describe(cause) + ")",
        ", perhaps you should report this with the --stacktrace output",
        failure);
  }

  private static CountersignException fulcio(
      StatusRuntimeException failure, IdentityTokenSource.Kind tokenKind) {
    Status status = failure.getStatus();
    String description =
        status.getCode() + Optional.ofNullable(status.getDescription()).map(d -> ": " + redact(d)).orElse("");
    if (status.getCode() == Status.Code.UNAUTHENTICATED
        || status.getCode() == Status.Code.INVALID_ARGUMENT
        || status.getCode() == Status.Code.PERMISSION_DENIED) {
      return new EnvironmentProblem(
          "Fulcio rejected the OIDC identity token from " + tokenKind.description + " (" + description + ")" + STEP,
          tokenKind == IdentityTokenSource.Kind.GITHUB_ACTIONS
              ? ", perhaps you should check that the job's token is meant for Sigstore"
                  + " (audience sigstore) and re-run the job"
              : ", perhaps you should pass a fresh token with audience \"sigstore\" from an issuer"
                  + " this Fulcio trusts, or sign with --key",
          failure);
    }
    if (find(failure, javax.net.ssl.SSLException.class).isPresent()
        || find(failure, java.security.cert.CertificateException.class).isPresent()
        || description.contains("PKIX")) {
      return new RemoteProblem(
          "Could not open a TLS connection to Fulcio (" + description + ")" + STEP,
          ", perhaps you should check the Fulcio URL in --signing-config, or add the CA of its"
              + " TLS certificate to the Java trust store (javax.net.ssl.trustStore)",
          failure);
    }
    return new RemoteProblem(
        "Fulcio failed to issue a signing certificate (" + description + ")" + STEP, RETRY_HINT, failure);
  }

  private static CountersignException oidc(
      KeylessSignerException failure, OidcException oidc, IdentityTokenSource.Kind tokenKind) {
    if (tokenKind != IdentityTokenSource.Kind.GITHUB_ACTIONS) {
      // A static token that does not even parse: nothing remote failed.
      return new EnvironmentProblem(
          "The OIDC identity token from " + tokenKind.description + " is not a readable JWT" + STEP,
          ", perhaps you should pass the raw token (three base64url parts separated by dots)",
          failure);
    }
    String what =
        "The GitHub Actions OIDC token endpoint did not return a token"
            + STEP
            + ": "
            + describe(oidc.getCause() == null ? oidc : oidc.getCause());
    Optional<Integer> status = httpStatus(oidc);
    if (status.isPresent() && (status.get() == 401 || status.get() == 403)) {
      // The runner refused ACTIONS_ID_TOKEN_REQUEST_TOKEN: a job configuration matter.
      return new EnvironmentProblem(
          what, ", perhaps you should add `permissions: id-token: write` to the job", failure);
    }
    return new RemoteProblem(
        what,
        RETRY_HINT + "; if it persists, check that the job has `permissions: id-token: write`",
        failure);
  }

  private static Optional<Integer> httpStatus(Throwable failure) {
    return find(failure, HttpResponseException.class).map(HttpResponseException::getStatusCode);
  }

  private static <T extends Throwable> Optional<T> find(Throwable failure, Class<T> type) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (type.isInstance(t)) {
        return Optional.of(type.cast(t));
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return Optional.empty();
  }

  private static String describe(Throwable cause) {
    if (cause == null) {
      return "no detail";
    }
    if (cause instanceof HttpResponseException http) {
      // The first line only: Rekor's JSON error body follows on the next lines.
      return "HTTP " + http.getStatusCode() + " " + Optional.ofNullable(http.getStatusMessage()).orElse("");
    }
    String message = cause.getMessage();
    return cause.getClass().getSimpleName() + (message == null ? "" : ": " + redact(firstLine(message)));
  }

  private static String firstLine(String text) {
    int newline = text.indexOf('\n');
    return newline < 0 ? text : text.substring(0, newline);
  }

  static String redact(String text) {
    return text == null ? "" : JWT.matcher(text).replaceAll("[token]");
  }
}
