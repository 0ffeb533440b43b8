package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import dev.countersign.workflow.WorkflowFile;
import dev.countersign.workflow.Workflows;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.GZIPInputStream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.StoredConfig;
import org.eclipse.jgit.transport.RefSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code init} on a repository shaped like a real adopter's (branch {@code master}, an https origin
 * on github.com, a Kyverno PolicyException in {@code platform} and a NetworkPolicy in {@code
 * payments}), then the generated signing workflow's identity through the real merged-PR pipeline
 * against the loopback Sigstore stack: the certificate SAN must be the Kyverno subject.
 */
@RequiresSigstoreStack
class InitAdopterTest {

  private static final String SUBJECT =
      "https://github.com/acme-corp/policies/.github/workflows/sign-on-merge.yml@refs/heads/master";

  private final SigstoreTestStack stack;
  @TempDir Path tmp;

  InitAdopterTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @Test
  void init_onAnAdoptersRepository_thenTheMergedPullRequestPipelineSignsAsTheKyvernoSubject()
      throws Exception {
    Path checkout = tmp.resolve("policies");
    try (Git git = Git.init().setInitialBranch("master").setDirectory(checkout.toFile()).call()) {
      StoredConfig config = git.getRepository().getConfig();
      config.setString("remote", "origin", "url", "https://github.com/acme-corp/policies.git");
      config.save();
      write(checkout, "unsigned/platform/allow-debug.yaml", POLICY_EXCEPTION);
      write(checkout, "unsigned/payments/egress.yaml", NETWORK_POLICY);
      git.add().addFilepattern(".").call();
      git.commit().setMessage("the team's manifests").setSign(false).call();
    }

    CliRun init = CliRun.run(Map.of(), "init", "--repo", checkout.toString());

    assertThat(init.exitCode()).as(init.all()).isZero();
    assertThat(init.err()).isEmpty();
    assertThat(init.out())
        .contains(
            "signer: " + SUBJECT + "\n",
            "kinds: NetworkPolicy, PolicyException\n",
            "namespaces: payments, platform\n");

    // Trust policy and Kyverno policy name the same identity.
    assertThat(Files.readString(checkout.resolve(".countersign/policy.yaml")))
        .contains("    subject: " + SUBJECT + "\n");
    ManifestDocument clusterPolicy =
        read(checkout, ".countersign/cluster/kyverno-clusterpolicy.yaml").get(0);
    Map<String, Object> rule =
        map(list(map(clusterPolicy.content().get("spec")).get("rules")).get(0));
    Map<String, Object> manifests = map(map(rule.get("validate")).get("manifests"));
    Map<String, Object> entry =
        map(list(map(list(manifests.get("attestors")).get(0)).get("entries")).get(0));
    assertThat(map(entry.get("keyless")).get("subject")).isEqualTo(SUBJECT);
    Map<String, Object> resources =
        map(map(list(map(rule.get("match")).get("any")).get(0)).get("resources"));
    assertThat(list(resources.get("kinds"))).containsExactly("NetworkPolicy", "PolicyException");
    assertThat(list(resources.get("namespaces"))).containsExactly("payments", "platform");
    assertThat(map(manifests.get("dryRun")))
        .containsEntry("enable", true)
        .containsEntry("namespace", "countersign-dryrun");

    // The dry-run RBAC lets Kyverno's admission controller create exactly those kinds there.
    List<ManifestDocument> rbac = read(checkout, ".countersign/cluster/kyverno-dryrun-rbac.yaml");
    assertThat(rbac)
        .extracting(ManifestDocument::kind)
        .containsExactly("Namespace", "Role", "RoleBinding");
    assertThat(rbac.get(1).content().get("rules"))
        .isEqualTo(
            List.of(
                Map.of(
                    "apiGroups",
                    List.of("kyverno.io"),
                    "resources",
                    List.of("policyexceptions"),
                    "verbs",
                    List.of("create")),
                Map.of(
                    "apiGroups",
                    List.of("networking.k8s.io"),
                    "resources",
                    List.of("networkpolicies"),
                    "verbs",
                    List.of("create"))));

    // The signing workflow runs on master with what its run and its protected-branch fallback need.
    WorkflowFile sign =
        Workflows.readOne(
            checkout.resolve(".github/workflows/sign-on-merge.yml"),
            Path.of(".github/workflows/sign-on-merge.yml"));
    assertThat(sign.pushBranches()).containsExactly("master");
    assertThat(sign.permission("sign", "contents")).contains("write");
    assertThat(sign.permission("sign", "id-token")).contains("write");
    assertThat(sign.permission("sign", "pull-requests")).contains("write");
    assertThat(Files.readString(checkout.resolve(".countersign/cluster/argocd-application.yaml")))
        .contains("repoURL: https://github.com/acme-corp/policies.git", "targetRevision: master");

    // Nothing to report on the fresh set.
    CliRun doctor = CliRun.run(Map.of(), "doctor", "--repo", checkout.toString());
    assertThat(doctor.exitCode()).as(doctor.all()).isZero();

    // The merged pull request lands as a push to master; the generated workflow signs it.
    Path origin = tmp.resolve("origin.git");
    Git.init()
        .setBare(true)
        .setInitialBranch("master")
        .setDirectory(origin.toFile())
        .call()
        .close();
    try (Git git = Git.open(checkout.toFile())) {
      git.add().addFilepattern(".").call();
      git.commit().setMessage("countersign init").setSign(false).call();
      git.push()
          .setRemote(origin.toUri().toString())
          .setRefSpecs(new RefSpec("master:master"))
          .call();
    }
    Path workspace = tmp.resolve("workspace");
    Git.cloneRepository()
        .setURI(origin.toUri().toString())
        .setBranch("master")
        .setDirectory(workspace.toFile())
        .call()
        .close();
    String identityToken =
        stack.tokenFor(
            Map.of(
                "job_workflow_ref",
                "acme-corp/policies/.github/workflows/sign-on-merge.yml@refs/heads/master",
                "repository",
                "acme-corp/policies",
                "ref",
                "refs/heads/master"));

    CliRun run = CliRun.run(actionEnv(workspace, identityToken), "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    Path signed = tmp.resolve("signed");
    try (Git git =
        Git.cloneRepository()
            .setURI(origin.toUri().toString())
            .setBranch("master")
            .setDirectory(signed.toFile())
            .call()) {
      assertThat(signed.resolve("signed/payments/egress.yaml")).isRegularFile();
      assertThat(signed.resolve("signed/platform/allow-debug.yaml")).isRegularFile();
    }
    for (String file : List.of("signed/payments/egress.yaml", "signed/platform/allow-debug.yaml")) {
      X509Certificate certificate = certificate(read(signed, file).get(0));
      assertThat(lastUriSan(certificate)).isEqualTo(SUBJECT);
    }
    CliRun verify =
        CliRun.run(
            Map.of(),
            "verify",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--certificate-identity",
            SUBJECT,
            "--certificate-oidc-issuer",
            stack.identityIssuer(),
            signed.resolve("signed").toString());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
    // And the chain still holds once signed files exist.
    CliRun after =
        CliRun.run(
            Map.of(),
            "doctor",
            "--repo",
            signed.toString(),
            "--owner",
            "acme-corp",
            "--name",
            "policies");
    assertThat(after.exitCode()).as(after.all()).isZero();
  }

  private Map<String, String> actionEnv(Path workspace, String identityToken) throws IOException {
    Path event = tmp.resolve("event.json");
    try (InputStream in =
        getClass().getResourceAsStream("/action/events/push.merge-to-master.reallyfastci.json")) {
      Files.write(event, in.readAllBytes());
    }
    Map<String, String> env = new HashMap<>();
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_EVENT_NAME", "push");
    env.put("GITHUB_EVENT_PATH", event.toString());
    env.put("GITHUB_WORKSPACE", workspace.toString());
    env.put("GITHUB_REPOSITORY", "acme-corp/policies");
    env.put("GITHUB_REF", "refs/heads/master");
    env.put("GITHUB_RUN_ID", "77");
    env.put("GITHUB_OUTPUT", tmp.resolve("output").toString());
    env.put("GITHUB_STEP_SUMMARY", tmp.resolve("summary").toString());
    env.put("INPUT_TOKEN", "ghs_adopterTestToken");
    env.put("INPUT_IDENTITY_TOKEN", identityToken);
    env.put("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString());
    env.put("INPUT_SIGNING_CONFIG", stack.signingConfig().toString());
    return env;
  }

  private static X509Certificate certificate(ManifestDocument document) throws Exception {
    byte[] gzipped =
        Base64.getDecoder().decode(document.annotations().get("cosign.sigstore.dev/certificate"));
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(gzipped))) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    }
  }

  /** The name Kyverno takes from a certificate without e-mail or subject CN: the last SAN value. */
  private static String lastUriSan(X509Certificate certificate) throws Exception {
    Optional<String> last = Optional.empty();
    for (List<?> san : certificate.getSubjectAlternativeNames()) {
      last = Optional.of(String.valueOf(san.get(1)));
    }
    assertThat(certificate.getSubjectX500Principal().getName()).isEmpty();
    return last.orElseThrow();
  }

  private static List<ManifestDocument> read(Path root, String file) {
    return new ManifestReader().read(root.resolve(file), Path.of(file)).documents();
  }

  private static void write(Path root, String file, String text) throws IOException {
    Files.createDirectories(root.resolve(file).getParent());
    Files.writeString(root.resolve(file), text, StandardCharsets.UTF_8);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object value) {
    return (Map<String, Object>) value;
  }

  @SuppressWarnings("unchecked")
  private static List<Object> list(Object value) {
    return (List<Object>) value;
  }

  static final String POLICY_EXCEPTION =
      """
      apiVersion: kyverno.io/v2
      kind: PolicyException
      metadata:
        name: allow-debug-sidecar
        namespace: platform
      spec:
        exceptions:
          - policyName: disallow-privileged-containers
            ruleNames: [privileged-containers]
        match:
          any:
            - resources:
                kinds: [Pod]
                namespaces: [platform]
                names: ["debug-*"]
      """;

  static final String NETWORK_POLICY =
      """
      apiVersion: networking.k8s.io/v1
      kind: NetworkPolicy
      metadata:
        name: payments-egress
        namespace: payments
      spec:
        podSelector:
          matchLabels:
            app: payments
        policyTypes: [Egress]
        egress:
          - to:
              - ipBlock:
                  cidr: 203.0.113.0/24
            ports:
              - protocol: TCP
                port: 443
      """;
}
