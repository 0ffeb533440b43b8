package dev.countersign.support.problems;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.support.ExitCode;
import org.junit.jupiter.api.Test;

class HintsTest {

  @Test
  void problem_hintWrittenWithLeadingComma_readsAloneWithoutIt() {
    UsageProblem problem = new UsageProblem("Bad flag", ", perhaps you should pass --key");

    assertThat(problem.hint()).contains("perhaps you should pass --key");
    assertThat(problem.exitCode()).isEqualTo(ExitCode.USAGE);
  }

  @Test
  void problem_blankHint_isNoHint() {
    assertThat(new RemoteProblem("Rekor failed", "  ").hint()).isEmpty();
    assertThat(new InternalProblem("bug").hint()).isEmpty();
  }

  @Test
  void append_joinsMessageAndHintIntoOneSentence() {
    assertThat(Hints.append("unknown key", ", perhaps you should remove it"))
        .isEqualTo("unknown key, perhaps you should remove it");
    assertThat(Hints.append("unknown key", "perhaps you should remove it"))
        .isEqualTo("unknown key, perhaps you should remove it");
    assertThat(Hints.append("unknown key", null)).isEqualTo("unknown key");
  }

  @Test
  void fix_dropsTheLeadIn() {
    assertThat(Hints.fix(", perhaps you should retry")).isEqualTo("retry");
    assertThat(Hints.fix("check the token")).isEqualTo("check the token");
    assertThat(Hints.suggest("retry")).isEqualTo("perhaps you should retry");
  }

  @Test
  void everyProblemKind_carriesItsExitCode() {
    assertThat(new EnvironmentProblem("x", "perhaps you should y").exitCode())
        .isEqualTo(ExitCode.ENVIRONMENT);
    assertThat(new RemoteProblem("x", null).exitCode()).isEqualTo(ExitCode.REMOTE);
    assertThat(new InternalProblem("x").exitCode()).isEqualTo(ExitCode.INTERNAL);
    assertThat(new UsageProblem("x", null).exitCode()).isEqualTo(ExitCode.USAGE);
    assertThat(new InputProblem(java.nio.file.Path.of("a.yaml"), 3, "bad", null).exitCode())
        .isEqualTo(ExitCode.INVALID_INPUT);
  }
}
