package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Writes resolve their parents without following links, and stay under their root. */
class NoFollowPathsTest {

  @TempDir Path tmp;

  @Test
  void inside_refusesALinkedParentOrTarget_andNamesItRelativeToTheRoot() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("root"));
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.createDirectories(root.resolve("signed"));
    Files.createSymbolicLink(root.resolve("signed/team"), outside);
    Files.createSymbolicLink(root.resolve("signed/x.yaml"), outside.resolve("victim"));

    assertThatThrownBy(() -> NoFollowPaths.inside(root, Path.of("signed/team/a.yaml")))
        .isInstanceOf(InputProblem.class)
        .hasMessageStartingWith("signed/team: is a symbolic link");
    assertThatThrownBy(() -> NoFollowPaths.inside(root, Path.of("signed/x.yaml")))
        .isInstanceOf(InputProblem.class)
        .hasMessageStartingWith("signed/x.yaml: is a symbolic link");
    assertThatThrownBy(
            () -> NoFollowPaths.createParents(root, root.resolve("signed/team/deep/a.yaml")))
        .isInstanceOf(InputProblem.class);
    assertThat(outside).isEmptyDirectory();
  }

  @Test
  void inside_refusesPathsLeavingTheRoot_andAFileWhereADirectoryMustBe() throws Exception {
    Path root = Files.createDirectories(tmp.resolve("root"));
    Files.writeString(root.resolve("file"), "x");

    assertThatThrownBy(() -> NoFollowPaths.inside(root, Path.of("../escape.yaml")))
        .isInstanceOf(InternalProblem.class);
    assertThatThrownBy(() -> NoFollowPaths.inside(root, Path.of("/etc/passwd")))
        .isInstanceOf(InternalProblem.class);
    assertThatThrownBy(() -> NoFollowPaths.inside(root, Path.of("file/a.yaml")))
        .isInstanceOf(InputProblem.class)
        .hasMessageStartingWith("file: is not a directory");
  }

  @Test
  void createParents_createsMissingDirectoriesBelowTheRoot_outermostFirst_andTheRootWhenMissing()
      throws Exception {
    Path root = tmp.resolve("out");

    assertThat(NoFollowPaths.createParents(root, root.resolve("a/b/c.yaml")))
        .containsExactly(root, root.resolve("a"), root.resolve("a/b"));
    assertThat(root.resolve("a/b")).isDirectory();
    assertThat(NoFollowPaths.createParents(root, root.resolve("a/b/d.yaml"))).isEmpty();
  }

  @Test
  void aRootReachedThroughALink_isAllowed_onlyWhatIsBelowItIsChecked() throws Exception {
    Path real = Files.createDirectories(tmp.resolve("real"));
    Path linkedRoot = Files.createSymbolicLink(tmp.resolve("linked"), real);

    NoFollowPaths.createParents(linkedRoot, linkedRoot.resolve("x/y.yaml"));

    assertThat(real.resolve("x")).isDirectory();
  }

  /**
   * One byte past the limit is read, so a file that grew after its size was looked at shows as too
   * large instead of being cut to the limit and signed short.
   */
  @Test
  void readAtMost_readsAFileAtTheLimitWhole_andOneByteMoreOfALargerOne() throws Exception {
    Path file = Files.writeString(tmp.resolve("a.yaml"), "0123456789");

    assertThat(NoFollowPaths.readAtMost(file, Path.of("a.yaml"), 10)).hasSize(10);
    assertThat(NoFollowPaths.readAtMost(file, Path.of("a.yaml"), 100)).hasSize(10);
    assertThat(NoFollowPaths.readAtMost(file, Path.of("a.yaml"), 9)).hasSize(10);
    assertThat(NoFollowPaths.readAtMost(file, Path.of("a.yaml"), 4)).hasSize(5);
  }

  @Test
  void readAtMost_refusesALink_namingTheFileAsShown() throws Exception {
    Path target = Files.writeString(tmp.resolve("target.yaml"), "kind: Secret\n");
    Path link = Files.createSymbolicLink(tmp.resolve("link.yaml"), target);

    assertThatThrownBy(() -> NoFollowPaths.readAtMost(link, Path.of("unsigned/link.yaml"), 100))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem -> assertThat(problem.file()).isEqualTo(Path.of("unsigned/link.yaml")));
  }
}
