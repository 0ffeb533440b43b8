package dev.countersign.cli;

import dev.countersign.action.Reporter;
import dev.countersign.keys.PrivateKeys;
import dev.countersign.pipeline.SignatureReuse;
import dev.countersign.signing.KeyMessageSigner;
import dev.countersign.signing.KeylessOptions;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignProgress;
import dev.countersign.signing.SignerEvents;
import dev.countersign.signing.SigstoreKeylessSigner;
import dev.countersign.signing.TransparencyLog;
import dev.countersign.support.Memoized;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.TrustedRoot;
import java.net.URI;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/**
 * How to sign: keyless (Sigstore, default) or with a key. Shared by {@code sign} and {@code run}.
 */
final class SignerOptions {

  @Option(
      names = "--key",
      paramLabel = "FILE",
      description =
          "Sign with this private key (cosign encrypted key or PKCS#8 PEM; password from"
              + " COSIGN_PASSWORD or a prompt) instead of keylessly.")
  Path key;

  @Option(
      names = "--tlog-upload",
      description =
          "With --key: also record each signature in a Rekor transparency log (adds a bundle"
              + " annotation; Kyverno then needs Rekor's key). The log's answer must verify with"
              + " --trusted-root (default: the public-good root).")
  boolean tlogUpload;

  @Option(
      names = "--rekor-url",
      paramLabel = "URL",
      description =
          "Rekor v1 log for --tlog-upload (default: https://rekor.sigstore.dev); a log of your own"
              + " needs --trusted-root naming its key.")
  URI rekorUrl;

  @Option(
      names = "--keyless",
      description =
          "Sign keylessly with Sigstore (the default): an OIDC identity, a Fulcio certificate and a"
              + " Rekor entry.")
  boolean keyless;

  @Option(
      names = "--identity-token",
      paramLabel = "JWT",
      description =
          "OIDC identity token for keyless signing (default: SIGSTORE_ID_TOKEN, else the GitHub"
              + " Actions token).")
  String identityToken;

  @Option(
      names = "--trusted-root",
      paramLabel = "FILE",
      description =
          "Sigstore trusted_root.json for a private or test deployment (with --signing-config;"
              + " with --key --tlog-upload, the root naming the --rekor-url log's key). Default:"
              + " the public-good instance.")
  Path trustedRoot;

  @Option(
      names = "--signing-config",
      paramLabel = "FILE",
      description =
          "Sigstore signing_config.json naming the Fulcio, Rekor and OIDC URLs (with"
              + " --trusted-root).")
  Path signingConfig;

  /** True when the signer will be keyless (no {@code --key}). */
  boolean keyless() {
    return key == null;
  }

