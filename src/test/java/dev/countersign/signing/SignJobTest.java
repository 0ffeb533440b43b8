package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sidecar bundle JSON is kept exactly when asked for, and signing is otherwise unchanged. */
class SignJobTest {

  @TempDir Path dir;

  private final ManifestReader reader = new ManifestReader();
  private final SignedManifestFormat format =
      new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);
  private MessageSigner signer;

  /** A real key signer whose material also carries a (stand-in) Sigstore bundle JSON. */
  private static final class BundleProducingSigner implements MessageSigner {
    private final KeyMessageSigner keyed;

    BundleProducingSigner(KeyMessageSigner keyed) {
      this.keyed = keyed;
    }

    @Override
    public SignatureMaterial sign(byte[] message) {
      SignatureMaterial m = keyed.sign(message);
      return new SignatureMaterial(
          m.signature(),
          m.certificatePem(),
          m.rekorBundle(),
          Optional.of("{\"mediaType\":\"bundle for " + message.length + " bytes\"}"),
          m.signer());
    }

    @Override
    public String signerDescription() {
      return keyed.signerDescription();
    }

    @Override
    public SignerIdentity identity() {
      return keyed.identity();
    }
  }

  @BeforeEach
  void setUp() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = generator.generateKeyPair();
    signer = new BundleProducingSigner(new KeyMessageSigner(pair.getPrivate(), pair.getPublic()));
    for (int i = 0; i < 3; i++) {
      Files.writeString(
          dir.resolve("cm" + i + ".yaml"),
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm"
              + i
              + "\ndata:\n  k: v"
              + i
              + "\n");
    }
  }

  private List<SignJob.Item> items() {
    return List.of(0, 1, 2).stream()
        .map(
            i -> {
              Path file = dir.resolve("cm" + i + ".yaml");
              return new SignJob.Item(
                  reader.read(file, file),
                  dir.resolve("out/cm" + i + ".yaml"),
                  Optional.empty(),
                  true);
            })
        .toList();
  }

  @Test
  void sign_withoutSidecars_dropsTheBundleJsonButSignsEveryItem() {
    List<SignJob.Outcome> outcomes =
        new SignJob(reader, format, () -> signer, SignProgress.NONE).sign(items(), false, 2, false);

    assertThat(outcomes).hasSize(3);
    assertThat(outcomes)
        .allSatisfy(
            o -> {
              assertThat(o.sidecarJson()).isEmpty();
              assertThat(o.signedBytes()).isPresent();
              assertThat(o.entry().signer()).contains(signer.signerDescription());
              assertThat(new String(o.signedBytes().get(), StandardCharsets.UTF_8))
                  .contains("cosign.sigstore.dev/signature:");
            });
  }

  @Test
  void sign_withSidecars_keepsEachSignaturesBundleJson() {
    List<SignJob.Outcome> outcomes =
        new SignJob(reader, format, () -> signer, SignProgress.NONE).sign(items(), false, 2);

    assertThat(outcomes)
        .allSatisfy(
            o ->
                assertThat(o.sidecarJson())
                    .hasValueSatisfying(json -> assertThat(json).startsWith("{\"mediaType\"")));
  }

  @Test
  void run_bundleSidecar_writesTheSidecarNextToTheSignedFile() throws Exception {
    SignReport report =
        new SignJob(reader, format, () -> signer, SignProgress.NONE)
            .run(
                new SignRequest(
                    List.of(dir.resolve("cm0.yaml")),
                    Optional.of(dir.resolve("out")),
                    false,
                    false,
                    true,
                    1));

    assertThat(report.signedCount()).isEqualTo(1);
    assertThat(Files.readString(dir.resolve("out/cm0.yaml.sigstore.json")))
        .startsWith("{\"mediaType\"");
  }
}
