package dev.countersign.init;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class GitHubRepositoryTest {

  @ParameterizedTest
  @CsvSource({
    "https://github.com/acme-corp/policies.git, acme-corp, policies",
    "https://github.com/acme-corp/policies, acme-corp, policies",
    "https://x-access-token:ghs_abc@github.com/acme-corp/policies.git, acme-corp, policies",
    "git@github.com:acme-corp/policies.git, acme-corp, policies",
    "ssh://git@github.com/acme-corp/policies.git, acme-corp, policies",
    "ssh://git@github.com:22/acme-corp/k8s.manifests, acme-corp, k8s.manifests",
    "https://GitHub.com/Acme/Deploy.git/, Acme, Deploy",
  })
  void originUrls_giveOwnerAndName(String url, String owner, String name) {
    assertThat(GitHubRepository.fromRemoteUrl(url)).contains(new GitHubRepository(owner, name));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "https://gitlab.com/acme/policies.git",
        "https://github.com.evil.example/acme/policies.git",
        "file:///tmp/origin.git",
        "https://github.com/acme",
        "https://github.com/acme/policies/tree/main",
        "https://github.com/acme/..",
        "https://github.com/-acme/policies"
      })
  void otherUrls_giveNothing(String url) {
    assertThat(GitHubRepository.fromRemoteUrl(url)).isEqualTo(Optional.empty());
  }
}
