package dev.countersign.promotion;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PromotionBodyTest {

  private static final String WORKFLOW =
      "https://github.com/acme/deploy/.github/workflows/sign.yml@refs/heads/main";

  /** {@link #WORKFLOW} as a table cell shows it: text, not an autolink or a mention. */
  private static final String WORKFLOW_IN_MARKDOWN =
      "https\\://github.com/acme/deploy/.github/workflows/sign.yml\\@refs/heads/main";

  private static final String DIGEST_A = "sha256:" + "a".repeat(64);
  private static final String DIGEST_B = "sha256:" + "0123456789abcdef".repeat(4);

  @Test
  void render_mixedChanges_isTableSortedByPathWithVerifyCommand() {
    PromotionPlan plan =
        PromotionPlan.of(
            FileChange.removed("deploy/signed/old.yaml"),
            FileChange.changed("deploy/signed/api.yaml", DIGEST_B, WORKFLOW, 1234567L),
            FileChange.added("deploy/signed/web/ingress.yaml", DIGEST_A, WORKFLOW, 42L));

    String body = PromotionBody.render(plan, "deploy/signed");

    assertThat(body)
        .isEqualTo(
            "<!-- countersign:promotion -->\n"
                + "This pull request promotes signed manifests (1 added, 1 changed, 1 removed).\n"
                + "\n"
                + "| File | Change | Message digest | Signer | Rekor log index |\n"
                + "| --- | --- | --- | --- | --- |\n"
                + "| <code>deploy/signed/api.yaml</code> | changed | <code>"
                + DIGEST_B
                + "</code> | <code>"
                + WORKFLOW_IN_MARKDOWN
                + "</code> | 1234567 |\n"
                + "| <code>deploy/signed/old.yaml</code> | removed | - | - | - |\n"
                + "| <code>deploy/signed/web/ingress.yaml</code> | added | <code>"
                + DIGEST_A
                + "</code> | <code>"
                + WORKFLOW_IN_MARKDOWN
                + "</code> | 42 |\n"
                + "\n"
                + "To verify the signatures locally before merging:\n"
                + "\n"
                + "```sh\n"
                + "countersign verify deploy/signed --certificate-identity "
                + WORKFLOW
                + " --certificate-oidc-issuer https://token.actions.githubusercontent.com\n"
                + "```\n");
  }

  @Test
  void render_samePlanInAnyInputOrder_isByteIdentical() {
    FileChange a = FileChange.added("signed/a.yaml", DIGEST_A, WORKFLOW, 1L);
    FileChange b = FileChange.changed("signed/b.yaml", DIGEST_B, WORKFLOW, 2L);
    FileChange c = FileChange.removed("signed/c.yaml");

    byte[] first =
        PromotionBody.render(PromotionPlan.of(c, a, b), "signed").getBytes(StandardCharsets.UTF_8);
    byte[] second =
        PromotionBody.render(PromotionPlan.of(b, c, a), "signed").getBytes(StandardCharsets.UTF_8);

    assertThat(first).isEqualTo(second);
    assertThat(PromotionPlan.of(c, a, b)).isEqualTo(PromotionPlan.of(a, b, c));
  }

  @Test
  void render_pipesAndQuotes_areEscapedForTableAndShell() {
    String oddSigner = "it's | me";
    PromotionPlan plan =
        PromotionPlan.of(FileChange.added("signed/a|b.yaml", DIGEST_A, oddSigner, 7L));

    String body = PromotionBody.render(plan, "my dir");

    assertThat(body)
        .contains(
            "| <code>signed/a\\|b.yaml</code> | added | <code>"
                + DIGEST_A
                + "</code> | <code>it's \\| me</code> | 7 |\n")
        .contains("countersign verify 'my dir' --certificate-identity 'it'\\''s | me' ");
  }

  @Test
  void render_twoSigners_givesOneCommandPerSigner() {
    PromotionPlan plan =
        PromotionPlan.of(
            FileChange.added("signed/a.yaml", DIGEST_A, "https://b.example/wf", 1L),
            FileChange.added("signed/b.yaml", DIGEST_B, "https://a.example/wf", 2L));

    String body = PromotionBody.render(plan, "signed");

    assertThat(body)
        .contains("The files were signed by different identities; verify each with:\n")
        .contains(
            "countersign verify signed --certificate-identity https://a.example/wf"
                + " --certificate-oidc-issuer https://token.actions.githubusercontent.com\n"
                + "countersign verify signed --certificate-identity https://b.example/wf");
  }

  @Test
  void render_onlyRemovals_hasNoVerifyCommand() {
    String body =
        PromotionBody.render(PromotionPlan.of(FileChange.removed("signed/x.yaml")), "signed");

    assertThat(body).contains("(1 removed)").doesNotContain("countersign verify");
  }

  @Test
  void render_emptyPlan_saysNothingToPromote() {
    assertThat(PromotionBody.render(new PromotionPlan(List.of()), "signed"))
        .isEqualTo(
            "<!-- countersign:promotion -->\n"
                + "Nothing to promote: no signed manifest differs from the base branch.\n");
  }

  @Test
  void isPromotionBody_recognisesOurMarkerOnly() {
    assertThat(PromotionBody.isPromotionBody(PromotionBody.render(PromotionPlan.of(), "signed")))
        .isTrue();
    assertThat(PromotionBody.isPromotionBody("Bump deps\n" + PromotionBody.MARKER)).isFalse();
    assertThat(PromotionBody.isPromotionBody(null)).isFalse();
  }

  @Test
  void plan_samePathTwice_isRefused() {
    assertThatThrownBy(
            () ->
                PromotionPlan.of(
                    FileChange.removed("signed/a.yaml"), FileChange.removed("signed/a.yaml")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("path listed twice in a promotion: signed/a.yaml");
  }

  @Test
  void fileChange_badDigestOrUnsignedAddition_isRefused() {
    assertThatThrownBy(() -> FileChange.added("signed/a.yaml", "sha256:ABC", WORKFLOW, 1L))
        .hasMessage("message digest must be sha256:<64 lowercase hex>: sha256:ABC");
    assertThatThrownBy(() -> FileChange.added("C:\\signed\\a.yaml", DIGEST_A, WORKFLOW, 1L))
        .hasMessageStartingWith("path must be repository-relative");
  }

  @Test
  void plan_signers_areDistinctAndSorted() {
    PromotionPlan plan =
        PromotionPlan.of(
            FileChange.added("a", DIGEST_A, "z", 1L),
            FileChange.added("b", DIGEST_A, "m", 2L),
            FileChange.added("c", DIGEST_A, "z", 3L),
            FileChange.removed("d"));

    assertThat(plan.signers()).containsExactly("m", "z");
  }

  @Test
  void keyFingerprintSigner_getsAKeyVerifyCommand_notAnIdentityOne() {
    String fingerprint = "sha256:" + "12".repeat(32);
    String body =
        PromotionBody.render(
            new PromotionPlan(
                java.util.List.of(
                    new FileChange(
                        "prod/a.yaml",
                        FileChange.Change.ADDED,
                        java.util.Optional.of(DIGEST_A),
                        java.util.Optional.of(fingerprint),
                        java.util.OptionalLong.empty()))),
            "prod");

    assertThat(body)
        .contains(
            "| <code>prod/a.yaml</code> | added | <code>"
                + DIGEST_A
                + "</code> | <code>"
                + fingerprint
                + "</code> | - |")
        .contains("countersign verify prod --key cosign.pub  # the public key " + fingerprint)
        .doesNotContain("--certificate-identity");
  }
}
