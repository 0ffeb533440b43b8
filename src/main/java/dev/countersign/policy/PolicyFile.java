package dev.countersign.policy;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.support.Records;
import dev.countersign.support.RepositoryPaths;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.TrustPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.PublicKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The repository's {@code .countersign/policy.yaml}: who may sign, what the verifier tolerates,
 * where manifests live and which governance policies apply. Produced by {@link PolicyFileLoader};
 * the schema is documented in {@code docs/trust-policy.md}.
 *
 * @param source the file as the user names it (relative to the repository)
 * @param annotationDomain the signature annotation domain
 * @param signers allowed keyless signers
 * @param keys allowed public keys (files or inline PEM)
 * @param minSigners how many distinct signers must verify
 * @param ignoreFields ignore-field patterns added to Kyverno's defaults
 * @param directories unsigned/signed directory pairs, relative to the repository
 * @param governance where the ValidatingAdmissionPolicy files and their parameters live
 */
public record PolicyFile(
    Path source,
    AnnotationDomain annotationDomain,
    List<Signer> signers,
    List<KeySource> keys,
    int minSigners,
    List<String> ignoreFields,
    List<DirectoryPair> directories,
    Governance governance) {

  /** The conventional location, relative to the repository root. */
  public static final Path DEFAULT_LOCATION = Path.of(".countersign", "policy.yaml");

  public static final String API_VERSION = "countersign.dev/v1alpha1";
  public static final String KIND = "TrustPolicy";

  public PolicyFile {
    signers = List.copyOf(signers);
    keys = List.copyOf(keys);
    ignoreFields = List.copyOf(ignoreFields);
    directories = List.copyOf(directories);
    Records.requireNonNull(
        PolicyFile.class,
        source,
        annotationDomain,
        signers,
        keys,
        minSigners,
        ignoreFields,
        directories,
        governance);
  }

  /**
   * A keyless signer. Exactly one of subject / subject pattern, and exactly one of issuer / issuer
   * pattern, is set; patterns must match the whole value.
   */
  public record Signer(IdentityRule rule, int line) {}

  /** A public key: a file (relative to the repository) or inline PEM. */
  public record KeySource(Optional<Path> path, Optional<String> pem, int line) {}

  /** Manifests are written to {@code unsigned} and the signer moves them to {@code signed}. */
  public record DirectoryPair(Path unsigned, Path signed) {

    /** Where the signing run writes the signed file of {@code unsignedFile}, a file under it. */
    public Path signedFileOf(Path unsignedFile) {
      return signed.resolve(unsigned.relativize(unsignedFile));
    }

    /** The unsigned source a signed file under this pair's signed directory is signed from. */
    public Path unsignedFileOf(Path signedFile) {
      return unsigned.resolve(signed.relativize(signedFile));
    }

    /** {@code unsigned:signed}, as run's {@code --dir} and the Action's {@code dirs} spell it. */
    public String spelled() {
      return RepositoryPaths.slashed(unsigned) + ":" + RepositoryPaths.slashed(signed);
    }

    /**
     * Whether {@code check}, judging this pair, judges what a signing run moves from {@code from}
     * to {@code to} (repository-relative, {@code /}-separated, no trailing slash): this pair, or a
     * subdirectory of its unsigned directory moved to the same subdirectory of its signed one,
     * which is the mapping check applies to the files there already.
     */
    public boolean judges(String from, String to) {
      String unsignedDir = RepositoryPaths.slashed(unsigned);
      String signedDir = RepositoryPaths.slashed(signed);
      return from.equals(unsignedDir) && to.equals(signedDir)
          || from.startsWith(unsignedDir + "/")
              && to.equals(signedDir + from.substring(unsignedDir.length()));
    }
  }

  /**
   * Whether {@code check} judges what a signing run moves from {@code unsigned} to {@code signed}:
   * one of the {@link #directories} does ({@link DirectoryPair#judges}). check judges pull requests
   * under these pairs only, so a run signing from any other pair signs content no gate judged, into
   * a directory where no gate verifies a later change.
   */
  public boolean judges(String unsigned, String signed) {
    return directories.stream().anyMatch(pair -> pair.judges(unsigned, signed));
  }

  /**
   * @param policies files or directories of ValidatingAdmissionPolicy documents, relative to the
   *     repository
   * @param params optional file holding the one parameter object bound to every policy that
   *     declares {@code spec.paramKind}
   */
  public record Governance(List<Path> policies, Optional<Path> params) {
    public Governance {
      policies = List.copyOf(policies);
      Objects.requireNonNull(params, "params");
    }

    public static Governance none() {
      return new Governance(List.of(), Optional.empty());
    }
  }

  /**
   * The verifier's view of this file. Reads key files below {@code repositoryRoot}.
   *
   * @throws InputProblem when a key file is missing or not an EC/RSA "PUBLIC KEY" PEM
   */
  public TrustPolicy toTrustPolicy(Path repositoryRoot) {
    return toTrustPolicy(RepositoryFiles.workTree(repositoryRoot));
  }

  /**
   * The verifier's view of this file, key files read from {@code files} (the same version of the
   * repository the policy file came from).
   *
   * @throws InputProblem when a key file is missing or not an EC/RSA "PUBLIC KEY" PEM
   */
  public TrustPolicy toTrustPolicy(RepositoryFiles files) {
    List<PublicKey> publicKeys = new ArrayList<>();
    for (KeySource key : keys) {
      if (key.path().isPresent()) {
        Path relative = key.path().get();
        byte[] pem =
            files
                .readRuleFile(relative)
                .orElseThrow(
                    () ->
                        new InputProblem(
                            source,
                            key.line(),
                            "cannot read the public key file "
                                + relative
                                + " in "
                                + files.describe(),
                            "perhaps you should commit the key or fix the path (it is relative to"
                                + " the repository root)"));
        publicKeys.add(PublicKeys.parse(pem, relative, 1));
      } else {
        publicKeys.add(
            PublicKeys.parse(
                key.pem().orElseThrow().getBytes(StandardCharsets.UTF_8), source, key.line()));
      }
    }
    return new TrustPolicy(
        signers.stream().map(Signer::rule).toList(),
        publicKeys,
        minSigners,
        ignoreFields,
        annotationDomain,
        false);
  }
}
