package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.keys.PublicKeys;
import dev.countersign.manifest.AnnotationDomain;
import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.support.ExitCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code verify --key} trusts only keys nobody can break: a manifest signed with a weak RSA key
 * (whose private half anyone can recover by factoring) does not carry the trusted signature.
 */
class TrustedKeyStrengthTest {

  private static final String CONFIG_MAP =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flags\ndata:\n  debug: \"false\"\n";

  @TempDir Path dir;

  /** Signs CONFIG_MAP with an RSA key of {@code bits}, as any tool can; returns the .pub path. */
  private Path signWithRsa(int bits) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(bits);
    KeyPair pair = generator.generateKeyPair();
    ManifestReader reader = new ManifestReader();
    SignedManifestFormat format = new SignedManifestFormat(AnnotationDomain.DEFAULT, reader);
    Path input = Files.writeString(dir.resolve("input.yaml"), CONFIG_MAP);
    List<ManifestDocument> documents = reader.read(input, Path.of("input.yaml")).documents();
    byte[] message = format.message(documents);
    Signature rsa = Signature.getInstance("SHA256withRSA");
    rsa.initSign(pair.getPrivate());
    rsa.update(message);
    Map<String, String> annotations =
        format.annotations(message, 0, rsa.sign(), Optional.empty(), Optional.empty());
    Files.write(
        dir.resolve("signed.yaml"), format.render(documents, annotations, false, List.of()));
    return Files.writeString(
        dir.resolve("rsa" + bits + ".pub"),
        PublicKeys.toPem(pair.getPublic()),
        StandardCharsets.US_ASCII);
  }

  private CliRun verify(Path publicKey) {
    return CliRun.run(
        Map.of(), "verify", "--key", publicKey.toString(), dir.resolve("signed.yaml").toString());
  }

  @Test
  void rsa2048Signature_verifies() throws Exception {
    CliRun run = verify(signWithRsa(2048));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("PASS", "1 verified, 0 rejected");
  }

  @Test
  void rsa1024Key_isNotTrusted_soItsSignatureNeverPasses() throws Exception {
    CliRun run = verify(signWithRsa(1024));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out()).doesNotContain("PASS");
    assertThat(run.err()).contains("rsa1024.pub", "1024-bit RSA key", "2048 to 4096 bits");
  }
}
