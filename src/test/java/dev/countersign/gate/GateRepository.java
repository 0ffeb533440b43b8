package dev.countersign.gate;

import dev.countersign.keys.KeyPairFiles;
import dev.countersign.keys.PrivateKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.signing.KeyMessageSigner;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.Parallelism;
import dev.countersign.signing.SignJob;
import dev.countersign.signing.SignProgress;
import dev.countersign.signing.SignRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A pull request's work tree for gate tests: a real key pair (private key outside the work tree,
 * public key committed as {@code .countersign/cosign.pub}), a trust policy naming that key and the
 * governance policies {@code deny-allow-all-ingress} and {@code require-team-label}, and manifests
 * under {@code signed/} signed for real by {@link SignJob}.
 */
public final class GateRepository {

  public static final String POLICY =
      """
      apiVersion: countersign.dev/v1alpha1
      kind: TrustPolicy
      keys:
        - path: .countersign/cosign.pub
      directories:
        - unsigned: unsigned
          signed: signed
      governance:
        policies: [policies]
      """;

  public static final String CONFIG_MAP =
      """
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: app-config
        namespace: shop
      data:
        greeting: hello
        mode: production
      """;

  /** A reviewed deny-all policy: no ingress to any pod of the shop namespace. */
  public static final String DEFAULT_DENY =
      """
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      metadata:
        name: default-deny
        namespace: shop
      spec:
        podSelector: {}
        policyTypes: [Ingress]
      """;

  /** Violates the repository's deny-allow-all-ingress governance rule. */
  public static final String ALLOW_ALL_INGRESS =
      """
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      metadata:
        name: allow-all
        namespace: shop
      spec:
        podSelector: {}
        ingress:
        - {}
      """;

  public static final String DEPLOYMENT =
      """
      apiVersion: apps/v1
      kind: Deployment
      metadata:
        name: api
        namespace: shop
        labels:
          app: api
          team: payments
      spec:
        replicas: 2
        template:
          spec:
            containers:
            - name: app
              image: registry.example/api:1.4.2
      """;

  private final Path root;
  private final Path staging;
  private final Supplier<MessageSigner> signer;

  private GateRepository(Path root, Path staging, Supplier<MessageSigner> signer) {
    this.root = root;
    this.staging = staging;
    this.signer = signer;
  }

  /**
   * Sets up {@code root} as a repository whose main branch holds two signed manifests ({@code
   * signed/app/config.yaml}, {@code signed/app/deployment.yaml}); {@code scratch} holds the private
   * key and the signer's staging files.
   */
  public static GateRepository create(Path root, Path scratch) {
    char[] password = "correct horse".toCharArray();
    Path privateKeyFile = scratch.resolve("cosign.key");
    PublicKey publicKey =
        KeyPairFiles.generate(
            privateKeyFile, root.resolve(".countersign/cosign.pub"), password, new SecureRandom());
    PrivateKey privateKey = PrivateKeys.read(privateKeyFile, password);
    GateRepository repository =
        new GateRepository(
            root, scratch.resolve("staging"), () -> new KeyMessageSigner(privateKey, publicKey));
    repository.write(".countersign/policy.yaml", POLICY);
    repository.populate();
    return repository;
  }

  /**
   * Like {@link #create} for keyless signing: the policy names the keyless signer {@code subject} /
   * {@code issuer}, and {@code signer} signs the manifests.
   */
  public static GateRepository createKeyless(
      Path root, Path scratch, Supplier<MessageSigner> signer, String subject, String issuer) {
    GateRepository repository = new GateRepository(root, scratch.resolve("staging"), signer);
    repository.write(
        ".countersign/policy.yaml",
        POLICY.replace(
            "keys:\n  - path: .countersign/cosign.pub\n",
            "signers:\n  - issuer: " + issuer + "\n    subject: " + subject + "\n"));
    repository.populate();
    return repository;
  }

  private void populate() {
    GateRepository repository = this;
    repository.copyResource(
        "/governance/policies/deny-allow-all-ingress.yaml", "policies/deny-allow-all-ingress.yaml");
    repository.copyResource(
        "/governance/policies/require-team-label.yaml", "policies/require-team-label.yaml");
    repository.sign("app/config.yaml", CONFIG_MAP);
    repository.sign("app/deployment.yaml", DEPLOYMENT);
  }

  public Path root() {
    return root;
  }

  /** Writes {@code content} to {@code relative} below the work tree. */
  public Path write(String relative, String content) {
    return write(relative, content.getBytes(StandardCharsets.UTF_8));
  }

  public Path write(String relative, byte[] content) {
    Path file = root.resolve(relative);
    try {
      Files.createDirectories(file.getParent());
      Files.write(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return file;
  }

  public String read(String relative) {
    try {
      return Files.readString(root.resolve(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * What the signing workflow does after merge: signs {@code content} into {@code
   * signed/<relative>}.
   */
  public Path sign(String relative, String content) {
    Path input = staging.resolve(relative);
    try {
      Files.createDirectories(input.getParent());
      Files.writeString(input, content, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ManifestReader reader = new ManifestReader();
    SignJob job =
        new SignJob(
            reader,
            new SignedManifestFormat(AnnotationDomain.DEFAULT, reader),
            signer,
            (kept, message) -> false,
            SignProgress.NONE);
    job.run(
        new SignRequest(
            List.of(staging),
            Optional.of(root.resolve("signed")),
            true,
            false,
            false,
            Parallelism.of(1)));
    return root.resolve("signed").resolve(relative);
  }

  /** The 1-based line of the first line of {@code relative} that contains {@code text}. */
  public int lineOf(String relative, String text) {
    List<String> lines = read(relative).lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).contains(text)) {
        return i + 1;
      }
    }
    throw new AssertionError(text + " not found in " + relative);
  }

  private void copyResource(String resource, String relative) {
    try (InputStream in = GateRepository.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new AssertionError("missing test resource " + resource);
      }
      write(relative, in.readAllBytes());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
