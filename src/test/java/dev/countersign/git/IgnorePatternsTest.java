package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Flux's .sourceignore matching, as fluxcd/pkg's sourceignore and go-git's gitignore do it. */
class IgnorePatternsTest {

  @Test
  void aNamePatternMatchesAtAnyDepth_andADirectoryCoversEverythingBelowIt() {
    IgnorePatterns patterns = new IgnorePatterns().add("", "deny.yaml\nsigned/team\n");

    assertThat(patterns.ignores("signed/net/deny.yaml")).isTrue();
    assertThat(patterns.ignores("signed/team/app/x.yaml")).isTrue();
    assertThat(patterns.ignores("signed/net/allow.yaml")).isFalse();
  }

  @Test
  void anAnchoredPattern_matchesOnlyFromItsOwnDirectory() {
    IgnorePatterns patterns = new IgnorePatterns().add("envs", "/signed/\n");

    assertThat(patterns.ignores("envs/signed/x.yaml")).isTrue();
    assertThat(patterns.ignores("signed/x.yaml")).isFalse();
    assertThat(patterns.ignores("envs/prod/signed/x.yaml")).isFalse();
  }

  @Test
  void theLastMatchDecides_andADeeperFileComesLater() {
    IgnorePatterns patterns =
        new IgnorePatterns().add("", "*.yaml\n!keep.yaml\n").add("signed", "keep.yaml\n");

    assertThat(patterns.ignores("other/keep.yaml")).isFalse();
    assertThat(patterns.ignores("signed/keep.yaml")).isTrue();
  }

  @Test
  void commentsAndBlankLinesAreNoPatterns() {
    IgnorePatterns patterns = new IgnorePatterns().add("", "# x.yaml\n\n   \r\n");

    assertThat(patterns.ignores("# x.yaml")).isFalse();
    assertThat(patterns.ignores("x.yaml")).isFalse();
  }

  // Where Go's filepath.Match, which Flux matches with, differs from git's matching.

  @Test
  void anExclamationMarkInABracketIsOneOfItsCharacters_andOnlyACaretNegates() {
    IgnorePatterns bang = new IgnorePatterns().add("", "signed/[!d]eny.yaml\n");
    IgnorePatterns caret = new IgnorePatterns().add("", "signed/[^d]eny.yaml\n");

    assertThat(bang.ignores("signed/deny.yaml")).isTrue();
    assertThat(bang.ignores("signed/xeny.yaml")).isFalse();
    assertThat(caret.ignores("signed/deny.yaml")).isFalse();
    assertThat(caret.ignores("signed/xeny.yaml")).isTrue();
  }

  @Test
  void aQuestionMarkTakesOneCharacter_evenOutsideTheBasicPlane() {
    IgnorePatterns patterns = new IgnorePatterns().add("", "signed/?.yaml\n");

    assertThat(patterns.ignores("signed/\uD83D\uDE00.yaml")).isTrue();
    assertThat(patterns.ignores("signed/\u00e9.yaml")).isTrue();
    assertThat(patterns.ignores("signed/ab.yaml")).isFalse();
  }

  @Test
  void whatGoDoesNotKnowMatchesNothing_classesDoubleStarsInASegmentAndATrailingBackslash() {
    IgnorePatterns patterns =
        new IgnorePatterns()
            .add("", "signed/[[:alpha:]]eny.yaml\nsigned/d**\nsigned/deny.yaml\\\n");

    assertThat(patterns.ignores("signed/deny.yaml")).isFalse();
    assertThat(new IgnorePatterns().add("", "signed/d*\n").ignores("signed/deny.yaml")).isTrue();
  }

  @Test
  void trailingSpacesAreTrimmed_unlessEscaped() {
    assertThat(new IgnorePatterns().add("", "deny.yaml  \n").ignores("signed/deny.yaml")).isTrue();
    assertThat(new IgnorePatterns().add("", "deny.yaml\\ \n").ignores("signed/deny.yaml"))
        .isFalse();
  }

