package dev.countersign.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.UsageProblem;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OciReferenceTest {

  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  @Test
  void parsesRegistryRepositoryTagAndDigest() {
    OciReference r = OciReference.parse("GHCR.io/org/manifests:v1.2", "--to");
    assertThat(r)
        .isEqualTo(
            new OciReference("ghcr.io", "org/manifests", Optional.of("v1.2"), Optional.empty()));
  }

  @Test
  void repositoryMustBeLowercase_asTheDistributionSpecSays() {
    assertThatThrownBy(() -> OciReference.parse("ghcr.io/Org/manifests", "--to"))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("is not a repository name");
  }

  @Test
  void portAndDigest() {
    OciReference r = OciReference.parse("127.0.0.1:5000/team/app@" + DIGEST, "--oci");
    assertThat(r.registry()).isEqualTo("127.0.0.1:5000");
    assertThat(r.repository()).isEqualTo("team/app");
    assertThat(r.digest()).hasValue(DIGEST);
    assertThat(r.host()).isEqualTo("127.0.0.1");
    assertThat(r.isLoopback()).isTrue();
    assertThat(r.toString()).isEqualTo("127.0.0.1:5000/team/app@" + DIGEST);
  }

  @ParameterizedTest
  @ValueSource(strings = {"localhost:5000/a", "127.0.0.1/a", "127.1.2.3:80/a", "[::1]:5000/a"})
  void loopbackRegistries(String text) {
    assertThat(OciReference.parse(text, "--to").isLoopback()).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ghcr.io/a",
        "registry.example.com:5000/a",
        "10.0.0.1/a",
        "abc/a",
        "localhost.evil.com/a",
        "[::2]/a"
      })
  void notLoopback(String text) {
    assertThat(OciReference.parse(text, "--to").isLoopback()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "manifests",
        "/a",
        "ghcr.io/",
        "ghcr.io/a/../b",
        "ghcr.io/a b",
        "ghcr.io/a:bad tag",
        "ghcr.io/a@sha256:xyz",
        "ghcr.io/a@sha512:" + "ab",
        "gh\ncr.io/a",
        "ghcr.io:99999/a",
        "ghcr.io/a:" + "t"
      })
  void rejectsMalformedReferences(String text) {
    if (text.equals("ghcr.io/a:t")) {
      assertThat(OciReference.parse(text, "--to").tag()).hasValue("t");
      return;
    }
    assertThatThrownBy(() -> OciReference.parse(text, "--to"))
        .isInstanceOf(UsageProblem.class)
        .hasMessageStartingWith("Invalid --to");
  }
}
