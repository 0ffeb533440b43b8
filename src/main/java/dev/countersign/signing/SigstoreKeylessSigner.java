package dev.countersign.signing;

import dev.countersign.support.Sha256;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Env;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.sigstore.AlgorithmRegistry;
import dev.sigstore.KeylessSigner;
import dev.sigstore.KeylessSignerException;
import dev.sigstore.SigningConfigProvider;
import dev.sigstore.TrustedRootProvider;
import dev.sigstore.bundle.Bundle;
import dev.sigstore.encryption.certificates.Certificates;
import dev.sigstore.oidc.client.OidcClients;
import dev.sigstore.rekor.client.RekorEntry;
import dev.sigstore.trustroot.SigstoreSigningConfig;
import dev.sigstore.trustroot.SigstoreTrustedRoot;
import dev.sigstore.tuf.SigstoreTufClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Consumer;

/**
 * Keyless signing with sigstore-java's {@link KeylessSigner}: an ephemeral P-256 key, a Fulcio
 * certificate for the OIDC identity, and a Rekor v1 {@code hashedrekord} entry per message.
 *
 * <p>One {@code KeylessSigner} serves the whole run, so every message is signed with the same key
 * and certificate (one token, one Fulcio call). It is built on the first {@link #sign}. Rekor v2
 * is never enabled: its entries carry no SET, and Kyverno's verifier needs one.
 *
 * <p>Thread-safe: callers sign from a pool so Rekor uploads overlap.
 */
public final class SigstoreKeylessSigner implements MessageSigner {

  private static final ObjectMapper JSON = new ObjectMapper();
  // sigstore-java renews its certificate when less than this is left (its default); we route the
  // sign that will trigger a renewal through one thread, so a pool asks Fulcio once, not N times.
  private static final Duration RENEW_WHEN_LEFT =
      KeylessSigner.DEFAULT_MIN_SIGNING_CERTIFICATE_LIFETIME.plusSeconds(30);

  private final KeylessOptions options;
  private final Env env;
  private final Clock clock;
  private final Consumer<String> onTokenFetched;

  private final Object buildLock = new Object();
  private volatile Built built;

  // Readers sign with the cached certificate; the writer signs when the certificate must be
  // (re)fetched, so exactly one sign talks to OIDC and Fulcio while the others wait.
  private final ReentrantReadWriteLock certificateLock = new ReentrantReadWriteLock();
  private volatile Instant certificateRenewalDue;
  private volatile String identity;
  private volatile SignerIdentity tokenIdentity;

  private record Built(KeylessSigner signer, IdentityTokenSource tokenSource) {}

  /**
   * @param options trust material and explicit token
   * @param env where {@code SIGSTORE_ID_TOKEN} and the GitHub Actions token variables are read
   * @param clock decides when the cached certificate is close to expiry
   * @param onTokenFetched receives every identity token as soon as it is obtained, before it is
   *     used; the Action registers {@code ::add-mask::} here
   */
  public SigstoreKeylessSigner(
      KeylessOptions options, Env env, Clock clock, Consumer<String> onTokenFetched) {
    this.options = options;
    this.env = env;
    this.clock = clock;
    this.onTokenFetched = onTokenFetched;
  }

  public SigstoreKeylessSigner(KeylessOptions options, Env env, Clock clock) {
    this(options, env, clock, token -> {});
  }

  /**
   * Signs {@code message}: SHA-256, ECDSA with the ephemeral key, Rekor v1 upload.
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
    if (certificateRenewalIsDue()) {
      certificateLock.writeLock().lock();
      try {
        if (certificateRenewalIsDue()) {
          return signWith(current, message, digest);
        }
      } finally {
        certificateLock.writeLock().unlock();
      }
    }
    certificateLock.readLock().lock();
    try {
      return signWith(current, message, digest);
    } finally {
      certificateLock.readLock().unlock();
    }
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
        + (current == null ? "the OIDC token, not fetched yet" : current.tokenSource().kind().description)
        + ")";
  }

  @Override
  public void close() {
    Built current = built;
    if (current != null) {
      current.signer().close();
    }
  }

  /**
   * The identity Fulcio certifies for this run's token, read from the token's claims (one token
   * request, no Fulcio call): the issuer is the {@code iss} claim; the subject is
   * {@code https://github.com/} + {@code job_workflow_ref} for GitHub Actions tokens (Fulcio's
   * GitHub workflow principal), else the {@code email} claim, else {@code sub}. Should this
   * differ from what Fulcio would write, earlier signatures are simply not kept (signed again).
   */
  @Override
  public SignerIdentity identity() {
    SignerIdentity known = tokenIdentity;
    if (known != null) {
      return known;
    }
    synchronized (buildLock) {
      if (tokenIdentity == null) {
        Built current = built();
        try {
          tokenIdentity = identityFromToken(current.tokenSource().getIDToken(env.vars()).getIdToken());
        } catch (dev.sigstore.oidc.client.OidcException e) {
          throw KeylessFailures.translate(e, current.tokenSource().kind());
        }
      }
      return tokenIdentity;
    }
  }

