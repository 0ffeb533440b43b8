package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.InputProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The one file-set rule: which names are manifests, which entries are refused, walking without
 * following links.
 */
class ManifestTreeTest {

  private static final ManifestTree TREE = new ManifestTree(1024);

  @TempDir Path tmp;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "a.yaml",
        "a.yml",
        "a.YAML",
        "a.Yml",
        ".a.yaml",
        ".hidden/a.yaml",
        "dir/with space/é.yml"
      })
  void manifestNames_anyCaseAndDotFilesIncluded(String path) {
    assertThat(ManifestTree.isManifestName(path)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"README.md", "a.yaml.bak", "a.json", "yaml", "a.yaml~"})
  void otherNames_areNotManifests(String path) {
    assertThat(ManifestTree.isManifestName(path)).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "unsigned/a\\b.yaml | has a backslash in its name",
        "unsigned/../a.yaml | has an empty, \".\" or \"..\" segment in its path",
        "unsigned/./a.yaml | has an empty, \".\" or \"..\" segment in its path",
        "unsigned//a.yaml | has an empty, \".\" or \"..\" segment in its path",
        "unsigned/.GIT/a.yaml | has a \".git\" segment in its path",
        "unsigned/\uFFFD.yaml | has a name that is not valid UTF-8",
      })
  void unusableNames_areNamedProblems(String path, String problem) {
    assertThat(ManifestTree.nameProblem(path)).hasValue(problem);
  }

  @Test
  void controlCharactersAndLengths_areProblems_plainUnicodeIsNot() {
    assertThat(ManifestTree.nameProblem("unsigned/a\nb.yaml"))
        .hasValue("has a control character (U+000A) in its name");
    assertThat(ManifestTree.nameProblem("unsigned/a\u0085.yaml"))
        .hasValue("has a control character (U+0085) in its name");
    assertThat(ManifestTree.nameProblem("unsigned/" + "a".repeat(256) + ".yaml"))
        .hasValue("has a name segment longer than 255 bytes");
    assertThat(ManifestTree.nameProblem(("d".repeat(200) + "/").repeat(6) + "a.yaml"))
        .hasValue("has a path longer than 1024 bytes");
    assertThat(ManifestTree.nameProblem("unsigned/café/日本語 x.yaml")).isEmpty();
    assertThat(ManifestTree.escaped("a\nb\\c\u001b.yaml")).isEqualTo("a\\nb\\\\c\\x1b.yaml");
  }

  /** Each limit at its edge: the last name accepted and the first refused. */
  @Test
  void nameLimits_atTheirEdges_acceptTheLastAllowedName_andRefuseTheNext() {
    assertThat(ManifestTree.nameProblem("u/a\u001f.yaml")).isPresent();
    assertThat(ManifestTree.nameProblem("u/a\u007f.yaml")).isPresent();
    assertThat(ManifestTree.nameProblem("u/a\u0080.yaml"))
        .hasValue("has a control character (U+0080) in its name");
    assertThat(ManifestTree.nameProblem("u/a\u009f.yaml"))
        .hasValue("has a control character (U+009F) in its name");
    assertThat(ManifestTree.nameProblem("u/a\u2028.yaml")).isPresent();
    assertThat(ManifestTree.nameProblem("u/a\u2029.yaml")).isPresent();
    assertThat(ManifestTree.nameProblem("u/a~ \u00a0.yaml")).isEmpty();
    assertThat(ManifestTree.nameProblem("\uFFFD/a.yaml"))
        .hasValue("has a name that is not valid UTF-8");

    String segment255 = "s".repeat(250) + ".yaml";
    assertThat(ManifestTree.nameProblem("u/" + segment255)).isEmpty();
    assertThat(ManifestTree.nameProblem("u/s" + segment255))
        .hasValue("has a name segment longer than 255 bytes");
    String path1024 = ("d".repeat(199) + "/").repeat(5) + "a".repeat(19) + ".yaml";
    assertThat(path1024.getBytes(java.nio.charset.StandardCharsets.UTF_8)).hasSize(1024);
    assertThat(ManifestTree.nameProblem(path1024)).isEmpty();
    assertThat(ManifestTree.nameProblem("a" + path1024))
        .hasValue("has a path longer than 1024 bytes");
  }

  @Test
  void escaped_showsEveryControlCharacterAsAnEscape_andLeavesOtherTextAlone() {
    assertThat(ManifestTree.escaped("a\u001f\u007f\u0080\u009f\u2028\u2029b"))
        .isEqualTo("a\\x1f\\x7f\\x80\\x9f\\u2028\\u2029b");
    assertThat(ManifestTree.escaped("a ~\u00a0\u00ff\u2027\u202a.yaml"))
        .isEqualTo("a ~\u00a0\u00ff\u2027\u202a.yaml");
  }

  @Test
  void
      manifests_refuseLinksOtherEntriesAndOversizedManifests_allAtOnce_butNotOversizedOtherFiles() {
    List<ManifestTree.Entry> entries =
        List.of(
            new ManifestTree.Entry("signed/team", ManifestTree.Type.LINK, 10),
            new ManifestTree.Entry("signed/sub", ManifestTree.Type.OTHER, 0),
            new ManifestTree.Entry("signed/big.yaml", ManifestTree.Type.FILE, 1025),
            new ManifestTree.Entry("signed/big.bin", ManifestTree.Type.FILE, 1_000_000),
            new ManifestTree.Entry("signed/ok.yaml", ManifestTree.Type.FILE, 1024));

    assertThatThrownBy(() -> TREE.manifests(entries))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem -> {
              assertThat(problem.exitCode()).isEqualTo(ExitCode.INVALID_INPUT);
              assertThat(problem.all())
                  .extracting(InputProblem::getMessage)
                  .containsExactly(
                      "signed/big.yaml: is 1025 bytes, larger than the limit of 1024 bytes for one"
                          + " manifest file",
                      "signed/sub: is not a regular file or directory (a submodule or special"
                          + " file)",
                      "signed/team: is a symbolic link; countersign never follows links under a"
                          + " signed or unsigned directory");
            });
    assertThat(TREE.manifests(entries.subList(3, 5)))
        .extracting(ManifestTree.Entry::path)
        .containsExactly("signed/ok.yaml");
  }

  @Test
  void walk_findsDotFilesAndAnyCase_sorted_andSkipsOtherFiles() throws Exception {
    write("unsigned/.np.yaml");
    write("unsigned/.hidden/np.yaml");
    write("unsigned/np.YAML");
    write("unsigned/README.md");

    assertThat(TREE.walk(tmp, "unsigned"))
        .extracting(ManifestTree.Entry::path)
        .containsExactly("unsigned/.hidden/np.yaml", "unsigned/.np.yaml", "unsigned/np.YAML");
    assertThat(TREE.walk(tmp, "missing")).isEmpty();
  }

  @Test
  void walk_ofADirectoryWithAnUnusableName_isRefused_beforeAnythingIsRead() throws Exception {
    write("repo/unsigned/ok.yaml");
    write("outside/x.yaml");
    Path repo = tmp.resolve("repo");
    assertThat(TREE.walk(repo, "unsigned")).hasSize(1); // control

    // Where nothing is there to be refused on its own, only the directory's name can be.
    for (String directory : List.of("unsigned/../../outside", "unsigned/../missing", "a\\b")) {
      assertThatThrownBy(() -> TREE.walk(repo, directory))
          .as(directory)
          .isInstanceOfSatisfying(
              InputProblem.class,
              problem ->
                  assertThat(problem.file()).isEqualTo(Path.of(ManifestTree.escaped(directory))));
    }
  }

  @Test
  void walk_refusesAnOversizedManifest_byItsSizeOnDisk() throws Exception {
    Files.createDirectories(tmp.resolve("unsigned"));
    Files.writeString(tmp.resolve("unsigned/fits.yaml"), "x".repeat(1024));
    assertThat(TREE.walk(tmp, "unsigned")).hasSize(1); // control: at the limit
    Files.writeString(tmp.resolve("unsigned/big.yaml"), "x".repeat(1025));

    assertThatThrownBy(() -> TREE.walk(tmp, "unsigned"))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem ->
                assertThat(problem.getMessage())
                    .contains("unsigned/big.yaml")
                    .contains("is 1025 bytes, larger than the limit of 1024 bytes"));
  }

  @Test
  void walk_refusesLinksBelowTheDirectory_andTheDirectoryOrAParentBeingALink() throws Exception {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Files.writeString(outside.resolve("x.yaml"), "kind: X\n");
    write("repo/unsigned/ok.yaml");
    Files.createSymbolicLink(tmp.resolve("repo/unsigned/team"), outside);
    Files.createSymbolicLink(tmp.resolve("repo/unsigned/file.yaml"), outside.resolve("x.yaml"));
    Files.createSymbolicLink(tmp.resolve("repo/signed"), outside);
    Files.createSymbolicLink(tmp.resolve("repo/envs"), outside);
    Path repo = tmp.resolve("repo");

    assertThatThrownBy(() -> TREE.walk(repo, "unsigned"))
        .isInstanceOfSatisfying(
            InputProblem.class,
            problem ->
                assertThat(problem.all())
                    .extracting(p -> p.file().toString())
                    .containsExactly("unsigned/file.yaml", "unsigned/team"));
    assertThatThrownBy(() -> TREE.walk(repo, "signed"))
        .isInstanceOf(InputProblem.class)
        .hasMessageStartingWith("signed: is a symbolic link");
    assertThatThrownBy(() -> TREE.walk(repo, "envs/prod/signed"))
        .isInstanceOf(InputProblem.class)
        .hasMessageStartingWith("envs: is a symbolic link");
  }

  @Test
  void expand_aDirectoryGivesItsManifests_aFileIsTakenAsItIs_missingIsUsage() throws Exception {
    write("d/a.yml");
    write("d/.b.YAML");
    Path single = write("single.txt");

    assertThat(TREE.expand(List.of(tmp.resolve("d"), single)))
        .containsExactly(tmp.resolve("d/.b.YAML"), tmp.resolve("d/a.yml"), single);
    assertThatThrownBy(() -> TREE.expand(List.of(tmp.resolve("nope"))))
        .isInstanceOf(dev.countersign.support.problems.UsageProblem.class);
  }

  private Path write(String relative) throws Exception {
    Path file = tmp.resolve(relative);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, "kind: X\n");
  }
}
