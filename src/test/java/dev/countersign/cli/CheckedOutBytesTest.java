package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.support.ExitCode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The gate judges the bytes the signing workflow signs. {@code run} signs the merged commit's git
 * objects; {@code check} reads the work tree that actions/checkout wrote with the git program,
 * which applies the pull request's own {@code .gitattributes}. A pull request must not be able to
 * make the two differ. Pull requests here are checked out with git, as on a runner.
 */
class CheckedOutBytesTest {

  /**
   * A NetworkPolicy whose committed bytes allow ingress from everywhere (the empty rule in the
   * middle), written so that git's {@code ident} expansion on checkout ({@code $Id:...$} becomes
   * {@code $Id: <blob id> $}) cuts that rule out of the work tree's copy.
   */
  private static final String ALLOW_ALL_BEHIND_IDENT =
      """
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      metadata:
        name: allow-all
        namespace: shop
      spec: {podSelector: {}, ingress: [{from: [{podSelector: {matchLabels: {role: '$Id:'}}}]}, \
      {}, {from: [{podSelector: {matchLabels: {role: '$'}}}]}]}
      """;

  private static final String COMPLIANT =
      GateRepository.CONFIG_MAP.replace("app-config", "other-config");

  @TempDir Path tmp;
  private PullRequestGate gate;

  @BeforeEach
  void origin() throws Exception {
    gate = new PullRequestGate(tmp);
  }

  @Test
  void pullRequestHidingARuleBehindIdentExpansion_isRefused() throws Exception {
    Path ws =
        gate.pullRequestCheckedOutByGit(
            Map.of(
                ".gitattributes",
                "unsigned/** ident\n",
                "unsigned/net/allow-all.yaml",
                ALLOW_ALL_BEHIND_IDENT));
    assertThat(Files.readString(ws.resolve("unsigned/net/allow-all.yaml")))
        .as("git expanded $Id$ on checkout, so the work tree lacks the allow-all rule")
        .contains("role: '$Id: ")
        .doesNotContain("{}, {from");

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains("::error file=unsigned/net/allow-all.yaml,")
        .contains("differs from the checked-out commit");
  }

  /**
   * A manifest in the work tree that the commit does not hold (an earlier step of the job wrote it,
   * or it is ignored): the signing workflow would never sign it, so the gate refuses to judge a
   * work tree that holds it. The same checkout without it passes.
   */
  @Test
  void manifestInTheWorkTreeButNotInTheCommit_isRefused() throws Exception {
    Path ws = gate.pullRequestCheckedOutByGit(Map.of("unsigned/app/other.yaml", COMPLIANT));
    CliRun committedOnly = gate.check(ws, Map.of());
    assertThat(committedOnly.exitCode()).as(committedOnly.all()).isZero();

    Files.writeString(
        ws.resolve("unsigned/app/untracked.yaml"),
        COMPLIANT.replace("other-config", "untracked-config"));
    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains("::error file=unsigned/app/untracked.yaml,")
        .contains("is in the work tree but not in the checked-out commit");
  }

  @Test
  void control_theSameManifestWithoutAttributes_isJudgedAsCommittedAndRejected() throws Exception {
    Path ws =
        gate.pullRequestCheckedOutByGit(
            Map.of("unsigned/net/allow-all.yaml", ALLOW_ALL_BEHIND_IDENT));

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains(
            "::error file=unsigned/net/allow-all.yaml,line=1,title=countersign"
                + " governance::NetworkPolicy/shop/allow-all: a NetworkPolicy must not allow"
                + " ingress from everywhere");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "unsigned/** text eol=crlf",
        "*.yaml working-tree-encoding=UTF-16",
        "signed/** text eol=crlf",
      })
  void pullRequestWhoseAttributesConvertManagedFiles_isRefused(String attributes) throws Exception {
    Path ws =
        gate.pullRequestCheckedOutByGit(
            Map.of(".gitattributes", attributes + "\n", "unsigned/app/config.yaml", COMPLIANT));

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out()).contains("differs from the checked-out commit");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "*.yaml text",
        "* text=auto",
        "unsigned/** -text linguist-generated",
        "*.md ident",
      })
  void control_attributesThatLeaveManagedFilesAsCommitted_pass(String attributes) throws Exception {
    Path ws =
        gate.pullRequestCheckedOutByGit(
            Map.of(
                ".gitattributes",
                attributes + "\n",
                "unsigned/app/config.yaml",
                COMPLIANT,
                "unsigned/README.md",
                "$Id$\n"));

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void pullRequestAddingASubmoduleUnderUnsigned_isRefusedAsRunRefusesIt() throws Exception {
    Path ws =
        gate.pullRequestCheckedOutByGit(
            Map.of("unsigned/app/config.yaml", COMPLIANT),
            Map.of("unsigned/vendor", "0123456789abcdef0123456789abcdef01234567"));
    assertThat(ws.resolve("unsigned/vendor"))
        .as("git checks a submodule out as an empty directory")
        .isEmptyDirectory();

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.out())
        .contains("::error file=unsigned/vendor,")
        .contains("is not a regular file or directory (a submodule or special file)");
  }

  @Test
  void control_pullRequestAddingAnEmptyDirectoryUnderUnsigned_passes() throws Exception {
    Path ws = gate.pullRequestCheckedOutByGit(Map.of("unsigned/app/config.yaml", COMPLIANT));
    Files.createDirectories(ws.resolve("unsigned/vendor"));

    CliRun run = gate.check(ws, Map.of());

    assertThat(run.exitCode()).as(run.all()).isZero();
  }
}
