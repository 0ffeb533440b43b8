package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;

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
}
