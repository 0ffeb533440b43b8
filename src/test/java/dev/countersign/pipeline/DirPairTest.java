package dev.countersign.pipeline;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.git.GitRemote;
import dev.countersign.support.problems.UsageProblem;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DirPairTest {

  @ParameterizedTest
  @CsvSource({"unsigned:signed, unsigned, signed", "./apps/in/:apps/out, apps/in, apps/out"})
  void parse_fromTo_isNormalized(String spec, String from, String to) {
    assertThat(DirPair.parse(spec)).isEqualTo(new DirPair(from, to));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "unsigned",
        ":signed",
        "unsigned:",
        "a:b:c",
        "../x:signed",
        "unsigned:.git/x",
        "a:a",
        "a:a/b",
        "/abs:b"
      })
  void parse_invalid_isAUsageProblem(String spec) {
    assertThatThrownBy(() -> DirPair.parse(spec)).isInstanceOf(UsageProblem.class);
  }

  @Test
  void targetOf_keepsTheRelativePath() {
    assertThat(DirPair.DEFAULT.targetOf("unsigned/apps/a.yaml")).isEqualTo("signed/apps/a.yaml");
  }

  @Test
  void options_overlappingPairsOrBadAttempts_areRefused() {
    GitRemote remote = GitRemote.anonymous("file:///tmp/x");
    assertThatThrownBy(
            () ->
                ReconcileOptions.builder("main", remote)
                    .dirs(List.of(DirPair.parse("unsigned:signed"), DirPair.parse("signed/x:out")))
                    .build())
        .isInstanceOf(UsageProblem.class)
        .hasMessage("The directory pairs unsigned:signed and signed/x:out overlap");
    assertThatThrownBy(() -> ReconcileOptions.builder("main", remote).pushAttempts(0).build())
        .isInstanceOf(UsageProblem.class)
        .hasMessage("push_attempts must be between 1 and 20, got 0");
  }
}
