package dev.countersign.oci;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SignatureMaterial;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.CountersignException;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.CertificateIdentity;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.PayloadSignatureVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.function.Supplier;

/**
 * {@code countersign publish}: pushes the files as an OCI artifact ({@link ArtifactLayout}) and
 * signs its manifest digest the way cosign does ({@link CosignSignatureFormat}).
 *
 * <p>Idempotent: every blob and the manifest are looked up (HEAD) before they are sent, so
 * publishing the same files at the same commit again pushes nothing and gives the same digest. A
 * signature is appended to the {@code .sig} manifest only when it does not already hold a signature
 * over the same payload that verifies for this signer (keyless signing still asks Fulcio and Rekor,
 * because the signer's identity is known only from its certificate; the new signature is then
 * dropped and the registry is left as it was).
 */
public final class PublishJob {

  /** What happened to the signature. */
  public enum Signature {
    SIGNED,
    ALREADY_SIGNED,
    UNSIGNED
  }

  /**
   * @param reference where the artifact is, pinned by digest
   * @param signer SAN or key fingerprint; empty when unsigned
   * @param issuer the OIDC issuer of a keyless signer
   * @param writes blobs and manifests this run sent to the registry
   */
  public record Result(
      OciReference reference,
      String digest,
      boolean artifactPushed,
      Signature signature,
      Optional<String> signer,
      Optional<String> issuer,
      Registry.Writes writes) {}

  private final Registry registry;
  private final Optional<Supplier<MessageSigner>> signer;
  private final Supplier<TrustedRoot> trustedRoot;
  private final Supplier<List<PublicKey>> signingKeys;

  /**
   * @param signer empty = publish unsigned ({@code --no-sign})
   * @param trustedRoot the Sigstore trust material keyless signing uses (for the certificate chain
   *     annotation and to recognise an existing signature); asked only when signing keylessly
   * @param signingKeys the public key of a keyed signer (to recognise an existing signature); asked
   *     only when the signature tag already holds a signature over the same payload
   */
  public PublishJob(
      Registry registry,
      Optional<Supplier<MessageSigner>> signer,
      Supplier<TrustedRoot> trustedRoot,
      Supplier<List<PublicKey>> signingKeys) {
    this.registry = registry;
    this.signer = signer;
    this.trustedRoot = trustedRoot;
    this.signingKeys = signingKeys;
  }

  /**
   * Signs first (the digest is known before anything is sent), then pushes: a signing failure (no
   * identity token, Fulcio or Rekor down) leaves the registry untouched.
   */
  public Result publish(
      OciReference target, SortedMap<String, byte[]> files, ArtifactLayout.Provenance provenance) {
    ArtifactLayout.Artifact artifact = ArtifactLayout.build(files, provenance);
    String repository = target.repository();
    String digest = artifact.digest();
    OciReference pinned = target.withDigest(digest);
    byte[] payload = CosignSignatureFormat.payload(pinned, digest);
    Optional<SignatureMaterial> material = signer.map(s -> s.get().sign(payload));
    Optional<String> chain =
        material.flatMap(SignatureMaterial::certificatePem).map(this::issuingChainPem);

    pushBlobIfMissing(repository, artifact.config());
    pushBlobIfMissing(repository, artifact.layer());
    String reference = target.tag().orElse(digest);
    boolean pushed = false;
    if (!registry.manifestDigest(repository, reference).equals(Optional.of(digest))) {
      registry.putManifest(
          repository, reference, ArtifactLayout.MANIFEST_MEDIA_TYPE, artifact.manifest());
      pushed = true;
    }
    Signature signature = Signature.UNSIGNED;
    Optional<CertificateIdentity> identity = Optional.empty();
    if (material.isPresent()) {
      try {
        identity = material.get().certificatePem().map(PublishJob::signingIdentity);
        signature = attach(pinned, digest, payload, material.get(), chain, identity);
      } catch (CountersignException e) {
        throw afterPush(e, pinned);
      }
    }
    return new Result(
        pinned,
        digest,
        pushed,
        signature,
        material.map(SignatureMaterial::signer),
        identity.map(CertificateIdentity::issuer),
        registry.writes());
  }

  private static CertificateIdentity signingIdentity(String certificatePem) {
    try {
      return CertificateIdentity.ofPem(certificatePem);
    } catch (IllegalArgumentException e) {
      throw new RemoteProblem(
          "The signing certificate cannot be read while signing the artifact: " + e.getMessage(),
          null,
          e);
    }
  }

