package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code check} warns about unsigned manifests Kyverno would reject after defaulting, only while
 * the repository's policy has dry-run off.
 */
class CheckServerDefaultsTest {

  private static final String KYVERNO = ".countersign/cluster/kyverno-clusterpolicy.yaml";

  @TempDir Path repo;

  @BeforeEach
  void repository() throws Exception {
    Files.createDirectories(repo.resolve("unsigned/app"));
    Files.writeString(
        repo.resolve("unsigned/app/api.yaml"),
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: api
          namespace: shop
        spec:
          selector:
            matchLabels: {app: api}
          template:
            metadata:
              labels: {app: api}
            spec:
              containers:
                - name: api
                  image: registry.example/api:1.0
        """);
    assertThat(
            CliRun.run(
                    Map.of(),
                    "init",
                    "--owner",
                    "acme",
                    "--name",
                    "deploy",
                    "--repo",
                    repo.toString())
                .exitCode())
        .isZero();
  }

  @Test
  void dryRunOn_noWarning() {
    CliRun check = CliRun.run(Map.of(), "check", "--repo", repo.toString());

    assertThat(check.exitCode()).as(check.all()).isZero();
    assertThat(check.out()).contains("check passed: 0 errors, 0 warnings");
  }

  @Test
  void dryRunOff_warnsAtTheManifestThatReliesOnADefault_andStillPasses() throws Exception {
    Path policy = repo.resolve(KYVERNO);
    Files.writeString(
        policy,
        Files.readString(policy)
            .replace("            enable: true\n", "            enable: false\n"));

    CliRun check = CliRun.run(Map.of(), "check", "--repo", repo.toString());

    assertThat(check.exitCode()).as(check.all()).isZero();
    assertThat(check.out().lines().toList())
        .contains(
            "warning unsigned/app/api.yaml:6 [manifest] Deployment/shop/api: leaves out"
                + " spec.replicas (the API server sets replicas: 1); Kyverno rule"
                + " manifests-signed-by-deploy in "
                + KYVERNO
                + " compares without dryRun, so the cluster would reject this object once signed,"
                + " perhaps you should write the field out, or enable dryRun in that rule"
                + " (countersign doctor explains the RBAC) (countersign/server-defaults)",
            "check passed: 0 errors, 1 warning");
  }
}
