package dev.countersign.run;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.UsageProblem;
import org.junit.jupiter.api.Test;

class RunModeTest {

  @Test
  void modeWords_mapToTheirMode_caseAndSpacesIgnored() {
    assertThat(RunMode.of("push", false, false, false, false)).isEqualTo(RunMode.PUSH);
    assertThat(RunMode.of(" Pull-Request ", false, false, false, false))
        .isEqualTo(RunMode.PULL_REQUEST);
    assertThat(RunMode.of("pull_request", false, true, true, true)).isEqualTo(RunMode.PULL_REQUEST);
    assertThat(RunMode.of("pr", true, false, false, false)).isEqualTo(RunMode.REFRESH);
  }

  @Test
  void unknownMode_isAUsageProblemNamingIt() {
    assertThatThrownBy(() -> RunMode.of("merge", false, false, false, false))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("Unknown --mode \"merge\"");
  }

  @Test
  void fromWorktree_inPushMode_isAUsageProblem() {
    assertThatThrownBy(() -> RunMode.of("push", true, false, false, false))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("--from-worktree needs --mode pull-request");
  }

  @Test
  void refresh_withDryRunNoPushOrNoSign_isAUsageProblem() {
    for (boolean[] flags :
        new boolean[][] {{true, false, false}, {false, true, false}, {false, false, true}}) {
      assertThatThrownBy(() -> RunMode.of("pull-request", true, flags[0], flags[1], flags[2]))
          .isInstanceOf(UsageProblem.class)
          .hasMessageContaining("--from-worktree cannot be combined");
    }
  }
}
