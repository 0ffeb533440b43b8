package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.git.GitFixture;
import dev.countersign.support.ExitCode;
import dev.countersign.testing.OciTestRegistry;
import dev.countersign.testing.RequiresOciRegistry;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Publishing as part of the pipeline: {@code run --publish-to} publishes the signed directory of
 * the pushed signing commit with the run's signer (one certificate for manifests and artifact), and
 * the Action's {@code command: publish} maps its inputs to the same command.
 */
@RequiresSigstoreStack
@RequiresOciRegistry
class PublishPipelineTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final SigstoreTestStack stack;
  private final OciTestRegistry registry;
  @TempDir Path tmp;
  private GitFixture git;

  PublishPipelineTest(SigstoreTestStack stack, OciTestRegistry registry) {
    this.stack = stack;
    this.registry = registry;
  }

  @BeforeEach
  void origin() throws Exception {
    git = new GitFixture(tmp.resolve("git"));
    git.commitToOrigin(
        "main",
        Map.of(
            "unsigned/config/flags.yaml", ActionPipelineTest.configMap("flags", "on"),
            "unsigned/egress/payments.yaml", ActionPipelineTest.networkPolicy("payments-egress")),
        Set.of(),
        "add manifests");
  }

  @Test
  void runWithPublishTo_publishesThePushedSignedDirectory_withTheSameCertificate()
      throws Exception {
    Path ws = git.clone("ws", 0, false);
    stack.resetStats();
    Map<String, String> env = new HashMap<>(stack.githubEnv());
    CliRun run =
        CliRun.run(
            env,
            "run",
            "--repo",
            ws.toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            "--publish-to",
            registry.host() + "/team/pipeline:main",
            "--plain-http");

    assertThat(run.exitCode()).as(run.all()).isZero();
    assertThat(run.out())
        .contains("result: pushed")
        .contains("pushed    " + registry.host() + "/team/pipeline@sha256:")
        .contains("signed    ");
    assertThat(stack.stats().certificates())
        .as("one Fulcio certificate for the manifests and the artifact")
        .isEqualTo(1);
    assertThat(stack.stats().logEntries()).isEqualTo(3);

    String digest = PublishCommandTest.digestIn(run.out());
    JsonNode manifest = JSON.readTree(get("/v2/team/pipeline/manifests/" + digest));
    assertThat(manifest.path("annotations").path("org.opencontainers.image.revision").asText())
        .isEqualTo(git.originHead("main"));
    byte[] layer =
        get("/v2/team/pipeline/blobs/" + manifest.path("layers").get(0).path("digest").asText());
    SortedMap<String, String> expected = new TreeMap<>();
    git.originFiles("main")
        .forEach(
            (path, content) -> {
              if (path.startsWith("signed/")) {
                expected.put(path.substring("signed/".length()), content);
              }
            });
    assertThat(PublishCommandTest.untar(layer)).isEqualTo(expected);

    CliRun verify =
        CliRun.run(
            new HashMap<>(),
            "verify",
            "--oci",
            registry.host() + "/team/pipeline@" + digest,
            "--plain-http",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--certificate-identity",
            stack.identitySan(),
            "--certificate-oidc-issuer",
            stack.identityIssuer());
    assertThat(verify.exitCode()).as(verify.all()).isZero();

    // A second run has nothing to sign: nothing is published either.
    CliRun again =
        CliRun.run(
            env,
            "run",
            "--repo",
            git.clone("ws2", 0, false).toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            "--publish-to",
            registry.host() + "/team/pipeline:main",
            "--plain-http");
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.all()).contains("Nothing published").doesNotContain("pushed    ");
  }

  @Test
  void runWithPublishTo_refusesNoSign() throws Exception {
    CliRun run =
        CliRun.run(
            new HashMap<>(),
            "run",
            "--repo",
            git.clone("ws", 0, false).toString(),
            "--no-sign",
            "--publish-to",
            registry.host() + "/team/pipeline",
            "--plain-http");
    assertThat(run.exitCode()).isEqualTo(dev.countersign.support.ExitCode.USAGE.code());
    assertThat(run.err()).contains("--publish-to cannot be combined with --no-sign");
  }

  @Test
  void actionCommandPublish_mapsInputs_andSetsOutputs() throws Exception {
    Path repo = PublishCommandTest.signedRepository(tmp, "action", "z");
    Path output = tmp.resolve("github-output");
    Map<String, String> env = new HashMap<>(stack.githubEnv());
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_OUTPUT", output.toString());
    env.put("INPUT_COMMAND", "publish");
    env.put("INPUT_PATH", repo.toString());
    env.put("INPUT_SOURCE", "signed");
    env.put("INPUT_TO", registry.host() + "/team/action");
    env.put("INPUT_PLAIN_HTTP", "true");
    env.put("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString());
    env.put("INPUT_SIGNING_CONFIG", stack.signingConfig().toString());
    env.put("INPUT_EMIT_MANIFEST", tmp.resolve("emitted.yaml").toString());
    env.put("INPUT_REGISTRY_TOKEN", "unused-token-5b2c");
    env.put("INPUT_TOKEN", "");

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isZero();
    String digest = PublishCommandTest.digestIn(run.out());
    assertThat(Files.readString(output)).contains("artifact-digest").contains(digest);
    assertThat(Files.readString(tmp.resolve("emitted.yaml")))
        .startsWith("# countersign publish \u2014 digest=" + digest);
    assertThat(run.out()).contains("::add-mask::unused-token-5b2c");
    assertThat(run.out().replace("::add-mask::unused-token-5b2c", ""))
        .doesNotContain("unused-token-5b2c");
  }

  @Test
  void runWithPublishTo_rejectsASignedFileNotByTheRunsSigner_andPublishesNothing()
      throws Exception {
    // A file in signed/ that this run neither signed nor verified: signed with the demo key,
    // while the run signs keylessly. The signing commit is pushed; the artifact is not.
    Path scratch = tmp.resolve("scratch");
    Files.createDirectories(scratch);
    Files.writeString(
        scratch.resolve("planted.yaml"), ActionPipelineTest.configMap("planted", "x"));
    CliRun sign =
        CliRun.run(
            new HashMap<>(Map.of("COSIGN_PASSWORD", "countersign-demo")),
            "sign",
            "--key",
            "docs/example/demo.key",
            scratch.toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    git.commitToOrigin(
        "main",
        Map.of("signed/planted.yaml", Files.readString(scratch.resolve("planted.yaml"))),
        Set.of(),
        "plant");

    Path ws = git.clone("ws", 0, false);
    List<String> before = registry.snapshot();
    CliRun run =
        CliRun.run(
            new HashMap<>(stack.githubEnv()),
            "run",
            "--repo",
            ws.toString(),
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            "--publish-to",
            registry.host() + "/team/planted:main",
            "--plain-http");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("result: pushed")
        .contains("::error file=signed/planted.yaml,")
        .contains("does not verify")
        .contains("nothing was pushed or signed")
        .doesNotContain("pushed    ");
    assertThat(registry.snapshot()).as("registry storage").isEqualTo(before);
  }

  @Test
  void actionCommandPublish_rejectsAHandEditedFile_beforeAnyCertificate() throws Exception {
    Path repo = PublishCommandTest.signedRepository(tmp, "action-edited", "e");
    // The committed file, edited by hand (signatures kept), and committed again.
    String committed;
    try (org.eclipse.jgit.api.Git g = org.eclipse.jgit.api.Git.open(repo.toFile())) {
      var repository = g.getRepository();
      try (var walk =
          org.eclipse.jgit.treewalk.TreeWalk.forPath(
              repository,
              "signed/cm.yaml",
              repository.parseCommit(repository.resolve("HEAD")).getTree())) {
        committed =
            new String(
                repository.open(walk.getObjectId(0)).getBytes(),
                java.nio.charset.StandardCharsets.UTF_8);
      }
    }
    assertThat(committed).contains("value: e\n");
    Files.writeString(
        repo.resolve("signed/cm.yaml"), committed.replace("value: e\n", "value: evil\n"));
    PublishCommandTest.commitAll(repo);

    Map<String, String> env = new HashMap<>(stack.githubEnv());
    env.put("GITHUB_ACTIONS", "true");
    env.put("GITHUB_OUTPUT", tmp.resolve("github-output").toString());
    env.put("INPUT_COMMAND", "publish");
    env.put("INPUT_PATH", repo.toString());
    env.put("INPUT_SOURCE", "signed");
    env.put("INPUT_TO", registry.host() + "/team/action-edited:v1");
    env.put("INPUT_PLAIN_HTTP", "true");
    env.put("INPUT_TRUSTED_ROOT", stack.trustedRoot().toString());
    env.put("INPUT_SIGNING_CONFIG", stack.signingConfig().toString());
    env.put("INPUT_TOKEN", "");
    List<String> before = registry.snapshot();
    stack.resetStats();

    CliRun run = CliRun.run(env, "action");

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.out())
        .contains("::error file=signed/cm.yaml,")
        .contains("content differs from the signed message");
    assertThat(registry.snapshot()).as("registry storage").isEqualTo(before);
    assertThat(stack.stats().certificates()).as("no Fulcio certificate").isZero();
    assertThat(
            Files.exists(tmp.resolve("github-output"))
                ? Files.readString(tmp.resolve("github-output"))
                : "")
        .doesNotContain("artifact-digest");
  }

  private byte[] get(String path) throws Exception {
    HttpResponse<byte[]> response =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://" + registry.host() + path))
                    .header("Accept", "application/vnd.oci.image.manifest.v1+json")
                    .build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }
}
