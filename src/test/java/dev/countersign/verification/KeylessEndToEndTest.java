package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.PrivateKeys;
import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.signing.KeylessOptions;
import dev.countersign.signing.SignatureMaterial;
import dev.countersign.signing.SigstoreKeylessSigner;
import dev.countersign.support.Env;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.SecureRandom;
import java.security.Signature;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole keyless path against the loopback Sigstore (real Fulcio-style certificates, a real
 * Rekor v1 log with SETs): sign with {@link SigstoreKeylessSigner}, write annotations with the
 * manifest format, read the file back, verify strictly with the stack's trusted_root.json.
 */
@RequiresSigstoreStack
class KeylessEndToEndTest {

  private static final String MANIFEST =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: settings
        namespace: shop
      data:
        mode: strict
      ---
      apiVersion: v1
      kind: Service
      metadata:
        name: web
        namespace: shop
      spec:
        ports:
        - port: 80
      """;

  private final SigstoreTestStack stack;

  @TempDir Path tmp;

  KeylessEndToEndTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  private Path signKeyless() throws Exception {
    Path input = Files.writeString(tmp.resolve("app.yaml"), MANIFEST);
    List<ManifestDocument> documents =
        FixtureManifests.READER.read(input, Path.of("app.yaml")).documents();
    byte[] message = FixtureManifests.FORMAT.message(documents);
    SignatureMaterial material;
    try (SigstoreKeylessSigner signer =
        new SigstoreKeylessSigner(
            KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig()),
            Env.of(stack.githubEnv()),
            Clock.systemUTC())) {
      material = signer.sign(message);
    }
    Map<String, String> annotations =
        FixtureManifests.FORMAT.annotations(
            message, 0, material.signature(), material.certificatePem(), material.rekorBundle());
    return Files.write(
        tmp.resolve("signed.yaml"),
        FixtureManifests.FORMAT.render(documents, annotations, false, List.of()));
  }

  private List<DocumentVerdict> verify(Path file, TrustedRoot root, TrustPolicy policy) {
    return new ManifestVerifier(root, policy, FixtureManifests.FORMAT)
        .verify(FixtureManifests.READER.read(file, file.getFileName()));
  }

  private TrustPolicy identity(String san, String issuer) {
    return new TrustPolicy(
        List.of(IdentityRule.exact(san, issuer)),
        List.of(),
        1,
        List.of(),
        AnnotationDomain.DEFAULT,
        false);
  }

  @Test
  void keylessSignedFile_verifiesForTheWorkflowIdentity_only() throws Exception {
    Path signed = signKeyless();
    TrustedRoot root = TrustedRoot.fromFile(stack.trustedRoot());

    List<DocumentVerdict> verdicts =
        verify(signed, root, identity(stack.identitySan(), stack.identityIssuer()));
    assertThat(verdicts)
        .hasSize(2)
        .allSatisfy(
            v -> {
              assertThat(v.passed()).as(v.reason()).isTrue();
              assertThat(v.signers()).containsExactly(stack.identitySan());
            });

    List<DocumentVerdict> otherRepo =
        verify(
            signed,
            root,
            identity(
                "https://github.com/evil/repo/.github/workflows/release.yml@refs/heads/main",
                stack.identityIssuer()));
    assertThat(otherRepo)
        .allSatisfy(
            v -> {
              assertThat(v.passed()).isFalse();
              assertThat(v.reason())
                  .contains("certificate SAN " + stack.identitySan())
                  .contains("does not match the allowed identities");
            });

    List<DocumentVerdict> otherIssuer =
        verify(signed, root, identity(stack.identitySan(), "https://accounts.google.com"));
    assertThat(otherIssuer).allSatisfy(v -> assertThat(v.passed()).isFalse());
  }

  @Test
  void keylessSignedFile_againstThePublicGoodRoot_isRejectedForItsUnknownLog() throws Exception {
    Path signed = signKeyless();
    TrustedRoot publicGood = ManifestVerifierTest.publicGood();

    DocumentVerdict verdict =
        verify(signed, publicGood, identity(stack.identitySan(), stack.identityIssuer())).get(0);
    assertThat(verdict.passed()).isFalse();
    assertThat(verdict.reason())
        .matches(
            "signature set 0: bundle logID [0-9a-f]{64} is not a transparency log in the trusted"
                + " root");
  }

  @Test
  void appendedKeyedSignature_countsAsSecondDistinctSigner() throws Exception {
    Path signed = signKeyless();
    List<ManifestDocument> documents =
        FixtureManifests.READER.read(signed, Path.of("signed.yaml")).documents();
    byte[] message = FixtureManifests.FORMAT.decode(documents.get(0)).orElseThrow().message();
    KeyPair reviewer = PrivateKeys.generate(new SecureRandom());
    Signature ecdsa = Signature.getInstance("SHA256withECDSA");
    ecdsa.initSign(reviewer.getPrivate());
    ecdsa.update(message);
    int next = FixtureManifests.FORMAT.existingSignatureSets(documents.get(0));
    Map<String, String> second =
        FixtureManifests.FORMAT.annotations(
            message, next, ecdsa.sign(), Optional.empty(), Optional.empty());
    Path both =
        Files.write(
            tmp.resolve("both.yaml"),
            FixtureManifests.FORMAT.render(documents, second, true, List.of()));
    assertThat(next).isEqualTo(1);

    TrustPolicy twoOfThem =
        new TrustPolicy(
            List.of(IdentityRule.exact(stack.identitySan(), stack.identityIssuer())),
            List.of(reviewer.getPublic()),
            2,
            List.of(),
            AnnotationDomain.DEFAULT,
            false);
    List<DocumentVerdict> verdicts =
        verify(both, TrustedRoot.fromFile(stack.trustedRoot()), twoOfThem);
    assertThat(verdicts)
        .allSatisfy(
            v -> {
              assertThat(v.passed()).as(v.reason()).isTrue();
              assertThat(v.signers())
                  .containsExactly(
                      stack.identitySan(), PublicKeys.fingerprint(reviewer.getPublic()));
            });
  }
}