  /**
   * Adds the signature to the {@code .sig} manifest, unless an equivalent one is there.
   *
   * @return {@link Signature#SIGNED}, or {@link Signature#ALREADY_SIGNED} when one was there
   */
  private Signature attach(
      OciReference pinned,
      String digest,
      byte[] payload,
      SignatureMaterial material,
      Optional<String> chain,
      Optional<CertificateIdentity> identity) {
    String repository = pinned.repository();
    String signatureBase64 = Base64.getEncoder().encodeToString(material.signature());

    String tag = CosignSignatureFormat.signatureTag(digest);
    List<CosignSignatureFormat.SignatureLayer> layers = new ArrayList<>();
    Optional<Registry.Manifest> existing = registry.manifest(repository, tag);
    if (existing.isPresent()) {
      try {
        layers.addAll(CosignSignatureFormat.layers(existing.get().bytes()));
      } catch (IllegalArgumentException e) {
        // Not a cosign signature manifest (or over its layer limit): replaced below, as `cosign
        // sign` would fail on it.
        layers.clear();
      }
    }
    String payloadDigest = Sha256.digest(payload);
    boolean samePayloadSigned = layers.stream().anyMatch(l -> l.digest().equals(payloadDigest));
    Optional<PayloadSignatureVerifier> sameSigner =
        samePayloadSigned ? sameSignerVerifier(identity) : Optional.empty();
    for (CosignSignatureFormat.SignatureLayer layer : layers) {
      if (sameSigner.isPresent()
          && layer.digest().equals(payloadDigest)
          && layer.annotation(CosignSignatureFormat.SIGNATURE_ANNOTATION).isPresent()
          && sameSigner
              .get()
              .verify(
                  payload,
                  layer.annotation(CosignSignatureFormat.SIGNATURE_ANNOTATION).get(),
                  layer.annotation(CosignSignatureFormat.CERTIFICATE_ANNOTATION),
                  layer.annotation(CosignSignatureFormat.BUNDLE_ANNOTATION))
              .verified()) {
        return Signature.ALREADY_SIGNED;
      }
    }
    if (layers.size() >= CosignSignatureFormat.MAX_LAYERS) {
      // One more layer would make a tag that cosign, Flux and verify --oci refuse to read: start
      // afresh, as for a manifest that is not a cosign signature manifest.
      layers.clear();
    }
    layers.add(
        new CosignSignatureFormat.SignatureLayer(
            payloadDigest,
            payload.length,
            CosignSignatureFormat.annotations(
                signatureBase64,
                material.certificatePem(),
                chain,
                material.rekorBundle().map(b -> b.toJson()))));
    CosignSignatureFormat.SignatureManifest manifest = CosignSignatureFormat.manifest(layers);
    pushBlobIfMissing(repository, payload);
    pushBlobIfMissing(repository, manifest.config());
    registry.putManifest(repository, tag, ArtifactLayout.MANIFEST_MEDIA_TYPE, manifest.manifest());
    return Signature.SIGNED;
  }

  /**
   * A verifier that accepts exactly this signer, its identity (keyless) or its key; empty when the
   * signer cannot be recognised (a keyed signer whose public key is unknown).
   */
  private Optional<PayloadSignatureVerifier> sameSignerVerifier(
      Optional<CertificateIdentity> identity) {
    List<IdentityRule> rules =
        identity.map(i -> List.of(IdentityRule.exact(i.subject(), i.issuer()))).orElse(List.of());
    List<PublicKey> keys = identity.isPresent() ? List.of() : signingKeys.get();
    TrustPolicy policy =
        new TrustPolicy(rules, keys, 1, List.of(), AnnotationDomain.DEFAULT, false);
    if (policy.isUnconstrained()) {
      return Optional.empty();
    }
    return Optional.of(
        new PayloadSignatureVerifier(identity.isPresent() ? trustedRoot.get() : null, policy));
  }

  /**
   * The PEM chain above {@code leafPem} from the trusted root: the certificate authority that
   * issued it, up to its root ({@code dev.sigstore.cosign/chain}).
   */
  private String issuingChainPem(String leafPem) {
    X509Certificate leaf;
    try {
      leaf =
          (X509Certificate)
              CertificateFactory.getInstance("X.509")
                  .generateCertificate(
                      new ByteArrayInputStream(leafPem.getBytes(StandardCharsets.US_ASCII)));
    } catch (CertificateException e) {
      throw new RemoteProblem(
          "The signing certificate cannot be parsed: " + e.getMessage(), null, e);
    }
    for (TrustedRoot.CertificateAuthority ca : trustedRoot.get().certificateAuthorities()) {
      X509Certificate issuer = ca.chain().get(0);
      if (!issuer.getSubjectX500Principal().equals(leaf.getIssuerX500Principal())) {
        continue;
      }
      try {
        leaf.verify(issuer.getPublicKey());
      } catch (GeneralSecurityException e) {
        continue;
      }
      StringBuilder pem = new StringBuilder();
      for (X509Certificate cert : ca.chain()) {
        pem.append(pem(cert));
      }
      return pem.toString();
    }
    throw new RemoteProblem(
        "The signing certificate (issuer "
            + leaf.getIssuerX500Principal().getName()
            + ") was not issued by a certificate authority of the trusted root",
        "perhaps --signing-config and --trusted-root describe different Sigstore deployments");
  }

  static String pem(X509Certificate cert) {
    try {
      return "-----BEGIN CERTIFICATE-----\n"
          + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
              .encodeToString(cert.getEncoded())
          + "\n-----END CERTIFICATE-----\n";
    } catch (CertificateEncodingException e) {
      throw new InternalProblem("A trusted-root certificate cannot be encoded", null, e);
    }
  }

  private void pushBlobIfMissing(String repository, byte[] bytes) {
    String digest = Sha256.digest(bytes);
    if (!registry.blobExists(repository, digest)) {
      registry.pushBlob(repository, digest, bytes);
    }
  }

  /** The same kind of problem, saying the artifact is in the registry but unsigned. */
  private static CountersignException afterPush(CountersignException e, OciReference pinned) {
    String message =
        "The artifact " + pinned + " is in the registry but NOT signed: " + e.getMessage();
    String hint =
        "perhaps you should fix the cause and run publish again (it pushes nothing twice and only"
            + " adds the signature)"
            + e.hint().map(h -> "; " + Hints.fix(h)).orElse("");
    if (e instanceof RemoteProblem) {
      return new RemoteProblem(message, hint, e);
    }
    if (e instanceof EnvironmentProblem) {
      return new EnvironmentProblem(message, hint, e);
    }
    if (e instanceof UsageProblem) {
      return new UsageProblem(message, hint, e);
    }
    if (e instanceof InputProblem) {
      return e;
    }
    return new InternalProblem(message, hint, e);
  }
}
