package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.support.ExitCode;
import dev.countersign.support.MarkdownText;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code promote} with keyless signatures from the loopback Sigstore stack: the pull request table
 * names the certificate identity and the Rekor log index, and a source signed by an identity the
 * policy does not name is refused.
 */
@RequiresSigstoreStack
class PromoteCommandKeylessTest {

  private static final String TOKEN = "ghs_promoteKeylessTestToken012345";
  private static final String BOT = "countersign/promote-envs/prod/signed";

  private final SigstoreTestStack stack;
  @TempDir Path tmp;
  private GitFixture git;
  private FakeGitHub github;

  PromoteCommandKeylessTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void setUp() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    github = FakeGitHub.start(TOKEN);
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/app.yaml",
            signedKeyless(ActionPipelineTest.configMap("app", "v2"))),
        Set.of(),
        "staging");
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void keylessPromotion_listsIdentityAndLogIndex() throws Exception {
    CliRun run = promote(stack.identitySan());

    assertThat(run.exitCode()).as(run.all()).isZero();
    String body = github.hosted(273).orElseThrow().body();
    assertThat(body)
        .containsPattern(
            "\\| <code>envs/prod/signed/app.yaml</code> \\| added \\|"
                + " <code>sha256:[0-9a-f]{64}</code> \\| <code>"
                + Pattern.quote(MarkdownText.cell(stack.identitySan()))
                + "</code> \\| [0-9]+ \\|")
        .contains("--certificate-identity " + stack.identitySan())
        .contains("--certificate-oidc-issuer " + SigstoreTestStack.GITHUB_ISSUER);
    assertThat(git.originFiles(BOT)).containsKey("envs/prod/signed/app.yaml");
  }

  @Test
  void sourceSignedByAnotherIdentity_isRefused() throws Exception {
    CliRun run =
        promote(
            "https://github.com/octo-org/octo-repo/.github/workflows/other.yml@refs/heads/main");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.all()).contains("envs/staging/signed/app.yaml");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void identityRegexp_acceptsTheSignerItMatchesInFull() throws Exception {
    String workflowsOfThisRepository =
        Pattern.quote(
                stack.identitySan().substring(0, stack.identitySan().indexOf("/.github/") + 1))
            + "\\.github/workflows/[^/]+@refs/heads/main";

    CliRun run =
        promoteWith(
            "--certificate-identity-regexp",
            workflowsOfThisRepository,
            "--certificate-oidc-issuer",
            stack.identityIssuer());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles(BOT)).containsKey("envs/prod/signed/app.yaml");
  }

  @Test
  void identityRegexpMatchingOnlyPartOfTheSan_isRefused() throws Exception {
    // A regular expression is matched against the whole SAN: "workflows/" alone must not let
    // through a signer whose SAN merely contains it.
    CliRun run =
        promoteWith(
            "--certificate-identity-regexp",
            "workflows/",
            "--certificate-oidc-issuer",
            stack.identityIssuer());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void identityWithoutIssuer_isAUsageError_andProposesNothing() throws Exception {
    CliRun run = promoteWith("--certificate-identity", stack.identitySan());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("A keyless identity needs both a subject and an issuer");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
  }

  @Test
  void invalidIssuerRegexp_isAUsageErrorNamingTheOption() throws Exception {
    CliRun run =
        promoteWith(
            "--certificate-identity",
            stack.identitySan(),
            "--certificate-oidc-issuer-regexp",
            "https://(token");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("Invalid --certificate-oidc-issuer-regexp \"https://(token\"");
    assertThat(git.originHead(BOT)).isNull();
  }

  private CliRun promote(String identity) throws Exception {
    return promoteWith(
        "--certificate-identity", identity, "--certificate-oidc-issuer", stack.identityIssuer());
  }

  private CliRun promoteWith(String... signer) throws Exception {
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("GITHUB_TOKEN", TOKEN);
    List<String> args =
        new ArrayList<>(
            List.of(
                "promote",
                "--repo",
                git.clone("ws", 0, false).toString(),
                "--from",
                "envs/staging/signed",
                "--to",
                "envs/prod/signed",
                "--base",
                "main",
                "--trusted-root",
                stack.trustedRoot().toString()));
    args.addAll(List.of(signer));
    return CliRun.run(env, args.toArray(String[]::new));
  }

  private String signedKeyless(String manifest) throws IOException {
    Path file = tmp.resolve("seed/app.yaml");
    Files.createDirectories(file.getParent());
    Files.writeString(file, manifest);
    CliRun sign =
        CliRun.run(
            stack.githubEnv(),
            "sign",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            file.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }
}