  @Test
  void aNegationDecidesEvenUnderAnExcludedDirectory() {
    IgnorePatterns patterns = new IgnorePatterns().add("", "/signed/\n!deny.yaml\n");

    assertThat(patterns.ignores("signed/deny.yaml")).isFalse();
    assertThat(patterns.ignores("signed/app.yaml")).isTrue();
  }

  @Test
  void noPatternIsReadFromALineOver64KiB_orAnyLineAfterIt() {
    String longLine = "# " + "x".repeat(64 * 1024);
    byte[] tooLong = ("deny.yaml\n" + longLine + "\n!deny.yaml\n").getBytes(StandardCharsets.UTF_8);
    byte[] fits =
        ("deny.yaml\n# " + "x".repeat(64 * 1024 - 3) + "\n!deny.yaml\n")
            .getBytes(StandardCharsets.UTF_8);

    assertThat(IgnorePatterns.lineFluxStopsAt(tooLong)).hasValue(2);
    assertThat(new IgnorePatterns().add("", tooLong).ignores("signed/deny.yaml")).isTrue();
    assertThat(IgnorePatterns.lineFluxStopsAt(fits)).isEmpty();
    assertThat(new IgnorePatterns().add("", fits).ignores("signed/deny.yaml")).isFalse();
  }

  // What source-controller's SourceIgnoreFilter leaves out: VCS patterns always, fluxcd/pkg's
  // default list only while no pattern was loaded.

  @Test
  void withNoPatternLoaded_fluxsDefaultListLeavesOutCiFilesAndTheExtras_atAnyDepth() {
    IgnorePatterns artifact = new IgnorePatterns().add("", "# only a comment\n\n").fluxArtifact();

    assertThat(artifact.ignores("signed/.github/netpol.yaml")).isTrue();
    assertThat(artifact.ignores("signed/cloudbuild.yaml")).isTrue();
    assertThat(artifact.ignores("signed/ci/.travis.yml")).isTrue();
    assertThat(artifact.ignores("signed/team/.sops.yaml")).isTrue();
    assertThat(artifact.ignores(".flux.yaml")).isTrue();
    assertThat(artifact.ignores("signed/a/b/.goreleaser.yml")).isTrue();
    assertThat(artifact.ignores("signed/logo.png")).isTrue();
    assertThat(artifact.ignores("signed/.gitattributes")).isTrue();
    assertThat(artifact.ignores("signed/team/sops.yaml")).isFalse();
    assertThat(artifact.ignores("signed/github/netpol.yaml")).isFalse();
    assertThat(artifact.ignores("signed/cloudbuild.yml")).isFalse();
  }

  @Test
  void withOnePatternLoadedAnywhere_onlyTheVcsPatternsAndTheLoadedOnesApply() {
    IgnorePatterns artifact = new IgnorePatterns().add("docs", "*.md\n").fluxArtifact();

    assertThat(artifact.ignores("signed/.github/netpol.yaml")).isFalse();
    assertThat(artifact.ignores("signed/team/.sops.yaml")).isFalse();
    assertThat(artifact.ignores("docs/x.md")).isTrue();
    assertThat(artifact.ignores("signed/.gitattributes")).isTrue();
    assertThat(artifact.ignores("signed/.git/x.yaml")).isTrue();
  }

  @Test
  void aNegationIsAPatternToo_andAFileNotReadCountsAsHoldingOne_whenSaidSo() {
    assertThat(new IgnorePatterns().add("", "!keep.yaml\n").holdsAPattern()).isTrue();
    assertThat(new IgnorePatterns().add("", "  \n#x\n").holdsAPattern()).isFalse();
    assertThat(new IgnorePatterns().countPatternNotAdded().fluxArtifact().ignores("x/.sops.yaml"))
        .isFalse();
    assertThat(new IgnorePatterns().fluxArtifact().ignores("x/.sops.yaml")).isTrue();
  }
}