  static final String GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

  /** The identity Fulcio derives from a JWT's claims; see {@link #identity()}. */
  static SignerIdentity identityFromToken(String jwt) {
    String[] parts = jwt.split("\\.");
    JsonNode claims;
    try {
      claims = parts.length == 3 ? JSON.readTree(Base64.getUrlDecoder().decode(parts[1])) : null;
    } catch (IOException | IllegalArgumentException e) {
      claims = null;
    }
    if (claims == null || !claims.isObject()) {
      throw new dev.countersign.support.problems.EnvironmentProblem(
          "The identity token is not a JSON Web Token while reading the signing identity", IdentityTokenSource.NO_TOKEN_HINT);
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
      throw new dev.countersign.support.problems.EnvironmentProblem(
          "The identity token names no issuer or subject while reading the signing identity", IdentityTokenSource.NO_TOKEN_HINT);
    }
    return new SignerIdentity.Keyless(subject, issuer);
  }

  private boolean certificateRenewalIsDue() {
    Instant due = certificateRenewalDue;
    return due == null || !clock.instant().isBefore(due);
  }

  private SignatureMaterial signWith(Built current, byte[] message, byte[] digest) {
    Bundle bundle;
    try {
      bundle = current.signer().sign(digest);
    } catch (KeylessSignerException | RuntimeException e) {
      // RuntimeException: Fulcio's io.grpc.StatusRuntimeException escapes sigstore-java unwrapped.
      throw KeylessFailures.translate(e, current.tokenSource().kind());
    }
    SignatureMaterial material = toMaterial(bundle);
    X509Certificate leaf = Certificates.getLeaf(bundle.getCertPath());
    certificateRenewalDue = leaf.getNotAfter().toInstant().minus(RENEW_WHEN_LEFT);
    identity = material.signer();
    return material;
  }

  private Built built() {
    Built current = built;
    if (current != null) {
      return current;
    }
    synchronized (buildLock) {
      if (built == null) {
        built = build();
      }
      return built;
    }
  }

  private Built build() {
    IdentityTokenSource tokenSource =
        IdentityTokenSource.choose(options.identityToken(), env, onTokenFetched);
    KeylessSigner.Builder builder =
        KeylessSigner.builder()
            .signingAlgorithm(AlgorithmRegistry.SigningAlgorithm.PKIX_ECDSA_P256_SHA_256)
            // Rekor v1 only: v2 entries have no SignedEntryTimestamp for the bundle annotation.
            .enableRekorV2(false)
            .forceCredentialProviders(OidcClients.of(tokenSource));
    if (options.trustedRoot().isPresent() != options.signingConfig().isPresent()) {
      throw new UsageProblem(
          "--trusted-root and --signing-config were not given together while signing keylessly",
          ", perhaps you should pass both (custom Sigstore) or neither (public-good Sigstore)");
    }
    if (options.trustedRoot().isPresent()) {
      SigstoreTrustedRoot root = readTrustedRoot(options.trustedRoot().get());
      SigstoreSigningConfig config = readSigningConfig(options.signingConfig().get());
      builder.trustedRootProvider(() -> root).signingConfigProvider(() -> config);
    } else {
      SigstoreTufClient.Builder tuf = SigstoreTufClient.builder().usePublicGoodInstance();
      builder.trustedRootProvider(TrustedRootProvider.from(tuf)).signingConfigProvider(SigningConfigProvider.from(tuf));
    }
    try {
      return new Built(builder.build(), tokenSource);
    } catch (IOException e) {
      throw new RemoteProblem(
          "Could not fetch the Sigstore trust material with TUF while signing keylessly: " + e.getMessage(),
          ", perhaps you should retry, or pass --trusted-root and --signing-config files",
          e);
    } catch (Exception e) {
      if (options.trustedRoot().isEmpty()) {
        throw new RemoteProblem(
            "Could not use the Sigstore public-good trust material (TUF) while signing keylessly: "
                + e.getMessage(),
            ", perhaps you should retry, or pass --trusted-root and --signing-config files",
            e);
      }
      throw new UsageProblem(
          "Could not set up signing from "
              + options.trustedRoot().get()
              + " and "
              + options.signingConfig().get()
              + " while signing keylessly: "
              + e.getMessage(),
          ", perhaps you should check that the signing config names a Fulcio (caUrls) and a"
              + " Rekor v1 (rekorTlogUrls) valid now",
          e);
    }
  }

