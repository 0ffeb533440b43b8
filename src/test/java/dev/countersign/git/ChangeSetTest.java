package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.InternalProblem;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChangeSetTest {

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void builder_givesTheSameChangeSetAsChainedCalls_laterOperationsWinning() {
    ChangeSet chained =
        ChangeSet.empty()
            .write("signed/a.yaml", bytes("a1"))
            .delete("unsigned/a.yaml")
            .write("signed/b.yaml", bytes("b"))
            .delete("signed/b.yaml")
            .delete("unsigned/c.yaml")
            .write("unsigned/c.yaml", bytes("c"))
            .write("signed/a.yaml", bytes("a2"));

    ChangeSet built =
        ChangeSet.builder()
            .write("signed/a.yaml", bytes("a1"))
            .delete("unsigned/a.yaml")
            .write("signed/b.yaml", bytes("b"))
            .delete("signed/b.yaml")
            .delete("unsigned/c.yaml")
            .write("unsigned/c.yaml", bytes("c"))
            .write("signed/a.yaml", bytes("a2"))
            .build();

    assertThat(built).isEqualTo(chained);
    assertThat(built.writes().keySet()).containsExactly("signed/a.yaml", "unsigned/c.yaml");
    assertThat(built.writes().get("signed/a.yaml")).isEqualTo(bytes("a2"));
    assertThat(built.deletes()).containsExactly("signed/b.yaml", "unsigned/a.yaml");
  }

  @Test
  void builder_refusesPathsThatEscapeTheWorkTree() {
    assertThatThrownBy(() -> ChangeSet.builder().write("signed/../../etc/passwd", bytes("x")))
        .isInstanceOf(InternalProblem.class);
    assertThatThrownBy(() -> ChangeSet.builder().delete(".git/config"))
        .isInstanceOf(InternalProblem.class);
  }
}
