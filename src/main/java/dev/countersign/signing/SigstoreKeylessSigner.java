package dev.countersign.signing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Env;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import dev.countersign.support.Sleeper;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.CertificateIdentity;
import dev.countersign.verification.PublicGoodTrustMaterial;
import dev.countersign.verification.RekorEntryBody;
import dev.countersign.verification.SigstoreResponseVerifier;
import dev.countersign.verification.TrustedRoot;
import dev.sigstore.AlgorithmRegistry;
import dev.sigstore.SigningConfigProvider;
import dev.sigstore.TrustedRootProvider;
import dev.sigstore.bundle.Bundle;
import dev.sigstore.bundle.ImmutableBundle;
import dev.sigstore.rekor.client.RekorResponse;
import dev.sigstore.tuf.SigstoreTufClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.security.cert.CertPath;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Keyless signing: an ephemeral P-256 key, a Fulcio certificate for the OIDC identity, and a Rekor
 * v1 {@code hashedrekord} entry per message; the same steps and checks as sigstore-java's {@code
 * KeylessSigner}, with a lighter transport and countersign's own checks.
 *
 * <p>What is whose: the checks of Fulcio's certificate (chain to the trusted root, embedded SCT,
 * the token's identity) and of Rekor's entry (body equals the request, SET, inclusion proof,
 * checkpoint, integrated time) are {@link SigstoreResponseVerifier}'s, the code that verifies
 * signatures later (docs/design.md); the trusted root and signing config files are read with
 * Jackson. sigstore-java serves only the public-good TUF download and, on demand, the Sigstore
 * bundle for sidecars. Hand-written, because sigstore-java 2.0 hard-codes gRPC for Fulcio and a new
 * Apache HttpClient per Rekor request (~1,400 classes, ~1 s of start-up and several ms of CPU per
 * signature; docs/performance.md): the HTTP exchanges over {@link SigstoreHttp} (the GitHub Actions
 * token request, Fulcio's REST {@code POST /api/v2/signingCert}, Rekor's {@code POST
 * /api/v1/log/entries}) and the ECDSA signature ({@link EphemeralEcdsaKey}).
 *
 * <p>One key and one certificate serve the whole run (one token, one Fulcio call); the certificate
 * is renewed, by one thread, when less than {@link #RENEW_WHEN_LEFT} of its validity is left.
 * Nothing is contacted before the first {@link #sign}, {@link #identity} or {@link #prepare}. Rekor
 * v2 is never used: its entries carry no SET, and Kyverno's verifier needs one.
 *
 * <p>Thread-safe: callers sign from a pool so Rekor uploads overlap.
 */
public final class SigstoreKeylessSigner implements MessageSigner {

  // sigstore-java's KeylessSigner renews when less than 5 minutes are left; so do we, a little
  // earlier so that a signature never goes out with a certificate about to expire.
  static final Duration RENEW_WHEN_LEFT = Duration.ofMinutes(5).plusSeconds(30);

  private final KeylessOptions options;
  private final Clock clock;
  private final Sleeper sleeper;
  private final SignerEvents events;
  // Chosen anew for each use (the environment is read then), with the start-up token first.
  private final Supplier<IdentityTokenSource> tokenSources;
  private final KeylessHeadStart headStart;
  // One transport for the whole run: its TLS set-up and keep-alive connections are shared.
  private final SigstoreHttp http = new SigstoreHttp();

  private final Object buildLock = new Object();
  private volatile Built built;
  private volatile CountersignException buildFailure;

  // One thread fetches (or renews) the certificate while the others wait for it.
  private final ReentrantLock certificateLock = new ReentrantLock();
  private volatile Certified certified;
  private volatile CountersignException certificateFailure;
  // A token fetched by prepare() for the first certificate (guarded by certificateLock).
  private IdentityTokenSource.IdentityToken pendingToken;
  private volatile String identity;
  private volatile SignerIdentity tokenIdentity;
  // Background preparations (guarded by this): the identity's, then the certificate's.
  private final List<Thread> preparations = new ArrayList<>();
  private boolean identityStarted;
  private boolean certificateStarted;
  private volatile boolean preparationCancelled;
  private final AtomicBoolean warmedUp = new AtomicBoolean();

  private record Built(
      URI fulcio,
      RekorUploads rekor,
      SigstoreResponseVerifier verifier,
      IdentityTokenSource tokenSource,
      EphemeralEcdsaKey key,
      SigstoreHttp http) {}

  /** The certificate in use (verified), its PEM, and its SAN. */
  private record Certified(X509Certificate leaf, byte[] pem, String san, Instant renewalDue) {}

  /**
   * @param options trust material and explicit token
   * @param env where {@code SIGSTORE_ID_TOKEN} and the GitHub Actions token variables are read
   * @param clock decides when the cached certificate is close to expiry
   * @param sleeper waits before a Rekor upload is tried again ({@link RekorUploads})
   * @param events receives every identity token as soon as it is obtained, before it is used (the
   *     Action registers {@code ::add-mask::} there), and warnings such as a busy Rekor's waits
   * @param headStart the token request and key started with the process ({@link
   *     KeylessHeadStart#NONE}: none): the first GitHub Actions token and the key are taken from it
   */
  public SigstoreKeylessSigner(
      KeylessOptions options,
      Env env,
      Clock clock,
      Sleeper sleeper,
      SignerEvents events,
      KeylessHeadStart headStart) {
    this.options = options;
    this.clock = clock;
    this.sleeper = sleeper;
    this.events = events;
    this.tokenSources =
        () ->
            IdentityTokenSource.choose(
                options.identityToken(), env, events::tokenFetched, headStart);
    this.headStart = headStart;
  }

  public SigstoreKeylessSigner(KeylessOptions options, Env env, Clock clock, SignerEvents events) {
    this(options, env, clock, Sleeper.real(), events, KeylessHeadStart.NONE);
  }

  public SigstoreKeylessSigner(KeylessOptions options, Env env, Clock clock) {
    this(options, env, clock, token -> {});
  }

  /**
   * Starts, on a background thread, everything the first signature needs: the trust material, the
   * key, the identity token and the certificate (Fulcio), so that they overlap with reading and
   * canonicalising the manifests. A certificate alone signs nothing: until {@link #sign} uploads a
   * signature to Rekor nothing exists that verifies, so a run that stops on invalid input after
   * this has made no signature. A failure here is reported by the next {@code sign}, exactly as if
   * {@code sign} had met it.
   */
  @Override
  public void prepare() {
    startPreparation(true);
  }

  /**
   * Starts, on background threads, what the first signature needs short of a certificate: the trust
   * material and the key on one, the identity token on another (a network wait, so it overlaps with
   * the first). Fulcio is not asked; {@link #prepare} asks it, with this token, once the caller
   * knows what it will sign.
   */
  @Override
  public void prepareIdentity() {
    startPreparation(false);
  }

  private synchronized void startPreparation(boolean withCertificate) {
    if (certified != null || (withCertificate ? certificateStarted : identityStarted)) {
      return;
    }
    if (!withCertificate) {
      startThread(this::prefetchToken);
    }
    identityStarted = true;
    certificateStarted |= withCertificate;
    startThread(() -> prepareNow(withCertificate));
  }

  private synchronized void startThread(Runnable preparation) {
    Thread thread = new Thread(preparation, "countersign-keyless-prepare");
    thread.setDaemon(true);
    preparations.add(thread);
    thread.start();
  }

  /**
   * The identity token alone, without waiting for the trust material. A failure is left for the
   * signing path to meet again (and report in its own order); a token is asked for once more then.
   */
  private void prefetchToken() {
    try {
      IdentityTokenSource source = tokenSources.get();
      if (headStart.tokenRequested()) {
        // The token is on its way already: warm the check of Fulcio's answer while it travels.
        warmUpOnce();
      }
      certificateLock.lock();
      try {
        if (preparationCancelled || certified != null || pendingToken != null) {
          return;
        }
        pendingToken = source.fetch(http);
      } finally {
        certificateLock.unlock();
      }
      // The token goes to Fulcio from another thread; this one has nothing left to do but make
      // the check of Fulcio's answer faster.
      warmUpOnce();
    } catch (RuntimeException reportedBySign) {
      // sign() or prepareNow() meets it again
    }
  }

  /** {@link SigstoreResponseVerifier#warmUp}, once per signer and not after a cancellation. */
  private void warmUpOnce() {
    if (!preparationCancelled && warmedUp.compareAndSet(false, true)) {
      built().verifier().warmUp();
    }
  }

  private void prepareNow(boolean withCertificate) {
    try {
      Built current = built();
      certificateLock.lock();
      try {
        if (preparationCancelled || certified != null || certificateFailure != null) {
          return;
        }
        if (pendingToken == null) {
          pendingToken = current.tokenSource().fetch(current.http());
        }
        if (tokenIdentity == null) {
          try {
            tokenIdentity = identityFromToken(pendingToken.jwt());
          } catch (CountersignException reportedByIdentity) {
            // identity() meets it again with a token of its own
          }
        }
        if (withCertificate && !preparationCancelled) {
          certificate(current);
        }
      } finally {
        certificateLock.unlock();
      }
    } catch (CountersignException e) {
      certificateFailure = certificateFailure == null ? e : certificateFailure;
    } catch (RuntimeException reportedBySign) {
      // sign() meets it again
    }
  }

  /**
   * No certificate is asked for after this returns: a preparation not yet at Fulcio stops there,
   * one under way is waited for. For a run that will sign nothing after all.
   */
  @Override
  public void cancelPreparation() {
    preparationCancelled = true;
    List<Thread> started;
    synchronized (this) {
      started = List.copyOf(preparations);
    }
    for (Thread thread : started) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
  }

  /**
   * Signs {@code message}: SHA-256, ECDSA with the ephemeral key, Rekor v1 upload, and the checks
   * of the returned entry.
   *
   * @throws dev.countersign.support.problems.EnvironmentProblem when no identity token can be had
   *     or Fulcio rejects it
   * @throws RemoteProblem when OIDC, Fulcio, Rekor or TUF fail
   * @throws UsageProblem when the trust material files cannot be used
   */
  @Override
  public SignatureMaterial sign(byte[] message) {
    byte[] digest = sha256(message);
    Built current = built();
    // The signature needs the key alone: made before waiting for the certificate, it is ready when
    // Fulcio's answer is. It leaves the process only with the certificate, after that is checked.
    byte[] signature = current.key().signDigest(digest);
    Certified certificate = certificate(current);
    RekorUploads.Logged logged = upload(current, certificate, digest, signature);
    return toMaterial(certificate, logged, digest, signature);
  }

  /**
   * {@link RekorUploads#inFlightFor} the log the signing config names: fewer against Sigstore's
   * shared log than against one's own. Sets up signing when not done yet (as {@link #sign} would).
   */
  @Override
  public int suggestedInFlight() {
    return RekorUploads.inFlightFor(built().rekor().log());
  }

  /** The certificate SAN once known, else a description of where the identity will come from. */
  @Override
  public String signerDescription() {
    String known = identity;
    if (known != null) {
      return known;
    }
    Built current = built;
    return "keyless (identity from "
        + (current == null
            ? "the OIDC token, not fetched yet"
            : current.tokenSource().kind().description)
        + ")";
  }

  @Override
  public void close() {
    certified = null;
  }

  /**
   * The identity Fulcio certifies for this run's token, read from the token's claims (one token
   * request, no Fulcio call): the issuer is the {@code iss} claim; the subject is {@code
   * https://github.com/} + {@code job_workflow_ref} for GitHub Actions tokens (Fulcio's GitHub
   * workflow principal), else the {@code email} claim, else {@code sub}. Should this differ from
   * what Fulcio would write, earlier signatures are simply not kept (signed again).
   */
  @Override
  public SignerIdentity identity() {
    SignerIdentity known = tokenIdentity;
    if (known != null) {
      return known;
    }
    Built current = built();
    certificateLock.lock();
    try {
      if (tokenIdentity == null) {
        IdentityTokenSource.IdentityToken token = pendingToken;
        if (token == null) {
          token = current.tokenSource().fetch(current.http());
          if (certified == null) {
            // The first certificate request takes this token instead of asking again.
            pendingToken = token;
          }
        }
        tokenIdentity = identityFromToken(token.jwt());
      }
      return tokenIdentity;
    } finally {
      certificateLock.unlock();
    }
  }

  static final String GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

  /** The identity Fulcio derives from a JWT's claims; see {@link #identity()}. */
  static SignerIdentity identityFromToken(String jwt) {
    String[] parts = jwt.split("\\.");
    JsonNode claims;
    try {
      claims =
          parts.length == 3
              ? Json.mapper().readTree(Base64.getUrlDecoder().decode(parts[1]))
              : null;
    } catch (IOException | IllegalArgumentException e) {
      claims = null;
    }
    if (claims == null || !claims.isObject()) {
      throw new EnvironmentProblem(
          "The identity token is not a JSON Web Token while reading the signing identity",
          IdentityTokenSource.NO_TOKEN_HINT);
    }
    String issuer = claims.path("iss").asText("");
    String subject;
    if (issuer.equals(GITHUB_ACTIONS_ISSUER) && claims.path("job_workflow_ref").isTextual()) {
      subject = "https://github.com/" + claims.path("job_workflow_ref").asText();
    } else if (claims.path("email").isTextual()) {
      subject = claims.path("email").asText();
    } else {
      subject = claims.path("sub").asText("");
    }
    if (issuer.isEmpty() || subject.isEmpty()) {
      throw new EnvironmentProblem(
          "The identity token names no issuer or subject while reading the signing identity",
          IdentityTokenSource.NO_TOKEN_HINT);
    }
    return new SignerIdentity.Keyless(subject, issuer);
  }

  private Certified certificate(Built current) {
    Certified known = certified;
    if (known != null && clock.instant().isBefore(known.renewalDue())) {
      return known;
    }
    certificateLock.lock();
    try {
      if (certificateFailure != null) {
        // One attempt per run: a pool of signers must not ask a failing Fulcio N times.
        throw certificateFailure;
      }
      known = certified;
      if (known != null && clock.instant().isBefore(known.renewalDue())) {
        return known;
      }
      try {
        Certified fresh = requestCertificate(current);
        certified = fresh;
        identity = fresh.san();
        return fresh;
      } catch (CountersignException e) {
        certificateFailure = e;
        throw e;
      }
    } finally {
      certificateLock.unlock();
    }
  }

  /** Token → Fulcio REST → chain, SCT and identity checks ({@link SigstoreResponseVerifier}). */
  private Certified requestCertificate(Built current) {
    IdentityTokenSource.IdentityToken token =
        pendingToken != null ? pendingToken : current.tokenSource().fetch(current.http());
    pendingToken = null;
    byte[] proofOfPossession =
        current.key().signDigest(sha256(token.subject().getBytes(StandardCharsets.UTF_8)));
    ObjectNode request = Json.mapper().createObjectNode();
    request.putObject("credentials").put("oidcIdentityToken", token.jwt());
    ObjectNode publicKeyRequest = request.putObject("publicKeyRequest");
    publicKeyRequest
        .putObject("publicKey")
        .put("algorithm", "ECDSA")
        .put("content", current.key().publicKeyPem());
    publicKeyRequest.put(
        "proofOfPossession", Base64.getEncoder().encodeToString(proofOfPossession));
    SigstoreHttp.Response response;
    try {
      response =
          current
              .http()
              .postJson(
                  current.fulcio().resolve("/api/v2/signingCert"),
                  Map.of("Accept", "application/json"),
                  request.toString());
    } catch (IOException e) {
      throw KeylessFailures.fulcioUnreachable(e);
    }
    if (!response.is(201) && !response.is(200)) {
      throw KeylessFailures.fulcioStatus(response, current.tokenSource().kind());
    }
    X509Certificate leaf = leafFrom(response);
    CertificateIdentity certified;
    try {
      current.verifier().verifyCertificate(leaf);
      certified = CertificateIdentity.of(leaf);
    } catch (IllegalArgumentException e) {
      throw KeylessFailures.fulcioUntrusted(e);
    }
    if (!leaf.getPublicKey().equals(current.key().publicKey())) {
      throw new RemoteProblem(
          "Fulcio certified another public key than ours" + KeylessFailures.STEP, null);
    }
    requireTokenIdentity(certified, token.jwt());
    Instant renewalDue = leaf.getNotAfter().toInstant().minus(RENEW_WHEN_LEFT);
    return new Certified(leaf, pem(leaf), certified.subject(), renewalDue);
  }

  /**
   * The certificate names the token's identity: always its issuer (Fulcio copies the {@code iss}
   * claim), and its subject where {@link #identityFromToken} derives it as Fulcio does (GitHub
   * Actions workflow identities); other issuers' subject rules are Fulcio's.
   */
  static void requireTokenIdentity(CertificateIdentity certified, String jwt) {
    SignerIdentity.Keyless expected = (SignerIdentity.Keyless) identityFromToken(jwt);
    boolean subjectDerivable = expected.issuer().equals(GITHUB_ACTIONS_ISSUER);
    if (!certified.issuer().equals(expected.issuer())
        || subjectDerivable && !certified.subject().equals(expected.subject())) {
      throw new RemoteProblem(
          "Fulcio certified "
              + certified.subject()
              + " (issuer "
              + certified.issuer()
              + "), not the identity token's "
              + expected.subject()
              + " (issuer "
              + expected.issuer()
              + ")"
              + KeylessFailures.STEP,
          ", perhaps you should check that --signing-config names the intended Fulcio");
    }
  }

  /** PEM of one certificate: 64-column base64 lines, LF line ends (as Go and BouncyCastle). */
  private static byte[] pem(X509Certificate certificate) {
    try {
      return ("-----BEGIN CERTIFICATE-----\n"
              + Base64.getMimeEncoder(64, new byte[] {'\n'})
                  .encodeToString(certificate.getEncoded())
              + "\n-----END CERTIFICATE-----\n")
          .getBytes(StandardCharsets.US_ASCII);
    } catch (CertificateEncodingException e) {
      throw KeylessFailures.fulcioUntrusted(e);
    }
  }

  /** The leaf, first of {@code signedCertificateEmbeddedSct.chain.certificates} (PEM strings). */
  private static X509Certificate leafFrom(SigstoreHttp.Response response) {
    try {
      JsonNode certificates =
          Json.mapper()
              .readTree(response.body())
              .path("signedCertificateEmbeddedSct")
              .path("chain")
              .path("certificates");
      if (certificates.isArray() && certificates.size() > 0) {
        return (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(
                    new ByteArrayInputStream(
                        certificates.get(0).asText().getBytes(StandardCharsets.US_ASCII)));
      }
    } catch (IOException | CertificateException | ClassCastException e) {
      throw new RemoteProblem(
          "Fulcio returned an unreadable certificate chain"
              + KeylessFailures.STEP
              + ": "
              + KeylessFailures.describe(e),
          KeylessFailures.RETRY_HINT,
          e);
    }
    throw new RemoteProblem(
        "Fulcio returned no certificate chain with an embedded SCT" + KeylessFailures.STEP,
        ", perhaps you should check that --signing-config names a Fulcio that embeds SCTs");
  }

  /** Rekor v1 upload, then the entry checks (body, SET, inclusion proof, checkpoint, time). */
  private static RekorUploads.Logged upload(
      Built current, Certified certificate, byte[] digest, byte[] signature) {
    return current
        .rekor()
        .log(
            RekorEntryBody.hashedRekordRequest(digest, signature, certificate.pem()),
            entry -> current.verifier().verifyLogEntry(entry, certificate.leaf()));
  }

  private Built built() {
    Built current = built;
    if (current != null) {
      return current;
    }
    synchronized (buildLock) {
      if (buildFailure != null) {
        throw buildFailure;
      }
      if (built == null) {
        try {
          built = build();
        } catch (CountersignException e) {
          buildFailure = e;
          throw e;
        }
      }
      return built;
    }
  }

  private Built build() {
    IdentityTokenSource tokenSource = tokenSources.get();
    if (options.trustedRoot().isPresent() != options.signingConfig().isPresent()) {
      throw new UsageProblem(
          "--trusted-root and --signing-config were not given together while signing keylessly",
          ", perhaps you should pass both (custom Sigstore) or neither (public-good Sigstore)");
    }
    TrustedRoot root;
    SigningServices services;
    if (options.trustedRoot().isPresent()) {
      root = readTrustedRoot(options.trustedRoot().get());
      services = readSigningConfig(options.signingConfig().get());
    } else {
      try {
        SigstoreTufClient.Builder tuf = SigstoreTufClient.builder().usePublicGoodInstance();
        root =
            PublicGoodTrustMaterial.convert(
                TrustedRootProvider.from(tuf).get(), "Sigstore public-good TUF");
        services = SigningServices.from(SigningConfigProvider.from(tuf).get());
      } catch (Exception e) {
        throw new RemoteProblem(
            "Could not use the Sigstore public-good trust material (TUF) while signing keylessly: "
                + e.getMessage(),
            ", perhaps you should retry, or pass --trusted-root and --signing-config files",
            e);
      }
    }
    if (services.fulcio().isEmpty() || services.rekor().isEmpty()) {
      throw new UsageProblem(
          "Could not set up signing from "
              + describeTrust()
              + " while signing keylessly: no "
              + (services.fulcio().isEmpty() ? "Fulcio (caUrls)" : "Rekor v1 (rekorTlogUrls)")
              + " valid now",
          ", perhaps you should check that the signing config names a Fulcio (caUrls) and a"
              + " Rekor v1 (rekorTlogUrls) valid now");
    }
    // Before any request: a root that fails every certificate or entry is refused now, not after
    // Fulcio and Rekor did the work.
    SigningTrust.forKeyless(
        root,
        clock.instant(),
        options.trustedRoot().map(Path::toString).orElse("the Sigstore public-good trusted root"));
    return new Built(
        services.fulcio().get(),
        new RekorUploads(
            services.rekor().get(),
            http,
            clock,
            sleeper,
            new SecureRandom(),
            events::warning,
            RekorFailures.KEYLESS),
        new SigstoreResponseVerifier(root),
        tokenSource,
        headStart.takeKey().orElseGet(() -> EphemeralEcdsaKey.generate(new SecureRandom())),
        http);
  }

  private String describeTrust() {
    return options
        .trustedRoot()
        .map(root -> root + " and " + options.signingConfig().orElseThrow())
        .orElse("the Sigstore public-good trust material");
  }

  private static TrustedRoot readTrustedRoot(Path file) {
    requireReadable(file, "--trusted-root");
    try {
      return TrustedRoot.fromJson(Files.readAllBytes(file), file.toString());
    } catch (IOException | IllegalArgumentException e) {
      throw new UsageProblem(
          file + ": not a usable Sigstore trusted root while signing keylessly: " + e.getMessage(),
          ", perhaps you should pass a trusted_root.json (media type"
              + " application/vnd.dev.sigstore.trustedroot+json;version=0.1)",
          e);
    }
  }

  private SigningServices readSigningConfig(Path file) {
    requireReadable(file, "--signing-config");
    try {
      return SigningServices.fromJson(Files.readAllBytes(file), clock.instant());
    } catch (IOException | IllegalArgumentException e) {
      throw new UsageProblem(
          file
              + ": not a usable Sigstore signing config while signing keylessly: "
              + e.getMessage(),
          ", perhaps you should pass a signing_config.json (media type"
              + " application/vnd.dev.sigstore.signingconfig.v0.2+json)",
          e);
    }
  }

  private static void requireReadable(Path file, String option) {
    if (!Files.isRegularFile(file) || !Files.isReadable(file)) {
      throw new UsageProblem(
          file + ": cannot read the file given to " + option + " while signing keylessly",
          ", perhaps you should check the path");
    }
  }

  /** The annotation material, taken from the Rekor upload response. */
  private static SignatureMaterial toMaterial(
      Certified certificate, RekorUploads.Logged logged, byte[] digest, byte[] signature) {
    RekorBundle rekorBundle = logged.entry().bundle();
    if (rekorBundle.signedEntryTimestamp().isEmpty()) {
      throw new RemoteProblem(
          "Rekor returned a log entry without a SignedEntryTimestamp while signing keylessly",
          ", perhaps you should use a Rekor v1 log (Kyverno needs the SET)");
    }
    // upload() checked that the logged body is byte for byte the request with this PEM.
    String certificatePem = new String(certificate.pem(), StandardCharsets.UTF_8);
    // The Sigstore bundle JSON only when a sidecar asks for it: sigstore-java's bundle and entry
    // classes (protobuf printing) are loaded and run only then.
    Supplier<Optional<String>> bundleJson =
        () -> {
          try {
            CertPath path =
                CertificateFactory.getInstance("X.509")
                    .generateCertPath(List.of(certificate.leaf()));
            return Optional.of(
                ImmutableBundle.builder()
                    .certPath(path)
                    .addEntries(
                        RekorResponse.newRekorResponse(logged.location(), logged.response())
                            .getEntry())
                    .messageSignature(
                        Bundle.MessageSignature.of(
                            AlgorithmRegistry.HashAlgorithm.SHA2_256, digest, signature))
                    .build()
                    .toJson());
          } catch (Exception e) {
            throw new IllegalStateException("building the Sigstore bundle of a checked entry", e);
          }
        };
    return new SignatureMaterial(
        signature,
        Optional.of(certificatePem),
        Optional.of(rekorBundle),
        bundleJson,
        certificate.san());
  }

  static byte[] sha256(byte[] message) {
    return Sha256.of(message);
  }
}