  private static SigstoreTrustedRoot readTrustedRoot(Path file) {
    requireReadable(file, "--trusted-root");
    try {
      return TrustedRootProvider.from(file).get();
    } catch (Exception e) {
      throw new UsageProblem(
          file + ": not a usable Sigstore trusted root while signing keylessly: " + e.getMessage(),
          ", perhaps you should pass a trusted_root.json (media type"
              + " application/vnd.dev.sigstore.trustedroot+json;version=0.1)",
          e);
    }
  }

  private static SigstoreSigningConfig readSigningConfig(Path file) {
    requireReadable(file, "--signing-config");
    try {
      return SigningConfigProvider.from(file).get();
    } catch (Exception e) {
      throw new UsageProblem(
          file + ": not a usable Sigstore signing config while signing keylessly: " + e.getMessage(),
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

  /** The annotation material, taken from the Rekor upload response inside the bundle. */
  private static SignatureMaterial toMaterial(Bundle bundle) {
    byte[] signature =
        bundle
            .getMessageSignature()
            .orElseThrow(() -> new InternalProblem("sigstore-java returned a bundle without a message signature"))
            .getSignature();
    List<RekorEntry> entries = bundle.getEntries();
    if (entries.size() != 1) {
      throw new InternalProblem(
          "sigstore-java returned " + entries.size() + " log entries for one signature, expected 1");
    }
    RekorEntry entry = entries.get(0);
    String set = entry.getVerification().getSignedEntryTimestamp();
    if (set == null || set.isEmpty()) {
      throw new RemoteProblem(
          "Rekor returned a log entry without a SignedEntryTimestamp while signing keylessly",
          ", perhaps you should use a Rekor v1 log (Kyverno needs the SET)");
    }
    String signatureBase64 = Base64.getEncoder().encodeToString(signature);
    String certificatePem = certificateFromBody(entry.getBody(), signatureBase64);
    X509Certificate leaf = Certificates.getLeaf(bundle.getCertPath());
    checkSameCertificate(certificatePem, leaf);
    RekorBundle rekorBundle =
        new RekorBundle(set, entry.getBody(), entry.getIntegratedTime(), entry.getLogIndex(), entry.getLogID());
    return new SignatureMaterial(
        signature,
        Optional.of(certificatePem),
        Optional.of(rekorBundle),
        Optional.of(bundle.toJson()),
        subjectAlternativeName(leaf));
  }

  /**
   * The leaf PEM exactly as the log stored it ({@code spec.signature.publicKey.content}), after
   * checking that the entry carries our signature string.
   */
  private static String certificateFromBody(String bodyBase64, String signatureBase64) {
    JsonNode body;
    try {
      body = JSON.readTree(Base64.getDecoder().decode(bodyBase64));
    } catch (IOException | IllegalArgumentException e) {
      throw new RemoteProblem("Rekor returned an unreadable entry body while signing keylessly", null, e);
    }
    JsonNode signatureNode = body.path("spec").path("signature");
    if (!"hashedrekord".equals(body.path("kind").asText())
        || !signatureBase64.equals(signatureNode.path("content").asText())) {
      throw new RemoteProblem(
          "Rekor's entry does not carry the uploaded signature while signing keylessly",
          ", perhaps you should check that --signing-config names the intended Rekor");
    }
    String publicKeyContent = signatureNode.path("publicKey").path("content").asText("");
    try {
      return new String(Base64.getDecoder().decode(publicKeyContent), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new RemoteProblem("Rekor's entry has an undecodable publicKey while signing keylessly", null, e);
    }
  }

  private static void checkSameCertificate(String pem, X509Certificate leaf) {
    try {
      byte[] logged = Certificates.fromPem(pem).getEncoded();
      if (!Arrays.equals(logged, leaf.getEncoded())) {
        throw new RemoteProblem(
            "Rekor's entry names another certificate than Fulcio issued while signing keylessly", null);
      }
    } catch (CertificateException e) {
      throw new RemoteProblem("Rekor's entry does not hold a certificate while signing keylessly", null, e);
    }
  }

  private static String subjectAlternativeName(X509Certificate leaf) {
    try {
      Collection<List<?>> names = leaf.getSubjectAlternativeNames();
      if (names != null) {
        for (List<?> name : names) {
          // 6 = URI (workflow identities), 1 = rfc822Name (e-mail identities)
          Object type = name.get(0);
          if (Integer.valueOf(6).equals(type) || Integer.valueOf(1).equals(type)) {
            return String.valueOf(name.get(1));
          }
        }
      }
    } catch (CertificateParsingException e) {
      throw new RemoteProblem("Fulcio's certificate has an unreadable SAN while signing keylessly", null, e);
    }
    throw new RemoteProblem("Fulcio's certificate has no URI or e-mail SAN while signing keylessly", null);
  }

  static byte[] sha256(byte[] message) {
    return Sha256.of(message);
  }
}
