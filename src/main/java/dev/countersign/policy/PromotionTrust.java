package dev.countersign.policy;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Whom a promotion trusts: the signers named on the command line, or else the trust policy file as
 * the base commit the sources come from has it, and the verifier built from them. Every file is
 * verified against it before anything is copied, so a promotion never carries a signature the
 * policy does not accept.
 *
 * <p>The policy file, its key files and its annotation domain are read from that one version of the
 * repository ({@link Request#resolve}), never from the work tree: the checkout may be an older
 * commit (a queued or re-run job), another branch, or carry an uncommitted edit, and none of these
 * may widen or narrow whom the base trusts. Signers given on the command line are the workflow
 * author's choice and are taken as given (key files from the file system).
 *
 * @param policy the signers (never unconstrained)
 * @param format the signed-manifest format (the policy file's annotation domain, or the flags')
 * @param verifier the strict verifier for {@code policy}
 * @param gatedSignedDirectories the signed directories of the trust policy file, which {@code
 *     check} verifies pull requests in; empty when the signers are given as flags (no policy file
 *     to ask)
 */
public record PromotionTrust(
    TrustPolicy policy,
    SignedManifestFormat format,
    ManifestVerifier verifier,
    Optional<List<Path>> gatedSignedDirectories) {

  /**
   * The signers as given on the command line; both empty when none were given.
   *
   * @param keyFiles public keys for keyed signatures
   * @param identity the accepted keyless signer, if one was given
   */
  public record Signers(List<Path> keyFiles, Optional<IdentityRule> identity) {
    public Signers {
      keyFiles = List.copyOf(keyFiles);
      Objects.requireNonNull(identity, "identity");
    }

    boolean given() {
      return !keyFiles.isEmpty() || identity.isPresent();
    }
  }

  /**
   * Where the trust comes from, as the command line says; checked when made, so contradicting flags
   * stop a promotion before anything is fetched. Immutable; {@link #resolve} reads nothing but
   * {@code base} (and, with {@code signers}, their key files), so it may be called again.
   *
   * @param policyFile the policy file, repository-relative, or empty for the default location (used
   *     only when no {@code signers} are given; both together are a usage error)
   * @param signers the signers given as flags, if any
   * @param flagsFormat the signed-manifest format to use with {@code signers} (asked only then)
   * @param reader how manifests are read (for the policy file's annotation domain)
   * @param trustedRoot the trusted root for keyless signatures, or null for the public-good root
   * @throws UsageProblem when {@code policyFile} and {@code signers} are both given
   */
  public record Request(
      Optional<Path> policyFile,
      Signers signers,
      Supplier<SignedManifestFormat> flagsFormat,
      ManifestReader reader,
      Path trustedRoot) {

    public Request {
      Objects.requireNonNull(policyFile, "policyFile");
      Objects.requireNonNull(signers, "signers");
      Objects.requireNonNull(flagsFormat, "flagsFormat");
      Objects.requireNonNull(reader, "reader");
      if (policyFile.isPresent() && signers.given()) {
        throw new UsageProblem(
            "--policy cannot be combined with --key or --certificate-identity",
            "put the signers in the policy file, or pass them as flags without --policy");
      }
    }

    /**
     * The trust for promoting the sources of {@code base}.
     *
     * @param base the version of the repository the source files are read from (the fetched base
     *     commit, {@code gate.BaseCommit}); the policy file and its key files are read from it,
     *     never from the work tree
     * @throws UsageProblem when {@code base} has no policy file, or the trust names no signer
     * @throws dev.countersign.support.problems.InputProblem when the policy file or a key file it
     *     names is not valid
     */
    public PromotionTrust resolve(RepositoryFiles base) {
      TrustPolicy trustPolicy;
      SignedManifestFormat signedFormat;
      Optional<List<Path>> gated = Optional.empty();
      if (signers.given()) {
        List<IdentityRule> identities = signers.identity().stream().toList();
        List<PublicKey> publicKeys = signers.keyFiles().stream().map(PublicKeys::read).toList();
        signedFormat = flagsFormat.get();
        trustPolicy =
            new TrustPolicy(identities, publicKeys, 1, List.of(), signedFormat.domain(), false);
      } else {
        Path location = policyFile.orElse(PolicyFile.DEFAULT_LOCATION);
        if (base.readRuleFile(location).isEmpty()) {
          throw new UsageProblem(
              "No trust policy found at "
                  + location
                  + " in "
                  + base.describe()
                  + " while starting countersign promote",
              "perhaps you should commit it to the base branch (promote reads the policy from"
                  + " there, not from the work tree), or pass --key / --certificate-identity with"
                  + " --certificate-oidc-issuer");
        }
        PolicyFile loaded = new PolicyFileLoader().load(base, location);
        trustPolicy = loaded.toTrustPolicy(base);
        signedFormat = new SignedManifestFormat(loaded.annotationDomain(), reader);
        gated =
            Optional.of(
                loaded.directories().stream().map(PolicyFile.DirectoryPair::signed).toList());
      }
      if (trustPolicy.isUnconstrained()) {
        throw new UsageProblem(
            "The trust policy names no signer, so every promotion would be refused",
            "perhaps you should add signers or keys to it");
      }
      boolean keyless = !trustPolicy.identities().isEmpty();
      TrustedRoot roots =
          !keyless
              ? null
              : trustedRoot != null
                  ? TrustedRoot.fromFile(trustedRoot)
                  : TrustedRoot.fromPublicGoodTuf(null);
      return new PromotionTrust(
          trustPolicy, signedFormat, new ManifestVerifier(roots, trustPolicy, signedFormat), gated);
    }
  }
}
