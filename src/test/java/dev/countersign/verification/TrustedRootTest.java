package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TrustedRootTest {

  @TempDir Path tmp;

  @Test
  void publicGood_hasRekorKeyByLogId_andBothFulcioAuthorities() {
    TrustedRoot root =
        TrustedRoot.fromFile(
            ManifestVerifierTest.resource("sigstore/trusted_root_public_good.json"));

    var rekor = root.log("c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d");
    assertThat(rekor).isPresent();
    assertThat(rekor.get().baseUrl()).isEqualTo("https://rekor.sigstore.dev");
    assertThat(rekor.get().validAt(Instant.parse("2022-06-17T07:55:19Z"))).isTrue();
    assertThat(rekor.get().validAt(Instant.parse("2020-01-01T00:00:00Z"))).isFalse();
    assertThat(
            root.log(
                "00"
                    + "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b95918".substring(2)))
        .isEmpty();

    assertThat(root.certificateAuthorities()).hasSize(2);
    var legacy = root.certificateAuthorities().get(0);
    assertThat(legacy.validAt(Instant.parse("2022-06-17T07:55:19Z"))).isTrue();
    assertThat(legacy.validAt(Instant.parse("2023-06-17T07:55:19Z"))).isFalse();
    assertThat(root.certificateAuthorities().get(1).chain()).hasSize(2);
    assertThat(root.certificateAuthorities().get(1).root().getSubjectX500Principal().getName())
        .contains("CN=sigstore");
  }

  @Test
  void testStackRoot_parses_withLogIdFromItsKey() {
    TrustedRoot root =
        TrustedRoot.fromFile(ManifestVerifierTest.resource("test-stack/trusted_root.json"));

    assertThat(root.logs()).hasSize(1);
    var log = root.logs().get(0);
    assertThat(log.logId()).isEqualTo(TrustedRoot.logIdOf(log.key())).hasSize(64);
    assertThat(log.baseUrl()).startsWith("http://127.0.0.1:");
    assertThat(root.certificateAuthorities()).hasSize(1);
  }

  @Test
  void missingFile_isUsageProblem_andGarbage_isInputProblemNamingFile() throws Exception {
    assertThatThrownBy(() -> TrustedRoot.fromFile(tmp.resolve("nope.json")))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("nope.json");
    Path garbage = Files.writeString(tmp.resolve("root.json"), "{\"tlogs\": 5}");
    assertThatThrownBy(() -> TrustedRoot.fromFile(garbage))
        .isInstanceOf(InputProblem.class)
        .hasMessageContaining("root.json")
        .hasMessageContaining("not a Sigstore trusted root");
  }
}
