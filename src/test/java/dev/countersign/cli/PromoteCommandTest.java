package dev.countersign.cli;

import static com.github.tomakehurst.wiremock.client.WireMock.anyUrl;
import static com.github.tomakehurst.wiremock.client.WireMock.patchRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.git.GitFixture;
import dev.countersign.github.FakeGitHub;
import dev.countersign.keys.KeyPairFiles;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.HostedPullRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code countersign promote} on a bare origin and the WireMock GitHub: verification of every
 * source file first, byte-for-byte copies that still verify under their new path, removals, and the
 * create-then-noop pull request.
 */
class PromoteCommandTest {

  private static final String TOKEN = "ghs_promoteCommandTestToken01234";
  private static final String PASSWORD = "promote-test";
  private static final String BOT = "countersign/promote-envs/prod/signed";

  @TempDir Path tmp;
  private GitFixture git;
  private FakeGitHub github;
  private Path privateKey;
  private Path publicKey;
  private String stagingApp;
  private String stagingFlags;

  @BeforeEach
  void setUp() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    github = FakeGitHub.start(TOKEN);
    privateKey = tmp.resolve("keys/cosign.key");
    publicKey = tmp.resolve("keys/cosign.pub");
    Files.createDirectories(privateKey.getParent());
    KeyPairFiles.generate(privateKey, publicKey, PASSWORD.toCharArray(), new SecureRandom());
    stagingApp = signed("app.yaml", ActionPipelineTest.configMap("app", "v2"));
    stagingFlags = signed("flags.yaml", ActionPipelineTest.configMap("flags", "on"));
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/app.yaml",
            stagingApp,
            "envs/staging/signed/flags.yaml",
            stagingFlags,
            "envs/prod/signed/app.yaml",
            signed("app.yaml", ActionPipelineTest.configMap("app", "v1")),
            "envs/prod/signed/retired.yaml",
            signed("retired.yaml", ActionPipelineTest.configMap("retired", "x")),
            "envs/prod/signed/README.md",
            "not a manifest\n",
            ".countersign/cosign.pub",
            Files.readString(publicKey),
            ".countersign/policy.yaml",
            "apiVersion: countersign.dev/v1alpha1\n"
                + "kind: TrustPolicy\n"
                + "keys:\n"
                + "  - path: .countersign/cosign.pub\n"),
        Set.of(),
        "environments");
  }

  @AfterEach
  void tearDown() {
    github.close();
  }

  @Test
  void promotionByThePolicyToADirectoryItNamesNoPairFor_warnsThatCheckNeverVerifiesIt()
      throws Exception {
    // The policy on main names only unsigned/ and signed/ (its default), so no pull request that
    // changes envs/prod/signed is verified by check: what lands there is gated by review alone.
    CliRun run = promote(git.clone("ws", 0, false));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(run.all())
        .contains(
            "--to envs/prod/signed/ is not a signed directory of the trust policy on main"
                + " (signed), so check verifies no pull request that changes it");
  }

  @Test
  void control_promotionByThePolicyToADirectoryItNamesAPairFor_warnsNothingOfTheKind()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            ".countersign/policy.yaml",
            policyTrusting()
                + "directories:\n"
                + "  - unsigned: envs/staging/unsigned\n    signed: envs/staging/signed\n"
                + "  - unsigned: envs/prod/unsigned\n    signed: envs/prod/signed\n"),
        Set.of(),
        "both environments are gated");

    CliRun run = promote(git.clone("ws", 0, false));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(run.all()).doesNotContain("is not a signed directory of the trust policy");
  }

  @Test
  void validPromotion_opensThePullRequest_andTheCopiesVerifyUnderTheirNewPath() throws Exception {
    String mainHead = git.originHead("main");

    CliRun run =
        promote(git.clone("ws", 0, false), "--key", publicKey.toString(), "--label", "promotion");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(git.originHead("main")).isEqualTo(mainHead);
    SortedMap<String, String> onBranch = git.originFiles(BOT);
    assertThat(onBranch.get("envs/prod/signed/app.yaml")).isEqualTo(stagingApp);
    assertThat(onBranch.get("envs/prod/signed/flags.yaml")).isEqualTo(stagingFlags);
    assertThat(onBranch)
        .doesNotContainKey("envs/prod/signed/retired.yaml")
        .containsKey("envs/prod/signed/README.md");
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);

    HostedPullRequest pr = github.hosted(273).orElseThrow();
    assertThat(pr.head()).isEqualTo(BOT);
    assertThat(pr.title())
        .isEqualTo("countersign: promote envs/staging/signed to envs/prod/signed");
    assertThat(pr.labels()).containsExactly("promotion");
    assertThat(pr.body())
        .containsPattern(
            "\\| <code>envs/prod/signed/app.yaml</code> \\| changed \\|"
                + " <code>sha256:[0-9a-f]{64}</code> \\| <code>sha256:[0-9a-f]{64}</code> \\| -"
                + " \\|")
        .containsPattern("\\| <code>envs/prod/signed/flags.yaml</code> \\| added \\| <code>sha256:")
        .contains("| <code>envs/prod/signed/retired.yaml</code> | removed | - | - | - |")
        .contains("countersign verify envs/prod/signed --key");

    // The promoted files verify with `countersign verify` under their new path.
    Path checkout = tmp.resolve("checkout");
    for (Map.Entry<String, String> f : onBranch.entrySet()) {
      Path p = checkout.resolve(f.getKey());
      Files.createDirectories(p.getParent());
      Files.writeString(p, f.getValue());
    }
    CliRun verify =
        CliRun.run(
            Map.of(),
            "verify",
            "--key",
            publicKey.toString(),
            checkout.resolve("envs/prod/signed").toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
    assertThat(verify.out()).contains("2 verified, 0 rejected");

    // Run again: the bot branch already holds it; nothing is pushed or edited.
    String tip = git.originHead(BOT);
    github.server().resetRequests();
    CliRun again =
        promote(git.clone("ws2", 0, false), "--key", publicKey.toString(), "--label", "promotion");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("result: noop");
    assertThat(git.originHead(BOT)).isEqualTo(tip);
    github.server().verify(0, patchRequestedFor(anyUrl()));
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void filesABranchPusherAddedOutsideTheTarget_areDroppedFromTheBotBranch() throws Exception {
    String mainHead = git.originHead("main");
    CliRun first = promote(git.clone("ws", 0, false), "--key", publicKey.toString());
    assertThat(first.exitCode()).as(first.all()).isZero();
    SortedMap<String, String> proposed = git.originFiles(BOT);
    // A branch pusher leaves envs/prod/signed alone and adds files the body never lists.
    git.commitToOrigin(
        BOT,
        Map.of(
            "envs/prod/unsigned/evil.yaml", ActionPipelineTest.configMap("evil", "1"),
            ".countersign/policy.yaml", "kind: TrustPolicy\n",
            ".github/workflows/x.yml", "on: push\n"),
        Set.of(),
        "planted");

    CliRun again = promote(git.clone("ws2", 0, false), "--key", publicKey.toString());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("result: updated").doesNotContain("is up to date");
    assertThat(git.originFiles(BOT)).isEqualTo(proposed);
    assertThat(git.originCommit(BOT).getParent(0).getName()).isEqualTo(mainHead);
    assertThat(git.originCommitCount(BOT)).isEqualTo(git.originCommitCount("main") + 1);
    assertThat(github.hosted(273).orElseThrow().open()).isTrue();
  }

  @Test
  void aNonManifestFileABranchPusherEditedInTheTarget_isRestoredOnTheBotBranch() throws Exception {
    CliRun first = promote(git.clone("ws", 0, false), "--key", publicKey.toString());
    assertThat(first.exitCode()).as(first.all()).isZero();
    git.commitToOrigin(
        BOT, Map.of("envs/prod/signed/README.md", "run ./install.sh first\n"), Set.of(), "edit");

    CliRun again = promote(git.clone("ws2", 0, false), "--key", publicKey.toString());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("result: updated");
    assertThat(git.originFiles(BOT).get("envs/prod/signed/README.md"))
        .isEqualTo("not a manifest\n");
  }

  @Test
  void control_anUntouchedBotBranch_isReusedAsItIs() throws Exception {
    CliRun first = promote(git.clone("ws", 0, false), "--key", publicKey.toString());
    assertThat(first.exitCode()).as(first.all()).isZero();
    String tip = git.originHead(BOT);
    github.server().resetRequests();

    CliRun again = promote(git.clone("ws2", 0, false), "--key", publicKey.toString());

    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("result: noop");
    assertThat(git.originHead(BOT)).isEqualTo(tip);
    github.server().verify(0, patchRequestedFor(anyUrl()));
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void tamperedSourceFile_stopsThePromotion_namesTheFile_andPushesNothing() throws Exception {
    // Hand edit after signing: the data no longer matches the signed message.
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/flags.yaml",
            stagingFlags.replace("value: \"on\"", "value: \"off\"")),
        Set.of(),
        "hand edit");

    CliRun run = promote(git.clone("ws", 0, false), "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.all())
        .contains("envs/staging/signed/flags.yaml")
        .contains("nothing was pushed")
        .doesNotContain("envs/staging/signed/app.yaml does not verify");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void unsignedSourceFile_stopsThePromotion() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of("envs/staging/signed/new.yaml", ActionPipelineTest.configMap("new", "1")),
        Set.of(),
        "unsigned file in signed/");

    CliRun run = promote(git.clone("ws", 0, false));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.all()).contains("envs/staging/signed/new.yaml");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void unsignedHiddenUpperCaseSourceFile_isVerifiedToo_andStopsThePromotion() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/.hidden/sneaky.YAML", ActionPipelineTest.configMap("sneaky", "1")),
        Set.of(),
        "unsigned file, hidden, upper case");

    CliRun run = promote(git.clone("ws", 0, false));

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.all()).contains("envs/staging/signed/.hidden/sneaky.YAML");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void sourceOrTargetDirectoryHoldingASymlink_exits6NamingIt_andPushesNothing() throws Exception {
    git.commitSymlinkToOrigin("main", "envs/prod/signed/team", tmp.toString());

    CliRun run = promote(git.clone("ws", 0, false), "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.err()).contains("envs/prod/signed/team: is a symbolic link");
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void control_filesAndDirectoriesBesideTheCopies_arePromotedAround() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/team/app.yaml",
            stagingApp,
            "envs/prod/signed/team/README",
            "notes\n",
            "envs/prod/signed/flags.yml/README",
            "not the target: flags.yaml is\n"),
        Set.of(),
        "beside");

    CliRun run = promote(git.clone("ws", 0, false), "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles(BOT).keySet())
        .contains(
            "envs/prod/signed/team/app.yaml",
            "envs/prod/signed/flags.yaml",
            "envs/prod/signed/team/README",
            "envs/prod/signed/flags.yml/README");
  }

  @Test
  void directoryOnTheBaseWhereACopyGoes_exits6NamingIt_beforeAnythingIsWritten() throws Exception {
    git.commitToOrigin(
        "main", Map.of("envs/prod/signed/flags.yaml/README", "notes\n"), Set.of(), "directory");

    assertPromotionRefused(
        "envs/prod/signed/flags.yaml",
        "is a directory, but the copy of envs/staging/signed/flags.yaml is to be written there");
  }

  @Test
  void fileOnTheBaseWhereACopysDirectoryMustBe_exits6NamingIt_beforeAnythingIsWritten()
      throws Exception {
    git.commitToOrigin(
        "main",
        Map.of("envs/staging/signed/team/app.yaml", stagingApp, "envs/prod/signed/team", "notes\n"),
        Set.of(),
        "file");

    assertPromotionRefused(
        "envs/prod/signed/team",
        "is a file, but envs/prod/signed/team/app.yaml, the copy of"
            + " envs/staging/signed/team/app.yaml, is to be written below it");
  }

  /**
   * The promotion stopped with exit code 6 naming {@code path} and saying {@code why}, pushed and
   * proposed nothing, and left its checkout where it was, with nothing written to it.
   */
  private void assertPromotionRefused(String path, String why) throws Exception {
    Path ws = git.clone("ws", 0, false);
    String main = git.originHead("main");

    CliRun run = promote(ws, "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.err()).contains(path + ": " + why);
    assertThat(git.originHead("main")).isEqualTo(main);
    assertThat(git.originHead(BOT)).isNull();
    github.server().verify(0, postRequestedFor(anyUrl()));
    assertThat(GitFixture.headOf(ws)).isEqualTo(main);
    assertThat(GitFixture.git(ws, "status", "--porcelain", "--ignored")).isEmpty();
    assertThat(GitFixture.git(ws, "branch", "--show-current")).isEqualTo("main\n");
  }

  @Test
  void trustPolicyFile_isTheDefault_andBaseAlreadyPromoted_isNoop() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/prod/signed/app.yaml", stagingApp, "envs/prod/signed/flags.yaml", stagingFlags),
        Set.of("envs/prod/signed/retired.yaml"),
        "promoted by hand");

    CliRun run = promote(git.clone("ws", 0, false));

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: noop");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void asTheAction_commandPromote_readsItsInputs_andSetsTheOutputs() throws Exception {
    Map<String, String> env = actionEnv();
    env.put("INPUT_KEY", publicKey.toString());
    env.put("INPUT_TEAM_REVIEWERS", "platform\nsecurity");
    env.put("INPUT_DRAFT", "true");
    env.put("INPUT_TOKEN", TOKEN);
    env.remove("GITHUB_TOKEN");

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(Files.readString(tmp.resolve("output")))
        .contains("result=created\n")
        .contains("pull-request-number=273\n")
        .contains("pull-request-url=https://github.com/" + FakeGitHub.REPOSITORY + "/pull/273\n")
        .contains("commit-sha=" + git.originHead(BOT) + "\n");
    assertThat(Files.readString(tmp.resolve("summary")))
        .contains("| <code>envs/prod/signed/flags.yaml</code> | added |");
    HostedPullRequest pr = github.hosted(273).orElseThrow();
    assertThat(pr.draft()).isTrue();
    assertThat(pr.teamReviewers()).containsExactlyInAnyOrder("platform", "security");
    assertThat(run.out()).startsWith("::add-mask::" + TOKEN);
  }

  @Test
  void asTheAction_fileNameWithBackticksAndACommentOpener_staysInertInTheBodyAndSummary()
      throws Exception {
    // Two backticks in a row ended the old code span early; "<!--" then hid the rest of the body.
    String hostile = "envs/staging/signed/a``<!--b.yaml";
    git.commitToOrigin(
        "main",
        Map.of(hostile, signed("hostile.yaml", ActionPipelineTest.configMap("hostile", "1"))),
        Set.of(),
        "a hostile name");
    Map<String, String> env = actionEnv();
    env.put("INPUT_KEY", publicKey.toString());

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    String body = github.hosted(273).orElseThrow().body();
    // The table, between the marker (our only comment) and the verify commands' fence.
    String table = body.substring(body.indexOf('\n'), body.indexOf("```sh"));
    assertThat(table)
        .as(body)
        .contains("| <code>envs/prod/signed/a\\`\\`&lt;\\!--b.yaml</code> | added |")
        .doesNotContain("<!--")
        .doesNotContain("``");
    String summary = Files.readString(tmp.resolve("summary"));
    assertThat(summary.substring(0, summary.indexOf("```sh")))
        .contains("| <code>envs/prod/signed/a\\`\\`&lt;\\!--b.yaml</code> | added |")
        .doesNotContain("<!--")
        .doesNotContain("``");
  }

  @Test
  void asTheAction_keyInputWithTwoLines_acceptsEitherKey() throws Exception {
    // Key rotation: the workflow lists the new key and the old one; the staging files are signed
    // with the old one, which is the second line.
    Map<String, String> env = actionEnv();
    env.put("INPUT_KEY", otherPublicKey() + "\n" + publicKey + "\n");
    env.put("INPUT_TOKEN", TOKEN);

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(git.originFiles(BOT).get("envs/prod/signed/flags.yaml")).isEqualTo(stagingFlags);
  }

  @Test
  void asTheAction_keyInputWithoutTheSignersKey_promotesNothing() throws Exception {
    Map<String, String> env = actionEnv();
    env.put("INPUT_KEY", otherPublicKey().toString());
    env.put("INPUT_TOKEN", TOKEN);

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.all()).contains("envs/staging/signed/flags.yaml").contains("::error");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
  }

  @Test
  void asTheAction_identityWithoutIssuer_isAUsageError_andOpensNothing() throws Exception {
    // The runner passes every input, an unset one as empty: a workflow that sets
    // certificate_identity and forgets certificate_oidc_issuer must not promote on the identity
    // alone, nor fall back to some other trust.
    Map<String, String> env = actionEnv();
    env.put("INPUT_KEY", "");
    env.put(
        "INPUT_CERTIFICATE_IDENTITY",
        "https://github.com/octo-org/octo-repo/.github/workflows/sign.yml@refs/heads/main");
    env.put("INPUT_CERTIFICATE_OIDC_ISSUER", "");
    env.put("INPUT_TOKEN", TOKEN);

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.out()).contains("::error").contains("needs both a subject and an issuer");
    assertThat(github.hosted(273)).isEmpty();
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void keyTheBaseRevokedAfterTheCheckout_stopsThePromotion_fromTheOldCheckout() throws Exception {
    // Attack: the checkout is older than main (a queued or re-run job); its policy still trusts
    // the key main has since revoked. The base's policy judges, so the revoked key's file stops.
    trustOldKeyWithALegacyFile();
    Path oldCheckout = git.clone("ws", 0, false);
    revokeOldKey();

    CliRun run = promote(oldCheckout);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.err())
        .contains("envs/staging/signed/legacy.yaml")
        .contains(
            "Promotion stopped: 1 of 3 source file(s) did not verify"
                + " (envs/staging/signed/legacy.yaml); nothing was pushed");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void control_keyTheBaseStillTrusts_promotesFromAnOldCheckout() throws Exception {
    Path oldCheckout = git.clone("ws", 0, false);
    String newer = signed("newer.yaml", ActionPipelineTest.configMap("newer", "1"));
    git.commitToOrigin(
        "main", Map.of("envs/staging/signed/newer.yaml", newer), Set.of(), "newer in staging");

    CliRun run = promote(oldCheckout);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(git.originFiles(BOT).get("envs/prod/signed/newer.yaml")).isEqualTo(newer);
  }

  @Test
  void keyTheBaseAddedAfterTheCheckout_isTrusted_fromTheOldCheckout() throws Exception {
    // The other direction of the same rule: a key rotated in on main after the checkout counts,
    // though the old checkout's policy does not name it.
    Path oldCheckout = git.clone("ws", 0, false);
    trustOldKeyWithALegacyFile();

    CliRun run = promote(oldCheckout);

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("result: created");
    assertThat(git.originFiles(BOT)).containsKey("envs/prod/signed/legacy.yaml");
  }

  @Test
  void uncommittedPolicyEditAddingAKey_doesNotMakeARejectedFilePromote() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            "envs/staging/signed/legacy.yaml",
            signedBy(
                otherPrivateKey(), "legacy.yaml", ActionPipelineTest.configMap("legacy", "1"))),
        Set.of(),
        "a file signed by a key the policy does not name");
    Path ws = git.clone("ws", 0, false);
    Files.writeString(ws.resolve(".countersign/old.pub"), Files.readString(otherPublicKey()));
    Files.writeString(ws.resolve(".countersign/policy.yaml"), policyTrusting("old.pub"));

    CliRun run = promote(ws);

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.err())
        .contains(
            "Promotion stopped: 1 of 3 source file(s) did not verify"
                + " (envs/staging/signed/legacy.yaml)");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
  }

  @Test
  void policyOptionNamingAFileOnlyTheWorkTreeHas_isAUsageError() throws Exception {
    Path ws = git.clone("ws", 0, false);
    Files.writeString(ws.resolve(".countersign/old.pub"), Files.readString(otherPublicKey()));
    Files.writeString(ws.resolve(".countersign/lenient.yaml"), policyTrusting("old.pub"));

    CliRun run = promote(ws, "--policy", ".countersign/lenient.yaml");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .containsPattern(
            "error: No trust policy found at \\.countersign/lenient\\.yaml in base commit"
                + " [0-9a-f]{12} while starting countersign promote\n"
                + "hint: perhaps you should commit it to the base branch \\(promote reads the"
                + " policy from there, not from the work tree\\)");
    assertThat(git.originHead(BOT)).isNull();
  }

  @Test
  void asTheAction_keyTheBaseRevokedAfterTheCheckout_stopsThePromotion() throws Exception {
    trustOldKeyWithALegacyFile();
    Map<String, String> env = actionEnv(); // checks out main as it is now
    env.put("INPUT_TOKEN", TOKEN);
    revokeOldKey();

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out()).contains("::error file=envs/staging/signed/legacy.yaml,line=4::");
    assertThat(run.err()).contains("Promotion stopped: 1 of 3 source file(s) did not verify");
    assertThat(Files.readString(tmp.resolve("output"))).contains("result=rejected\n");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
    github.server().verify(0, postRequestedFor(anyUrl()));
  }

  @Test
  void aPromotionThatLands_leavesTheCheckoutOnItsBranchAsItWas_untrackedFilesIncluded()
      throws Exception {
    Path ws = git.clone("ws", 0, false);
    String head = git.originHead("main");
    Files.writeString(ws.resolve("notes.txt"), "untracked\n");

    CliRun run = promote(ws, "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(git.originFiles(BOT)).containsKey("envs/prod/signed/flags.yaml");
    try (var repository = GitFixture.open(ws);
        var jgit = new org.eclipse.jgit.api.Git(repository)) {
      assertThat(repository.getFullBranch()).isEqualTo("refs/heads/main");
      assertThat(repository.resolve("HEAD").name()).isEqualTo(head);
      assertThat(jgit.status().call().getUncommittedChanges()).isEmpty();
    }
    assertThat(ws.resolve("envs/prod/signed/flags.yaml")).doesNotExist();
    assertThat(ws.resolve("notes.txt")).hasContent("untracked\n");
  }

  @Test
  void anUntrackedFileWhereThePromotionWritesOne_isRefusedNamingIt_andKept() throws Exception {
    Path ws = git.clone("ws", 0, false);
    // An earlier step's file at the very path the promotion commit writes: writing the promoted
    // file over it, and putting the checkout back afterwards, would leave nothing of it.
    Files.writeString(ws.resolve("envs/prod/signed/flags.yaml"), "left by an earlier step\n");

    CliRun run = promote(ws, "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("uncommitted changes to envs/prod/signed/flags.yaml")
        .contains("would overwrite");
    assertThat(ws.resolve("envs/prod/signed/flags.yaml")).hasContent("left by an earlier step\n");
    assertThat(GitFixture.git(ws, "status", "--porcelain"))
        .isEqualTo("?? envs/prod/signed/flags.yaml\n");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
  }

  @Test
  void uncommittedEditInTheCheckout_isRefusedBeforeTheCommitWouldOverwriteIt_andKept()
      throws Exception {
    Path ws = git.clone("ws", 0, false);
    Files.writeString(ws.resolve("envs/prod/signed/README.md"), "a note not yet committed\n");

    CliRun run = promote(ws, "--key", publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err())
        .contains("uncommitted changes to 1 tracked file(s) (envs/prod/signed/README.md)")
        .contains("commit or stash them");
    assertThat(ws.resolve("envs/prod/signed/README.md")).hasContent("a note not yet committed\n");
    assertThat(git.originHead(BOT)).isNull();
    assertThat(github.hosted(273)).isEmpty();
  }

  @Test
  void gitHubFailing_afterTheCommitWasMade_exits4_andTheCheckoutIsAsItWas() throws Exception {
    Path ws = git.clone("ws", 0, false);
    String head = git.originHead("main");
    github.failNext("GET", ".*/pulls.*", 500, "", 3);

    CliRun run =
        CliRun.run(
            duration -> {}, // GitHub's retries wait nothing here
            env(),
            "promote",
            "--repo",
            ws.toString(),
            "--from=envs/staging/signed",
            "--to=envs/prod/signed",
            "--base=main",
            "--key",
            publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    try (var repository = GitFixture.open(ws)) {
      assertThat(repository.getFullBranch()).isEqualTo("refs/heads/main");
      assertThat(repository.resolve("HEAD").name()).isEqualTo(head);
    }
    assertThat(ws.resolve("envs/prod/signed/flags.yaml")).doesNotExist();
    assertThat(ws.resolve("envs/prod/signed/retired.yaml")).exists();
  }

  @Test
  void sameDirectoryTwice_isAUsageError() throws Exception {
    CliRun run =
        CliRun.run(
            env(),
            "promote",
            "--repo",
            git.clone("ws", 0, false).toString(),
            "--from",
            "envs/prod/signed",
            "--to",
            "envs/prod/signed/",
            "--key",
            publicKey.toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
  }

  /**
   * Main trusts the test key and the other key ({@code .countersign/old.pub}), and staging holds
   * {@code legacy.yaml}, signed by the other key.
   */
  private void trustOldKeyWithALegacyFile() throws Exception {
    git.commitToOrigin(
        "main",
        Map.of(
            ".countersign/old.pub",
            Files.readString(otherPublicKey()),
            ".countersign/policy.yaml",
            policyTrusting("old.pub"),
            "envs/staging/signed/legacy.yaml",
            signedBy(
                otherPrivateKey(), "legacy.yaml", ActionPipelineTest.configMap("legacy", "1"))),
        Set.of(),
        "trust the old key too");
  }

  /** Main revokes the other key: its policy lists only the test key, and old.pub is deleted. */
  private void revokeOldKey() throws IOException {
    git.commitToOrigin(
        "main",
        Map.of(".countersign/policy.yaml", policyTrusting()),
        Set.of(".countersign/old.pub"),
        "revoke the old key");
  }

  /** A policy trusting {@code .countersign/cosign.pub} and the given files beside it. */
  private static String policyTrusting(String... moreKeys) {
    StringBuilder policy =
        new StringBuilder(
            "apiVersion: countersign.dev/v1alpha1\n"
                + "kind: TrustPolicy\n"
                + "keys:\n"
                + "  - path: .countersign/cosign.pub\n");
    for (String key : moreKeys) {
      policy.append("  - path: .countersign/").append(key).append('\n');
    }
    return policy.toString();
  }

  /** The private key of {@link #otherPublicKey()}. */
  private Path otherPrivateKey() throws Exception {
    otherPublicKey();
    return tmp.resolve("keys/other.key");
  }

  /** A public key that signed nothing here. */
  private Path otherPublicKey() throws Exception {
    Path other = tmp.resolve("keys/other.pub");
    if (!Files.exists(other)) {
      KeyPairFiles.generate(
          tmp.resolve("keys/other.key"), other, PASSWORD.toCharArray(), new SecureRandom());
    }
    return other;
  }

  private CliRun promote(Path ws, String... extra) {
    String[] args = new String[6 + extra.length];
    args[0] = "promote";
    args[1] = "--repo";
    args[2] = ws.toString();
    args[3] = "--from=envs/staging/signed";
    args[4] = "--to=envs/prod/signed";
    args[5] = "--base=main";
    System.arraycopy(extra, 0, args, 6, extra.length);
    return CliRun.run(env(), args);
  }

  /** The runner's environment for {@code command: promote} from staging to prod on main. */
  private Map<String, String> actionEnv() throws Exception {
    Map<String, String> env = new HashMap<>(env());
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_WORKSPACE", git.clone("ws", 1, true).toString());
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_COMMAND", "promote");
    env.put("INPUT_FROM", "envs/staging/signed");
    env.put("INPUT_TO", "envs/prod/signed");
    env.put("INPUT_BASE", "main");
    return env;
  }

  private Map<String, String> env() {
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_REPOSITORY", FakeGitHub.REPOSITORY);
    env.put("GITHUB_API_URL", github.baseUrl());
    env.put("GITHUB_TOKEN", TOKEN);
    return env;
  }

  private String signed(String name, String manifest) throws IOException {
    return signedBy(privateKey, name, manifest);
  }

  private String signedBy(Path key, String name, String manifest) throws IOException {
    Path file = tmp.resolve("seed-" + System.nanoTime()).resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, manifest);
    CliRun sign =
        CliRun.run(
            Map.of("COSIGN_PASSWORD", PASSWORD), "sign", "--key", key.toString(), file.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    return Files.readString(file);
  }
}
