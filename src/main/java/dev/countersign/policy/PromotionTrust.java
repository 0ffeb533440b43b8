package dev.countersign.policy;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.ManifestVerifier;
import dev.countersign.verification.TrustPolicy;
import dev.countersign.verification.TrustedRoot;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Whom a promotion trusts: the signers named on the command line, or else the trust policy file of
 * the repository being promoted, and the verifier built from them. Every file is verified against
 * it before anything is copied, so a promotion never carries a signature the policy does not
 * accept.
 *
 * @param policy the signers (never unconstrained)
 * @param format the signed-manifest format (the policy file's annotation domain, or the flags')
 * @param verifier the strict verifier for {@code policy}
 */
public record PromotionTrust(
    TrustPolicy policy, SignedManifestFormat format, ManifestVerifier verifier) {

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
   * Resolves the trust for promoting from {@code workTree}.
   *
   * @param policyFile the policy file relative to the work tree, or empty for the default location
   *     (used only when no {@code signers} are given; both together are a usage error)
   * @param flagsFormat the signed-manifest format to use with {@code signers} (asked only then)
   * @param trustedRoot the trusted root for keyless signatures, or null for the public-good root
   * @throws UsageProblem when the flags contradict each other, no policy file exists, or the trust
   *     names no signer
   */
  public static PromotionTrust resolve(
      Path workTree,
      Optional<Path> policyFile,
      Signers signers,
      Supplier<SignedManifestFormat> flagsFormat,
      ManifestReader reader,
      Path trustedRoot) {
    if (policyFile.isPresent() && signers.given()) {
      throw new UsageProblem(
          "--policy cannot be combined with --key or --certificate-identity",
          "put the signers in the policy file, or pass them as flags without --policy");
    }
    TrustPolicy trustPolicy;
    SignedManifestFormat signedFormat;
    if (signers.given()) {
      List<IdentityRule> identities = signers.identity().stream().toList();
      List<PublicKey> publicKeys = signers.keyFiles().stream().map(PublicKeys::read).toList();
      signedFormat = flagsFormat.get();
      trustPolicy =
          new TrustPolicy(identities, publicKeys, 1, List.of(), signedFormat.domain(), false);
    } else {
      Path location = policyFile.orElse(PolicyFile.DEFAULT_LOCATION);
      if (!Files.isRegularFile(workTree.resolve(location))) {
        throw new UsageProblem(
            "No trust policy found at "
                + location
                + " in "
                + workTree
                + " while starting countersign promote",
            "perhaps you should pass --policy FILE, or --key / --certificate-identity with"
                + " --certificate-oidc-issuer");
      }
      PolicyFile loaded = new PolicyFileLoader().load(workTree, location);
      trustPolicy = loaded.toTrustPolicy(workTree);
      signedFormat = new SignedManifestFormat(loaded.annotationDomain(), reader);
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
        trustPolicy, signedFormat, new ManifestVerifier(roots, trustPolicy, signedFormat));
  }
}
