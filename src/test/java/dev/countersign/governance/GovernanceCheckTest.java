package dev.countersign.governance;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.ManifestFile;
import dev.countersign.policy.PolicyFile;
import dev.countersign.policy.PolicyFileLoader;
import dev.countersign.policy.YamlTree;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GovernanceCheckTest {

  @TempDir Path repo;

  @Test
  void check_policyFileGovernanceSection_appliesPoliciesFromDirectoryWithParams() throws Exception {
    Path resources = Path.of(getClass().getResource("/governance").toURI());
    Files.createDirectories(repo.resolve("policies/nested"));
    Files.copy(
        resources.resolve("policies/deny-allow-all-ingress.yaml"),
        repo.resolve("policies/deny-allow-all-ingress.yaml"));
    Files.copy(
        resources.resolve("policies/max-replicas.yaml"),
        repo.resolve("policies/nested/max-replicas.yml"));
    Files.copy(resources.resolve("params-max-replicas.yaml"), repo.resolve("params.yaml"));
    Files.writeString(repo.resolve("policies/README.md"), "not a policy");
    PolicyFile policyFile =
        new PolicyFileLoader()
            .parse(
                PolicyFile.DEFAULT_LOCATION,
                "apiVersion: countersign.dev/v1alpha1\n"
                    + "kind: TrustPolicy\n"
                    + "signers:\n"
                    + "- issuer: i\n"
                    + "  subject: s\n"
                    + "governance:\n"
                    + "  policies: [policies]\n"
                    + "  params: params.yaml\n");
    String manifests =
        Files.readString(resources.resolve("manifests/networkpolicy-allow-all.yaml"))
            + "---\n"
            + Files.readString(resources.resolve("manifests/deployment-ten-replicas.yaml"));
    ManifestFile file =
        new ManifestFile(
            repo.resolve("signed/all.yaml"),
            Path.of("signed/all.yaml"),
            YamlTree.parseAll(Path.of("signed/all.yaml"), manifests),
            manifests.getBytes());

    GovernanceReport report = new GovernanceCheck(repo, policyFile).check(List.of(file));

    assertThat(report.passed()).isFalse();
    assertThat(report.documentsChecked()).isEqualTo(2);
    assertThat(report.policiesApplied()).isEqualTo(2);
    assertThat(report.findings())
        .extracting(f -> f.file() + ":" + f.line() + " " + f.ruleId() + " " + f.message())
        .containsExactly(
            "signed/all.yaml:1 deny-allow-all-ingress/validations/0 a NetworkPolicy must not allow"
                + " ingress from everywhere",
            "signed/all.yaml:11 max-replicas/validations/0 replicas is 10, at most 5 allowed");
  }
}
