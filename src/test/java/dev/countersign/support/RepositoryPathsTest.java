package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RepositoryPathsTest {

  @ParameterizedTest
  @CsvSource({
    "deploy/signed, deploy/signed",
    "./deploy/signed/, deploy/signed",
    "././deploy//, deploy",
    "'deploy\\signed\\', deploy/signed",
    "'', ''",
  })
  void directory_asTyped_becomesGitsForm(String typed, String expected) {
    assertThat(RepositoryPaths.directory(typed)).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource({"a/b.yaml, a/b.yaml", "'a\\b.yaml', a/b.yaml"})
  void slashed_usesForwardSlashes(String path, String expected) {
    assertThat(RepositoryPaths.slashed(Path.of(path))).isEqualTo(expected);
  }
}
