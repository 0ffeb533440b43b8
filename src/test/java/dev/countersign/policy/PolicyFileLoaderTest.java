package dev.countersign.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.countersign.verification.IdentityRule;
import dev.countersign.verification.TrustPolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class PolicyFileLoaderTest {

  private static final Path SOURCE = Path.of(".countersign/policy.yaml");
  private static final String SUBJECT =
      "https://github.com/acme/deploy/.github/workflows/sign-on-merge.yml@refs/heads/main";
  private static final String ISSUER = "https://token.actions.githubusercontent.com";

  private static final String HEADER = "apiVersion: countersign.dev/v1alpha1\nkind: TrustPolicy\n";
  private static final String SIGNER =
      "signers:\n  - issuer: " + ISSUER + "\n    subject: " + SUBJECT + "\n";

  @TempDir Path repo;

  private final PolicyFileLoader loader = new PolicyFileLoader();

  @Test
  void load_fullExample_convertsToTrustPolicy() throws Exception {
    PublicKey key = newEcKey();
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(repo.resolve(".countersign/cosign.pub"), pem(key));
    Files.writeString(
        repo.resolve(SOURCE),
        HEADER
            + "annotationDomain: example.dev\n"
            + SIGNER
            + "  - issuer: "
            + ISSUER
            + "\n"
            + "    subjectRegExp:"
            + " 'https://github\\.com/acme/deploy/\\.github/workflows/release\\.yml@refs/tags/v.*'\n"
            + "keys:\n"
            + "  - path: .countersign/cosign.pub\n"
            + "minSigners: 2\n"
            + "ignoreFields: [metadata.annotations.argocd.argoproj.io/tracking-id]\n"
            + "directories:\n"
            + "  - unsigned: deploy/unsigned\n"
            + "    signed: deploy/signed\n"
            + "governance:\n"
            + "  policies: [policies/]\n"
            + "  params: policies/params.yaml\n");

    PolicyFile file = loader.load(repo, SOURCE);
    TrustPolicy policy = file.toTrustPolicy(repo);

    assertThat(policy.identities())
        .containsExactly(
            IdentityRule.exact(SUBJECT, ISSUER),
            new IdentityRule(
                "https://github\\.com/acme/deploy/\\.github/workflows/release\\.yml@refs/tags/v.*",
                true,
                ISSUER,
                false));
    assertThat(policy.keys()).containsExactly(key);
    assertThat(policy.minSigners()).isEqualTo(2);
    assertThat(policy.domain()).isEqualTo(new AnnotationDomain("example.dev"));
    assertThat(policy.extraIgnoreFields())
        .containsExactly("metadata.annotations.argocd.argoproj.io/tracking-id");
    assertThat(policy.insecureIgnoreIdentity()).isFalse();
    assertThat(file.directories())
        .containsExactly(
            new PolicyFile.DirectoryPair(Path.of("deploy/unsigned"), Path.of("deploy/signed")));
    assertThat(file.governance())
        .isEqualTo(
            new PolicyFile.Governance(
                List.of(Path.of("policies")), Optional.of(Path.of("policies/params.yaml"))));
  }

  @Test
  void parse_minimal_appliesDefaults() {
    PolicyFile file = loader.parse(SOURCE, HEADER + SIGNER);

    assertThat(file.annotationDomain()).isEqualTo(AnnotationDomain.DEFAULT);
    assertThat(file.minSigners()).isEqualTo(1);
    assertThat(file.directories())
        .containsExactly(new PolicyFile.DirectoryPair(Path.of("unsigned"), Path.of("signed")));
    assertThat(file.governance()).isEqualTo(PolicyFile.Governance.none());
    assertThat(file.signers()).extracting(PolicyFile.Signer::line).containsExactly(4);
  }

  @Test
  void judges_thePolicysPairsAndTheirSubdirectoriesMovedAlike_only() {
    PolicyFile file =
        loader.parse(
            SOURCE,
            HEADER
                + SIGNER
                + "directories:\n"
                + "  - unsigned: ./unsigned/\n    signed: signed\n"
                + "  - unsigned: apps/in\n    signed: apps/out\n");

    assertThat(file.judges("unsigned", "signed")).isTrue();
    assertThat(file.judges("apps/in", "apps/out")).isTrue();
    assertThat(file.judges("unsigned/team", "signed/team")).isTrue();
    assertThat(file.judges("apps/in/a/b", "apps/out/a/b")).isTrue();
    // Another pair, the sides of two pairs mixed, a subdirectory moved elsewhere, a mere prefix.
    assertThat(file.judges("apps/unsigned", "apps/signed")).isFalse();
    assertThat(file.judges("unsigned", "apps/out")).isFalse();
    assertThat(file.judges("unsigned/team", "signed/other")).isFalse();
    assertThat(file.judges("unsigned/team", "signed")).isFalse();
    assertThat(file.judges("unsigned-old", "signed-old")).isFalse();
    assertThat(file.judges("unsigned", "signed/team")).isFalse();
    assertThat(file.judges("Unsigned", "signed")).isFalse();
    assertThat(file.directories())
        .extracting(PolicyFile.DirectoryPair::spelled)
        .containsExactly("unsigned:signed", "apps/in:apps/out");
  }

  @Test
  void parse_inlinePemKey_isAccepted() throws Exception {
    PublicKey key = newEcKey();
    String inline = pem(key).replace("\n", "\n      ");

    TrustPolicy policy =
        loader
            .parse(SOURCE, HEADER + "keys:\n  - pem: |\n      " + inline + "\n")
            .toTrustPolicy(repo);

    assertThat(policy.keys()).containsExactly(key);
  }

  @Test
  void parse_inlineRsaKeyTooWeakToTrust_isRejectedAtItsLine() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(1024);
    String inline = pem(generator.generateKeyPair().getPublic()).replace("\n", "\n      ");
    String policy = HEADER + "keys:\n  - pem: |\n      " + inline + "\n";

    assertThatThrownBy(() -> loader.parse(SOURCE, policy))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining(SOURCE + ":4:")
        .hasMessageContaining("1024-bit RSA key");
  }

  static Stream<Arguments> rejections() {
    return Stream.of(
        Arguments.of(
            HEADER + SIGNER + "minSigner: 1\n",
            6,
            "unknown key \"minSigner\"",
            "perhaps you should use one of annotationDomain, apiVersion, directories, governance,"
                + " ignoreFields, keys, kind, minSigners, signers"),
        Arguments.of(
            HEADER + "signers:\n  - issuer: " + ISSUER + "\n    subjet: x\n",
            5,
            "unknown key \"signers.0.subjet\"",
            "perhaps you should use one of issuer, issuerRegExp, subject, subjectRegExp"),
        Arguments.of(
            HEADER
                + "signers:\n  - issuer: "
                + ISSUER
                + "\n    subjectRegExp: 'https://github.com/(acme'\n",
            5,
            "the regular expression \"https://github.com/(acme\" in \"subjectRegExp\" is invalid"
                + " (Unclosed group)",
            "perhaps you should escape special characters such as '.' and '?' with a backslash"),
        Arguments.of(
            HEADER + "signers:\n  - issuer: " + ISSUER + "\n",
            4,
            "\"subject\" (or \"subjectRegExp\") is required in signers[0]",
            null),
        Arguments.of("kind: TrustPolicy\n" + SIGNER, 1, "\"apiVersion\" is required", null),
        Arguments.of(
            HEADER.replace("v1alpha1", "v9"),
            1,
            "apiVersion \"countersign.dev/v9\" is not supported",
            "perhaps you should use countersign.dev/v1alpha1"),
        Arguments.of(
            HEADER + "minSigners: 1\n",
            1,
            "the trust policy names no signer: both \"signers\" and \"keys\" are empty",
            "perhaps you should add the signing workflow's identity under \"signers\""),
        Arguments.of(
            HEADER + SIGNER + "minSigners: 2\n",
            6,
            "\"minSigners\" is 2 but must be between 1 and the number of signers and keys (1)",
            null),
        Arguments.of(
            HEADER + SIGNER + "minSigners: two\n",
            6,
            "\"minSigners\" must be an integer, not a string",
            null),
        Arguments.of(
            HEADER + SIGNER + "directories:\n  - unsigned: ../outside\n    signed: signed\n",
            7,
            "\"../outside\" must be a path inside the repository",
            "perhaps you should write it relative to the repository root"),
        Arguments.of(
            HEADER + SIGNER + "governance:\n  policies: [.]\n",
            7,
            "\".\" is the repository root; name a file or directory inside it",
            "perhaps you should write the file or directory it means, relative to the repository"
                + " root"),
        Arguments.of(
            HEADER + SIGNER + "directories:\n  - unsigned: manifests/..\n    signed: signed\n",
            7,
            "\"manifests/..\" is the repository root; name a file or directory inside it",
            "perhaps you should write the file or directory it means, relative to the repository"
                + " root"),
        Arguments.of(
            HEADER + SIGNER + "keys:\n  - pem: not a key\n",
            7,
            "no \"-----BEGIN PUBLIC KEY-----\" block found (no PEM block)",
            "perhaps you should pass the public key file (cosign.pub), not the private key or a"
                + " certificate"),
        Arguments.of(
            HEADER + SIGNER + "governance:\n  policy: [p/]\n",
            7,
            "unknown key \"governance.policy\"",
            "perhaps you should use one of params, policies"),
        Arguments.of(
            HEADER + SIGNER + "signers: []\n",
            6,
            "the key \"signers\" appears twice",
            "perhaps you should remove one"),
        Arguments.of(
            HEADER.replace("TrustPolicy", "ClusterPolicy") + SIGNER,
            2,
            "kind \"ClusterPolicy\" is not supported",
            "perhaps you should use TrustPolicy"),
        Arguments.of(
            HEADER + SIGNER + "directories:\n  - unsigned: u\n    signed: s\n    sigend: t\n",
            9,
            "unknown key \"directories.0.sigend\"",
            "perhaps you should use one of signed, unsigned"),
        Arguments.of(
            HEADER + SIGNER + "keys:\n  - pem: x\n    paht: k.pub\n",
            8,
            "unknown key \"keys.0.paht\"",
            "perhaps you should use one of path, pem"),
        Arguments.of(
            HEADER + "signers:\n  - issuer: x\n    subject: ''\n",
            5,
            "\"subject\" is empty; an empty identity would accept any signer",
            null));
  }

  @ParameterizedTest
  @MethodSource("rejections")
  void parse_invalidPolicy_isRejectedWithFileLineAndFix(
      String yaml, int line, String what, String hint) {
    assertThatThrownBy(() -> loader.parse(SOURCE, yaml))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem -> {
              assertThat(problem.getMessage()).isEqualTo(SOURCE + ":" + line + ": " + what);
              assertThat(problem.hint()).isEqualTo(Optional.ofNullable(hint));
              assertThat(problem.file()).isEqualTo(SOURCE);
            });
  }

  @Test
  void load_throughALinkedDirectory_isRefusedNamingTheLink_notReadFromWhereItPoints(
      @TempDir Path elsewhere) throws Exception {
    Files.writeString(elsewhere.resolve("policy.yaml"), HEADER + SIGNER);
    Files.createSymbolicLink(repo.resolve(".countersign"), elsewhere);

    assertThatThrownBy(() -> loader.load(repo, SOURCE))
        .isInstanceOf(InputProblem.class)
        .satisfies(e -> assertThat(((InputProblem) e).file()).isEqualTo(Path.of(".countersign")))
        .hasMessageContaining("link");
  }

  @Test
  void toTrustPolicy_keyFileInALinkedDirectory_isRefusedNamingTheLink(@TempDir Path elsewhere)
      throws Exception {
    Files.writeString(elsewhere.resolve("cosign.pub"), pem(newEcKey()));
    Files.createSymbolicLink(repo.resolve("keys"), elsewhere);
    PolicyFile file = loader.parse(SOURCE, HEADER + "keys:\n  - path: keys/cosign.pub\n");

    assertThatThrownBy(() -> file.toTrustPolicy(repo))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("link");
  }

  @Test
  void control_load_policyAndKeyInPlainDirectories_areRead() throws Exception {
    Files.createDirectories(repo.resolve(".countersign"));
    Files.writeString(repo.resolve(".countersign/cosign.pub"), pem(newEcKey()));
    Files.writeString(repo.resolve(SOURCE), HEADER + "keys:\n  - path: .countersign/cosign.pub\n");

    assertThat(loader.load(repo, SOURCE).toTrustPolicy(repo).keys()).hasSize(1);
  }

  @Test
  void load_missingFile_isAUsageProblem() {
    assertThatThrownBy(() -> loader.load(repo, SOURCE))
        .isInstanceOf(UsageProblem.class)
        .hasMessage(
            "No trust policy found at .countersign/policy.yaml in the work tree while loading the"
                + " trust policy");
  }

  @Test
  void toTrustPolicy_missingKeyFile_namesPolicyLineAndKey() {
    PolicyFile file = loader.parse(SOURCE, HEADER + "keys:\n  - path: keys/cosign.pub\n");

    assertThatThrownBy(() -> file.toTrustPolicy(repo))
        .isInstanceOf(InputProblem.class)
        .hasMessage(
            SOURCE + ":4: cannot read the public key file keys/cosign.pub in the work tree");
  }

  private static PublicKey newEcKey() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair().getPublic();
  }

  private static String pem(PublicKey key) throws IOException {
    return "-----BEGIN PUBLIC KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded())
        + "\n-----END PUBLIC KEY-----\n";
  }
}
