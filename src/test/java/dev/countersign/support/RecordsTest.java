package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecordsTest {

  private record Pair(String left, int count, String right) {
    Pair {
      Records.requireNonNull(Pair.class, left, count, right);
    }
  }

  private record Partial(String left, String right) {
    Partial {
      Records.requireNonNull(Partial.class, left);
    }
  }

  @Test
  void requireNonNull_everyComponentSet_passes() {
    assertThatCode(() -> new Pair("a", 1, "b")).doesNotThrowAnyException();
  }

  @Test
  void requireNonNull_nullComponent_namesIt() {
    assertThatThrownBy(() -> new Pair("a", 1, null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("right");
  }

  @Test
  void requireNonNull_notEveryComponentPassed_failsEvenWithoutNulls() {
    assertThatThrownBy(() -> new Partial("a", "b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Partial has 2 components, but 1 were checked");
  }
}
