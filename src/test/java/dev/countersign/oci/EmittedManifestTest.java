package dev.countersign.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.UsageProblem;
import java.util.Optional;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class EmittedManifestTest {

  private static final String DIGEST = "sha256:" + "0f".repeat(32);
  private static final OciReference PINNED =
      OciReference.parse("ghcr.io/org/app-manifests@" + DIGEST, "--to");

  @Test
  void identityRegexesMatchExactlyTheLiteral() {
    String san = "https://github.com/org/repo/.github/workflows/sign.yml@refs/heads/main";
    String regex = EmittedManifest.exactRegex(san);
    assertThat(regex)
        .isEqualTo(
            "^https://github\\.com/org/repo/\\.github/workflows/sign\\.yml@refs/heads/main$");
    assertThat(Pattern.compile(regex).matcher(san).matches()).isTrue();
    assertThat(Pattern.compile(regex).matcher(san.replace("main", "mainX")).matches()).isFalse();
    assertThat(Pattern.compile(regex).matcher(san.replace("github.com", "githubXcom")).matches())
        .isFalse();
    assertThat(EmittedManifest.exactRegex("a+b(c)|[d]{1}^$\\?*"))
        .isEqualTo("^a\\+b\\(c\\)\\|\\[d\\]\\{1\\}\\^\\$\\\\\\?\\*$");
  }

  @Test
  void keyedFluxManifest_usesSecretRef_andIsStable() {
    EmittedManifest.Settings settings =
        new EmittedManifest.Settings(
            EmittedManifest.Kind.FLUX, "app", "flux-system", "5m", "app-cosign-pub");
    String text =
        EmittedManifest.render(
            settings,
            PINNED,
            false,
            new EmittedManifest.Signer("sha256:" + "aa".repeat(32), Optional.empty()));
    assertThat(text)
        .isEqualTo(
            EmittedManifest.render(
                settings,
                PINNED,
                false,
                new EmittedManifest.Signer("sha256:" + "aa".repeat(32), Optional.empty())));
    assertThat(text)
        .startsWith("# countersign publish \u2014 digest=" + DIGEST + " signer=sha256:aaaa")
        .contains("  url: oci://ghcr.io/org/app-manifests\n  ref:\n    digest: " + DIGEST + "\n")
        .contains("    provider: cosign\n    secretRef:\n      name: app-cosign-pub\n")
        .doesNotContain("insecure")
        .doesNotContain("\r")
        .endsWith("\n")
        .doesNotEndWith("\n\n");
  }

  @Test
  void referenceKind() {
    EmittedManifest.Settings settings =
        new EmittedManifest.Settings(
            EmittedManifest.Kind.REFERENCE, "app", "flux-system", "10m", "k");
    String text =
        EmittedManifest.render(
            settings,
            PINNED,
            false,
            new EmittedManifest.Signer("https://x/y", Optional.of("https://issuer")));
    assertThat(text)
        .isEqualTo(
            "# countersign publish \u2014 digest="
                + DIGEST
                + " signer=https://x/y\n"
                + "artifact: ghcr.io/org/app-manifests@"
                + DIGEST
                + "\n"
                + "url: oci://ghcr.io/org/app-manifests\n"
                + "digest: "
                + DIGEST
                + "\n"
                + "signature:\n"
                + "  format: cosign\n"
                + "  tag: sha256-"
                + "0f".repeat(32)
                + ".sig\n"
                + "  identity: https://x/y\n"
                + "  issuer: https://issuer\n");
  }

  @Test
  void hostileSignerText_cannotBreakTheHeaderOrTheYaml() {
    EmittedManifest.Settings settings =
        new EmittedManifest.Settings(EmittedManifest.Kind.REFERENCE, "app", "ns", "10m", "k");
    String text =
        EmittedManifest.render(
            settings,
            PINNED,
            false,
            new EmittedManifest.Signer("evil\nkind: Secret\u2028\"", Optional.of("yes")));
    assertThat(text.lines().filter(l -> l.startsWith("kind:"))).isEmpty();
    assertThat(text)
        .contains("signer=evil?kind: Secret?\"\n")
        .contains("  identity: \"evil\\nkind: Secret\\u2028\\\"\"\n")
        .contains("  issuer: \"yes\"\n");
  }

  @Test
  void namesAreCheckedAndDefaulted() {
    assertThat(
            EmittedManifest.defaultName(OciReference.parse("ghcr.io/org/app_manifests.v2", "--to")))
        .isEqualTo("app-manifests-v2");
    assertThatThrownBy(
            () ->
                EmittedManifest.check(
                    new EmittedManifest.Settings(
                        EmittedManifest.Kind.FLUX, "Bad_Name", "ns", "10m", "k")))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("--emit-name");
    assertThatThrownBy(
            () ->
                EmittedManifest.check(
                    new EmittedManifest.Settings(
                        EmittedManifest.Kind.FLUX, "a", "ns", "ten minutes", "k")))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("--emit-interval");
  }
}