  /**
   * A lazy signer: nothing is read, fetched or prompted for until something needs signing.
   *
   * @param reporter masks every identity token before use, and prints the signer's warnings
   */
  Supplier<MessageSigner> signerFactory(Runtime runtime, Reporter reporter) {
    boolean logsKeyed = tlogUpload || rekorUrl != null;
    if (key != null && (keyless || identityToken != null || signingConfig != null)) {
      throw new UsageProblem(
          "--key cannot be combined with --keyless, --identity-token or --signing-config",
          "choose keyed signing (--key) or keyless signing");
    }
    if (key != null && trustedRoot != null && !logsKeyed) {
      throw new UsageProblem(
          "--trusted-root goes with --key only with --tlog-upload",
          "a keyed signature without a log entry is checked with the key alone; pass"
              + " --tlog-upload to record it in the log that --trusted-root names");
    }
    if (key == null && (trustedRoot == null) != (signingConfig == null)) {
      throw new UsageProblem(
          "--trusted-root and --signing-config go together",
          "pass both (a private Sigstore deployment) or neither (the public-good instance)");
    }
    if (logsKeyed && key == null) {
      throw new UsageProblem(
          "--tlog-upload and --rekor-url go with --key",
          "keyless signing always records in the transparency log named by the signing config");
    }
    // Rekor's answer is checked against the trusted root only after the entry is written; the
    // public-good root names no other log, so every upload would log and then fail.
    if (key != null
        && rekorUrl != null
        && trustedRoot == null
        && !TransparencyLog.isPublicGood(rekorUrl)) {
      throw new UsageProblem(
          "--rekor-url "
              + rekorUrl
              + " needs --trusted-root: the log's entries are checked against the trusted root,"
              + " and the default public-good root names only "
              + TransparencyLog.PUBLIC_GOOD,
          "pass --trusted-root FILE, a trusted_root.json naming the log's key (Action input"
              + " trusted_root)");
    }
    if (key != null) {
      Path keyFile = key;
      Optional<URI> log =
          logsKeyed
              ? Optional.of(Optional.ofNullable(rekorUrl).orElse(TransparencyLog.PUBLIC_GOOD))
              : Optional.empty();
      // The log's answer is checked against the trust material that names its key, as keyless
      // signing checks it: --trusted-root, else the public-good root.
      Supplier<TrustedRoot> logKeys = verificationRoot();
      return () -> {
        PrivateKey privateKey = PrivateKeys.read(keyFile, password(runtime, keyFile));
        return new KeyMessageSigner(
            privateKey,
            PrivateKeys.publicKeyOf(privateKey),
            log.map(
                url ->
                    new TransparencyLog(
                        url,
                        logKeys,
                        trustedRootName(),
                        runtime.clock(),
                        runtime.sleeper(),
                        reporter::warning)));
      };
    }
    KeylessOptions options =
        new KeylessOptions(
            Optional.ofNullable(trustedRoot),
            Optional.ofNullable(signingConfig),
            Optional.ofNullable(identityToken));
    return () ->
        new SigstoreKeylessSigner(
            options,
            runtime.env(),
            runtime.clock(),
            runtime.sleeper(),
            SignerEvents.of(reporter::mask, reporter::warning),
            runtime.headStart());
  }

  /**
   * One signer, made when first asked for; the sign job that signs with it; and the check that
   * keeps an existing signature only when it is this signer's and verifies: the one rule {@code
   * run} and {@code sign} keep files by ({@link SignatureReuse}).
   */
  record Signing(Supplier<MessageSigner> signer, SignJob job, SignatureReuse reuse) {}

  /** {@link Signing} for these options; nothing is read, fetched or prompted for until used. */
  Signing signing(
      Runtime runtime, Reporter reporter, SignCommand.FormatOptions format, SignProgress progress) {
    Supplier<MessageSigner> signerOnce = Memoized.of(signerFactory(runtime, reporter));
    SignatureReuse reuse =
        new SignatureReuse(
            format.reader(),
            format.format(),
            () -> signerOnce.get().identity(),
            verificationRoot());
    return new Signing(
        signerOnce,
        new SignJob(format.reader(), format.format(), signerOnce, reuse, progress),
        reuse);
  }

  /**
   * The Sigstore trust material that signatures made before this run are verified against before
   * they are kept, and that keyless signing and keyed log uploads are checked with: {@code
   * --trusted-root}, else the public-good root through TUF. Read on first use only, then kept.
   */
  Supplier<TrustedRoot> verificationRoot() {
    return TrustedRootOption.fileOrPublicGood(trustedRoot);
  }

  /** {@link #verificationRoot()} as messages name it. */
  private String trustedRootName() {
    return trustedRoot != null ? trustedRoot.toString() : "the Sigstore public-good trusted root";
  }

  /**
   * The public half of {@code --key}, when signing with a key (reads the key; may ask for its
   * password).
   */
  List<PublicKey> signingPublicKeys(Runtime runtime) {
    return key == null
        ? List.of()
        : List.of(PrivateKeys.publicKeyOf(PrivateKeys.read(key, password(runtime, key))));
  }

  private static char[] password(Runtime runtime, Path keyFile) {
    if (runtime.env().exact(PrivateKeys.PASSWORD_VARIABLE).isPresent()) {
      return PrivateKeys.passwordFrom(runtime.env());
    }
    return runtime
        .passwordPrompt()
        .ask("Password for " + keyFile + ": ")
        .orElseGet(() -> new char[0]);
  }
}
