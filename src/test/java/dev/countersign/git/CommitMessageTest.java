package dev.countersign.git;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.UsageProblem;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CommitMessageTest {

  @Test
  void compose_subjectBodyTrailers_isGitShaped() {
    String message =
        CommitMessage.compose(
            "sign\nsubject",
            "a -> b\n",
            CommitMessage.countersignTrailers("12", Optional.of(new GitIdentity("A", "a@x"))));

    assertThat(message)
        .isEqualTo("sign subject\n\na -> b\n\nCountersign-Run: 12\nSigned-off-by: A <a@x>\n");
    assertThat(CommitMessage.trailer(message, "countersign-run")).hasValue("12");
  }

  @Test
  void trailers_markerInBodyNotLastParagraph_isNotACountersignCommit() {
    assertThat(
            CommitMessage.isCountersignCommit("Revert\n\nCountersign-Run: 1\n\nThis reverts it.\n"))
        .isFalse();
    assertThat(CommitMessage.isCountersignCommit("Countersign-Run: 1\n")).isFalse();
    assertThat(CommitMessage.isCountersignCommit("Merge pull request #4\n\nsome text\n")).isFalse();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = ';',
      value = {
        "Ada Lovelace <ada@example.com>;Ada Lovelace;ada@example.com",
        "  github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>"
            + " ;github-actions[bot];41898282+github-actions[bot]@users.noreply.github.com"
      })
  void parse_nameAndEmail_splitsThem(String text, String name, String email) {
    assertThat(GitIdentity.parse(text)).isEqualTo(new GitIdentity(name, email));
  }

  @Test
  void parse_withoutEmail_saysHowToWriteIt() {
    assertThatThrownBy(() -> GitIdentity.parse("just a name"))
        .isInstanceOf(UsageProblem.class)
        .hasMessage("Invalid git identity \"just a name\" while reading the author or committer");
    assertThatThrownBy(() -> new GitIdentity("Eve\nSigned-off-by: x", "e@x"))
        .isInstanceOf(UsageProblem.class);
  }

  @Test
  void changeSet_unsafePaths_areRefused() {
    for (String bad :
        new String[] {
          "../x", "/etc/passwd", "a/../../b", ".git/config", "a/.GIT/hooks/x", "a//b", ""
        }) {
      assertThatThrownBy(() -> ChangeSet.empty().write(bad, new byte[0]))
          .as(bad)
          .isInstanceOf(dev.countersign.support.problems.InternalProblem.class);
    }
    assertThat(ChangeSet.empty().write("a/b.yaml", new byte[] {1}).delete("a/b.yaml").writes())
        .isEmpty();
    assertThat(ChangeSet.empty().write("x", new byte[] {1}))
        .isEqualTo(ChangeSet.empty().write("x", new byte[] {1}));
  }
}
