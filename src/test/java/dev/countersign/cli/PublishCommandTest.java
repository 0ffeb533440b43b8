package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.countersign.support.ExitCode;
import dev.countersign.support.Sha256;
import dev.countersign.testing.OciTestRegistry;
import dev.countersign.testing.RequiresOciRegistry;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;
import org.eclipse.jgit.api.Git;
import org.eclipse.jgit.lib.PersonIdent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code countersign publish} and {@code verify --oci} against a real OCI registry (CNCF
 * distribution on loopback) and the loopback Sigstore stack: the artifact reads back byte for byte,
 * re-publishing pushes nothing, the signature is in cosign's format (checked by sigstore-js too),
 * and verification catches a wrong identity, a tampered layer and a swapped signature.
 */
@RequiresSigstoreStack
@RequiresOciRegistry
class PublishCommandTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Pattern DIGEST = Pattern.compile("@(sha256:[0-9a-f]{64})");
  private static final String DEMO_KEY = "docs/example/demo.key";
  private static final String DEMO_PUB = "docs/example/demo.pub";

  private final SigstoreTestStack stack;
  private final OciTestRegistry registry;
  private final HttpClient http = HttpClient.newHttpClient();
  @TempDir Path tmp;

  PublishCommandTest(SigstoreTestStack stack, OciTestRegistry registry) {
    this.stack = stack;
    this.registry = registry;
  }

  @Test
  void publish_pullsBackByDigest_asTheCommittedBytes_andRepublishPushesNothing() throws Exception {
    Path repo = signedRepository("first", "a");
    String to = registry.host() + "/team/first:v1";

    CliRun first = publishKeyless(repo, to);
    assertThat(first.exitCode()).as(first.all()).isZero();
    String digest = digestIn(first.out());
    assertThat(first.out())
        .contains("pushed    " + registry.host() + "/team/first@" + digest)
        .contains("signed    ");

    // Pull back by digest with plain HTTP: the manifest hashes to the digest, the layer holds the
    // committed files.
    byte[] manifest =
        get("/v2/team/first/manifests/" + digest, "application/vnd.oci.image.manifest.v1+json");
    assertThat(Sha256.digest(manifest)).isEqualTo(digest);
    JsonNode m = JSON.readTree(manifest);
    assertThat(m.path("artifactType").asText())
        .isEqualTo("application/vnd.countersign.signed-manifests.v1");
    assertThat(m.path("annotations").path("org.opencontainers.image.revision").asText())
        .isEqualTo(head(repo));
    assertThat(m.path("annotations").path("org.opencontainers.image.created").asText())
        .isEqualTo("2026-01-02T03:04:05Z");
    byte[] layer =
        get("/v2/team/first/blobs/" + m.path("layers").get(0).path("digest").asText(), null);
    assertThat(untar(layer)).isEqualTo(committedFiles(repo));
    // The tag points at the same manifest.
    assertThat(
            Sha256.digest(
                get("/v2/team/first/manifests/v1", "application/vnd.oci.image.manifest.v1+json")))
        .isEqualTo(digest);
    // The signature tag exists.
    byte[] signatureManifest =
        get(
            "/v2/team/first/manifests/" + digest.replace(':', '-') + ".sig",
            "application/vnd.oci.image.manifest.v1+json");
    assertThat(JSON.readTree(signatureManifest).path("layers")).hasSize(1);

    List<String> before = registry.snapshot();
    CliRun again = publishKeyless(repo, to);
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(digestIn(again.out())).isEqualTo(digest);
    assertThat(again.out())
        .contains("unchanged " + registry.host() + "/team/first@" + digest)
        .contains("0 blob(s) and 0 manifest(s) sent")
        .contains("already signed by " + stack.identitySan());
    assertThat(registry.snapshot()).as("registry storage after re-publishing").isEqualTo(before);
  }

  @Test
  void verifyOci_passesForTheSigner_failsForAnotherIdentity() throws Exception {
    Path repo = signedRepository("second", "b");
    CliRun publish = publishKeyless(repo, registry.host() + "/team/second");
    assertThat(publish.exitCode()).as(publish.all()).isZero();
    String reference = registry.host() + "/team/second@" + digestIn(publish.out());

    CliRun right = verifyOci(reference, stack.identitySan(), stack.identityIssuer());
    assertThat(right.exitCode()).as(right.all()).isZero();
    assertThat(right.out()).contains("PASS " + reference + ": signed by " + stack.identitySan());

    CliRun wrongSan =
        verifyOci(
            reference,
            "https://github.com/octo-org/octo-repo/.github/workflows/other.yml@refs/heads/main",
            stack.identityIssuer());
    assertThat(wrongSan.exitCode()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(wrongSan.out()).contains("FAIL").contains("does not match the allowed identities");

    CliRun wrongIssuer = verifyOci(reference, stack.identitySan(), "https://accounts.google.com");
    assertThat(wrongIssuer.exitCode()).isEqualTo(ExitCode.REJECTED.code());
  }

  @Test
  void verifyOci_twoWorkflowsOfOneRegexEntry_countOnce_soTheKeyMustStillSign() throws Exception {
    Path repo = signedRepository("quorum", "q");
    String to = registry.host() + "/team/quorum";
    CliRun first = publishKeyless(repo, to);
    assertThat(first.exitCode()).as(first.all()).isZero();
    String reference = registry.host() + "/team/quorum@" + digestIn(first.out());
    // A second workflow of the same repository signs the same artifact: another SAN.
    String otherWorkflow = stack.identitySan().replaceFirst("/[^/]+@", "/other.yml@");
    assertThat(otherWorkflow).isNotEqualTo(stack.identitySan());
    String token =
        stack.tokenFor(
            Map.of("job_workflow_ref", otherWorkflow.replace("https://github.com/", "")));
    CliRun second = publishKeyless(repo, to, "--identity-token", token);
    assertThat(second.exitCode()).as(second.all()).isZero();
    String workflows = stack.identitySan().replaceFirst("/[^/]+@.*", "/") + ".*";

    // The policy asks for the repository's workflows (one entry) and the demo key: two parties.
    CliRun withoutTheKey = verifyOciForWorkflowsAndDemoKey(reference, workflows);
    assertThat(withoutTheKey.exitCode())
        .as(withoutTheKey.all())
        .isEqualTo(ExitCode.REJECTED.code());
    assertThat(withoutTheKey.out())
        .contains(
            "1 distinct signer(s) verified ("
                + stack.identitySan()
                + "), 2 required; "
                + otherWorkflow
                + " verified too, but only for a policy entry already counted");

    // Control: once the key holder signs too, the two parties are there.
    CliRun keyed =
        CliRun.run(
            new HashMap<>(Map.of("COSIGN_PASSWORD", "countersign-demo")),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            to,
            "--plain-http",
            "--key",
            DEMO_KEY);
    assertThat(keyed.exitCode()).as(keyed.all()).isZero();
    CliRun withTheKey = verifyOciForWorkflowsAndDemoKey(reference, workflows);
    assertThat(withTheKey.exitCode()).as(withTheKey.all()).isZero();
  }

  private CliRun verifyOciForWorkflowsAndDemoKey(String reference, String workflowsRegex) {
    return CliRun.run(
        new HashMap<>(),
        "verify",
        "--oci",
        reference,
        "--plain-http",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--certificate-identity-regexp",
        workflowsRegex,
        "--certificate-oidc-issuer",
        stack.identityIssuer(),
        "--key",
        DEMO_PUB,
        "--min-signers",
        "2");
  }

  @Test
  void verifyOci_failsForATamperedLayer() throws Exception {
    Path repo = signedRepository("third", "c");
    CliRun publish = publishKeyless(repo, registry.host() + "/team/third");
    assertThat(publish.exitCode()).as(publish.all()).isZero();
    String digest = digestIn(publish.out());
    String reference = registry.host() + "/team/third@" + digest;
    assertThat(verifyOci(reference, stack.identitySan(), stack.identityIssuer()).exitCode())
        .isZero();

    String layerDigest =
        JSON.readTree(
                get(
                    "/v2/team/third/manifests/" + digest,
                    "application/vnd.oci.image.manifest.v1+json"))
            .path("layers")
            .get(0)
            .path("digest")
            .asText();
    Path data = registry.blobData(layerDigest);
    byte[] original = Files.readAllBytes(data);
    byte[] tampered = original.clone();
    tampered[tampered.length / 2] ^= 0x01;
    Files.write(data, tampered);

    CliRun verify = verifyOci(reference, stack.identitySan(), stack.identityIssuer());
    assertThat(verify.exitCode()).as(verify.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(verify.out()).contains("FAIL").contains("content was altered").contains(layerDigest);
  }

  @Test
  void verifyOci_failsForASwappedSignature() throws Exception {
    Path repoA = signedRepository("swap", "d");
    String digestA = digestIn(publishKeyless(repoA, registry.host() + "/team/swap").out());
    Path repoB = signedRepository("swap", "e");
    String digestB = digestIn(publishKeyless(repoB, registry.host() + "/team/swap").out());
    assertThat(digestA).isNotEqualTo(digestB);
    String referenceA = registry.host() + "/team/swap@" + digestA;
    String sigTagA = digestA.replace(':', '-') + ".sig";
    String sigTagB = digestB.replace(':', '-') + ".sig";
    byte[] signatureA =
        get("/v2/team/swap/manifests/" + sigTagA, "application/vnd.oci.image.manifest.v1+json");
    byte[] signatureB =
        get("/v2/team/swap/manifests/" + sigTagB, "application/vnd.oci.image.manifest.v1+json");

    // B's whole signature (a valid signature, by the right identity, of another artifact) under A's
    // tag.
    put("/v2/team/swap/manifests/" + sigTagA, signatureB);
    CliRun wholeSwap = verifyOci(referenceA, stack.identitySan(), stack.identityIssuer());
    assertThat(wholeSwap.exitCode()).as(wholeSwap.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(wholeSwap.out()).contains("signs another artifact (" + digestB + ")");

    // A's payload with B's signature annotations (signature, certificate, bundle).
    ObjectNode mixed = (ObjectNode) JSON.readTree(signatureA);
    ((ObjectNode) mixed.path("layers").get(0))
        .set("annotations", JSON.readTree(signatureB).path("layers").get(0).path("annotations"));
    put("/v2/team/swap/manifests/" + sigTagA, JSON.writeValueAsBytes(mixed));
    CliRun annotationSwap = verifyOci(referenceA, stack.identitySan(), stack.identityIssuer());
    assertThat(annotationSwap.exitCode())
        .as(annotationSwap.all())
        .isEqualTo(ExitCode.REJECTED.code());
    assertThat(annotationSwap.out()).contains("FAIL");

    put("/v2/team/swap/manifests/" + sigTagA, signatureA);
    assertThat(verifyOci(referenceA, stack.identitySan(), stack.identityIssuer()).exitCode())
        .isZero();
  }

  /**
   * Someone with push access to the repository fills the signature tag with more layers than cosign
   * (and so Flux) reads: the genuine signature is among them, but no cosign-format consumer will
   * accept the tag, and verifying thousands of layers would hold the job for as long as the
   * registry likes. verify --oci refuses the tag before fetching a single payload.
   */
  @Test
  void verifyOci_signatureTagWithMoreLayersThanCosignReads_fails() throws Exception {
    Path repo = signedRepository("crowded", "g");
    String digest = digestIn(publishKeyless(repo, registry.host() + "/team/crowded").out());
    String reference = registry.host() + "/team/crowded@" + digest;
    String sigTag = digest.replace(':', '-') + ".sig";
    assertThat(verifyOci(reference, stack.identitySan(), stack.identityIssuer()).exitCode())
        .as("the tag as publish wrote it")
        .isZero();

    put(
        "/v2/team/crowded/manifests/" + sigTag,
        signatureManifestPaddedTo("team/crowded", sigTag, 1001, true));
    CliRun crowded = verifyOci(reference, stack.identitySan(), stack.identityIssuer());
    assertThat(crowded.exitCode()).as(crowded.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(crowded.out())
        .contains(
            "FAIL "
                + reference
                + ": the signature manifest "
                + sigTag
                + " is unusable: it has 1001 layers, more than the 1000 cosign reads");

    put(
        "/v2/team/crowded/manifests/" + sigTag,
        signatureManifestPaddedTo("team/crowded", sigTag, 1000, true));
    assertThat(verifyOci(reference, stack.identitySan(), stack.identityIssuer()).exitCode())
        .as("1000 layers, as many as cosign reads")
        .isZero();
  }

  /**
   * A signature tag already holding as many layers as cosign reads (planted, unsigned): appending
   * the new signature would make a tag nothing reads, so publish replaces it with one holding only
   * its signature, which verifies.
   */
  @Test
  void publish_ontoASignatureTagFilledToCosignsLimit_writesATagThatVerifies() throws Exception {
    Path repo = signedRepository("full", "h");
    String to = registry.host() + "/team/full";
    String digest = digestIn(publishKeyless(repo, to).out());
    String reference = to + "@" + digest;
    String sigTag = digest.replace(':', '-') + ".sig";
    put(
        "/v2/team/full/manifests/" + sigTag,
        signatureManifestPaddedTo("team/full", sigTag, 1000, false));
    assertThat(verifyOci(reference, stack.identitySan(), stack.identityIssuer()).exitCode())
        .as("no layer of the planted tag carries a signature")
        .isEqualTo(ExitCode.REJECTED.code());

    CliRun again = publishKeyless(repo, to);
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("signed    ");
    JsonNode written =
        JSON.readTree(
            get("/v2/team/full/manifests/" + sigTag, "application/vnd.oci.image.manifest.v1+json"));
    assertThat(written.path("layers")).hasSize(1);
    CliRun verify = verifyOci(reference, stack.identitySan(), stack.identityIssuer());
    assertThat(verify.exitCode()).as(verify.all()).isZero();
  }

  /**
   * The signature manifest at {@code sigTag} in {@code repository} with its first layer repeated to
   * {@code count} layers; the first keeps its annotations when {@code keepSignature}, every other
   * one has none.
   */
  private byte[] signatureManifestPaddedTo(
      String repository, String sigTag, int count, boolean keepSignature) throws Exception {
    ObjectNode manifest =
        (ObjectNode)
            JSON.readTree(
                get(
                    "/v2/" + repository + "/manifests/" + sigTag,
                    "application/vnd.oci.image.manifest.v1+json"));
    ObjectNode first = (ObjectNode) manifest.path("layers").get(0);
    ArrayNode layers = manifest.putArray("layers");
    for (int i = 0; i < count; i++) {
      ObjectNode layer = first.deepCopy();
      if (i > 0 || !keepSignature) {
        layer.remove("annotations");
      }
      layers.add(layer);
    }
    return JSON.writeValueAsBytes(manifest);
  }

  @Test
  void signature_isVerifiedBySigstoreJs_withABundleFromTheTagAnnotations() throws Exception {
    Path repo = signedRepository("js", "f");
    CliRun publish = publishKeyless(repo, registry.host() + "/team/js");
    assertThat(publish.exitCode()).as(publish.all()).isZero();
    String digest = digestIn(publish.out());
    JsonNode layer =
        JSON.readTree(
                get(
                    "/v2/team/js/manifests/" + digest.replace(':', '-') + ".sig",
                    "application/vnd.oci.image.manifest.v1+json"))
            .path("layers")
            .get(0);
    assertThat(layer.path("mediaType").asText())
        .isEqualTo("application/vnd.dev.cosign.simplesigning.v1+json");
    JsonNode annotations = layer.path("annotations");
    assertThat(annotations.fieldNames())
        .toIterable()
        .containsExactly(
            "dev.cosignproject.cosign/signature",
            "dev.sigstore.cosign/bundle",
            "dev.sigstore.cosign/certificate",
            "dev.sigstore.cosign/chain");
    byte[] payload = get("/v2/team/js/blobs/" + layer.path("digest").asText(), null);
    assertThat(new String(payload, StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"critical\":{\"identity\":{\"docker-reference\":\""
                + registry.host()
                + "/team/js\"},\"image\":{\"docker-manifest-digest\":\""
                + digest
                + "\"},\"type\":\"cosign container image signature\"},\"optional\":null}");
    assertThat(
            JSON.readTree(payload)
                .path("critical")
                .path("image")
                .path("docker-manifest-digest")
                .asText())
        .isEqualTo(digest);
    assertThat(annotations.path("dev.sigstore.cosign/chain").asText())
        .startsWith("-----BEGIN CERTIFICATE-----\n");

    Path payloadFile = tmp.resolve("payload.json");
    Files.write(payloadFile, payload);
    Path bundle = tmp.resolve("payload.sigstore.json");
    Files.writeString(bundle, sigstoreBundle(payload, annotations));

    SigstoreTestStack.ToolResult js =
        stack.verifyWithSigstoreJs(
            bundle, payloadFile, stack.identitySan(), stack.identityIssuer());
    assertThat(js.exitCode()).as(js.output()).isZero();
    SigstoreTestStack.ToolResult wrongIdentity =
        stack.verifyWithSigstoreJs(
            bundle,
            payloadFile,
            "https://github.com/octo-org/octo-repo/.github/workflows/other.yml@refs/heads/main",
            stack.identityIssuer());
    assertThat(wrongIdentity.exitCode()).as(wrongIdentity.output()).isNotZero();
    Files.writeString(
        payloadFile,
        new String(payload, StandardCharsets.UTF_8).replace(digest.substring(7, 15), "00000000"));
    SigstoreTestStack.ToolResult otherPayload =
        stack.verifyWithSigstoreJs(
            bundle, payloadFile, stack.identitySan(), stack.identityIssuer());
    assertThat(otherPayload.exitCode()).as(otherPayload.output()).isNotZero();
  }

  @Test
  void emitManifest_isAByteStableFluxOCIRepository_thatValidatesAgainstFluxsCrd() throws Exception {
    Path repo = signedRepository("flux", "g");
    Path emitted = tmp.resolve("gitops/ocirepository.yaml");
    CliRun publish =
        publishKeyless(
            repo,
            registry.host() + "/team/flux-manifests:latest",
            "--emit-manifest",
            emitted.toString());
    assertThat(publish.exitCode()).as(publish.all()).isZero();
    String digest = digestIn(publish.out());
    String text = Files.readString(emitted);
    assertThat(text)
        .isEqualTo(
            "# countersign publish \u2014 digest="
                + digest
                + " signer="
                + stack.identitySan()
                + "\n"
                + "apiVersion: source.toolkit.fluxcd.io/v1\n"
                + "kind: OCIRepository\n"
                + "metadata:\n"
                + "  name: flux-manifests\n"
                + "  namespace: flux-system\n"
                + "spec:\n"
                + "  interval: 10m\n"
                + "  url: oci://"
                + registry.host()
                + "/team/flux-manifests\n"
                + "  ref:\n"
                + "    digest: "
                + digest
                + "\n"
                + "  insecure: true\n"
                + "  verify:\n"
                + "    provider: cosign\n"
                + "    matchOIDCIdentity:\n"
                + "      - issuer: \"^https://token\\\\.actions\\\\.githubusercontent\\\\.com$\"\n"
                + "        subject: \"^"
                + stack.identitySan().replace(".", "\\\\.")
                + "$\"\n");
    assertThat(
            Pattern.compile(
                    YAMLMapper.builder()
                        .build()
                        .readTree(text)
                        .path("spec")
                        .path("verify")
                        .path("matchOIDCIdentity")
                        .get(0)
                        .path("subject")
                        .asText())
                .matcher(stack.identitySan())
                .matches())
        .isTrue();
    assertThat(fluxSchemaErrors(text)).isEmpty();

    byte[] first = Files.readAllBytes(emitted);
    CliRun refused =
        publishKeyless(
            repo,
            registry.host() + "/team/flux-manifests:latest",
            "--emit-manifest",
            emitted.toString());
    assertThat(refused.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(refused.err()).contains("Refusing to overwrite " + emitted).contains("--force");
    CliRun forced =
        publishKeyless(
            repo,
            registry.host() + "/team/flux-manifests:latest",
            "--emit-manifest",
            emitted.toString(),
            "--force");
    assertThat(forced.exitCode()).as(forced.all()).isZero();
    assertThat(Files.readAllBytes(emitted)).isEqualTo(first);
  }

  @Test
  void emittedManifest_withAnInvalidField_failsTheCrdSchema() throws Exception {
    // The schema check can fail: a wrong provider and a missing url are reported.
    String broken =
        "apiVersion: source.toolkit.fluxcd.io/v1\n"
            + "kind: OCIRepository\n"
            + "metadata:\n"
            + "  name: x\n"
            + "spec:\n"
            + "  interval: 10m\n"
            + "  verify:\n"
            + "    provider: gpg\n";
    assertThat(fluxSchemaErrors(broken))
        .anyMatch(e -> e.contains("url"))
        .anyMatch(e -> e.contains("provider"));
  }

  @Test
  void emitManifestThroughADirectoryLinkInTheCheckout_isRefused_beforeAnythingIsPushed()
      throws Exception {
    // The step runs as root: a link in the checkout must not carry the write out of it.
    Path repo = signedRepository("emitlink", "l");
    Path outside = Files.createDirectories(tmp.resolve("outside-the-checkout"));
    Files.createSymbolicLink(repo.resolve("gitops"), outside);
    List<String> before = registry.snapshot();

    CliRun run =
        publishKeyless(
            repo,
            registry.host() + "/team/emitlink:latest",
            "--emit-manifest",
            repo.resolve("gitops/ocirepository.yaml").toString());

    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.INVALID_INPUT.code());
    assertThat(run.err()).contains("gitops").contains("is a symbolic link");
    assertThat(outside).isEmptyDirectory();
    assertThat(registry.snapshot()).isEqualTo(before);
  }

  @Test
  void noSign_withEmitManifest_isRefused_beforeAnythingIsPushed() throws Exception {
    Path repo = signedRepository("nosign", "h");
    List<String> before = registry.snapshot();
    CliRun run =
        CliRun.run(
            new HashMap<>(),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/nosign",
            "--plain-http",
            "--no-sign",
            "--emit-manifest",
            tmp.resolve("x.yaml").toString());
    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--no-sign cannot be combined with --emit-manifest");
    assertThat(registry.snapshot()).isEqualTo(before);

    CliRun unsigned =
        CliRun.run(
            new HashMap<>(),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/nosign",
            "--plain-http",
            "--no-sign");
    assertThat(unsigned.exitCode()).as(unsigned.all()).isZero();
    assertThat(unsigned.all()).contains("WITHOUT a signature").contains("UNSIGNED");
    CliRun verify =
        verifyOci(
            registry.host() + "/team/nosign@" + digestIn(unsigned.out()),
            stack.identitySan(),
            stack.identityIssuer());
    assertThat(verify.exitCode()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(verify.out()).contains("no signature");
  }

  @Test
  void keyedPublish_verifiesWithTheKey_andEmitsASecretRef() throws Exception {
    Path repo = signedRepository("keyed", "i");
    Path emitted = tmp.resolve("keyed.yaml");
    Map<String, String> env = new HashMap<>(Map.of("COSIGN_PASSWORD", "countersign-demo"));
    CliRun publish =
        CliRun.run(
            env,
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/keyed",
            "--plain-http",
            "--key",
            DEMO_KEY,
            "--emit-manifest",
            emitted.toString());
    assertThat(publish.exitCode()).as(publish.all()).isZero();
    String reference = registry.host() + "/team/keyed@" + digestIn(publish.out());
    assertThat(Files.readString(emitted))
        .contains("    secretRef:\n      name: keyed-cosign-pub\n")
        .startsWith("# countersign publish \u2014 digest=sha256:");
    assertThat(fluxSchemaErrors(Files.readString(emitted))).isEmpty();

    CliRun right =
        CliRun.run(
            new HashMap<>(), "verify", "--oci", reference, "--plain-http", "--key", DEMO_PUB);
    assertThat(right.exitCode()).as(right.all()).isZero();
    Path otherKey = Path.of("src/test/resources/verification/k8s-manifest-sigstore/key-c.pub");
    CliRun wrong =
        CliRun.run(
            new HashMap<>(),
            "verify",
            "--oci",
            reference,
            "--plain-http",
            "--key",
            otherKey.toString());
    assertThat(wrong.exitCode()).as(wrong.all()).isEqualTo(ExitCode.REJECTED.code());

    // Keyed re-publish recognises its own signature: the registry is left as it was.
    List<String> before = registry.snapshot();
    CliRun again =
        CliRun.run(
            env,
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/keyed",
            "--plain-http",
            "--key",
            DEMO_KEY);
    assertThat(again.exitCode()).as(again.all()).isZero();
    assertThat(again.out()).contains("already signed");
    assertThat(registry.snapshot()).isEqualTo(before);
  }

  @Test
  void unsignedManifests_areRejected_andNothingIsPushedOrSigned() throws Exception {
    Path repo = tmp.resolve("unsigned-repo");
    Files.createDirectories(repo.resolve("signed"));
    Files.writeString(repo.resolve("signed/cm.yaml"), ActionPipelineTest.configMap("plain", "x"));
    writePolicy(repo);
    commitAll(repo);
    assertRejected(repo, "unsigned", "signed/cm.yaml", "the file is not signed");
  }

  @Test
  void forgedSignatureAnnotation_isRejected_nothingPushed_noCertificate() throws Exception {
    Path repo = signedRepository("forged", "m");
    String signed = committedText(repo, "signed/cm.yaml");
    Matcher signature =
        Pattern.compile("(cosign\\.sigstore\\.dev/signature: )(\\S+)").matcher(signed);
    assertThat(signature.find()).as(signed).isTrue();
    String forged =
        signed.substring(0, signature.start(2))
            + Base64.getEncoder()
                .encodeToString(
                    "not a signature over this message".getBytes(StandardCharsets.UTF_8))
            + signed.substring(signature.end(2));
    Files.writeString(repo.resolve("signed/cm.yaml"), forged);
    commitAll(repo);
    assertRejected(repo, "forged", "signed/cm.yaml", "the signature does not verify with the key");
  }

  @Test
  void fileEditedAfterSigning_isRejected_nothingPushed_noCertificate() throws Exception {
    Path repo = signedRepository("edited", "n");
    restoreCommitted(repo);
    String signed = committedText(repo, "signed/apps/second.yaml");
    assertThat(signed).contains("value: n2");
    Files.writeString(
        repo.resolve("signed/apps/second.yaml"), signed.replace("value: n2", "value: evil"));
    commitAll(repo);
    assertRejected(
        repo,
        "edited",
        "signed/apps/second.yaml",
        "content differs from the signed message at data.value");
  }

  @Test
  void fileSignedByAnotherIdentity_isRejected_nothingPushed_noCertificate() throws Exception {
    Path repo = signedRepository("stranger", "o");
    restoreCommitted(repo);
    // Signed keylessly by the test stack's workflow identity: a valid signature, but the
    // repository's policy trusts only the demo key.
    Files.writeString(
        repo.resolve("signed/stranger.yaml"), ActionPipelineTest.configMap("stranger", "o3"));
    CliRun sign =
        CliRun.run(
            new HashMap<>(stack.githubEnv()),
            "sign",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString(),
            repo.resolve("signed/stranger.yaml").toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    commitAll(repo);
    assertRejected(repo, "stranger", "signed/stranger.yaml", "is a keyless signature");
    // Verification reads the policy from the commit: the same file passes once the commit's
    // policy trusts that identity too (control).
    Files.writeString(
        repo.resolve(".countersign/policy.yaml"),
        POLICY
            + "signers:\n  - issuer: "
            + stack.identityIssuer()
            + "\n    subject: "
            + stack.identitySan()
            + "\n");
    CliRun uncommitted = publishKeyless(repo, registry.host() + "/team/stranger");
    assertThat(uncommitted.exitCode())
        .as("a work-tree policy does not count: " + uncommitted.all())
        .isEqualTo(ExitCode.REJECTED.code());
    commitAll(repo);
    CliRun trusted = publishKeyless(repo, registry.host() + "/team/stranger");
    assertThat(trusted.exitCode()).as(trusted.all()).isZero();
  }

  @Test
  void noSign_stillVerifies_andRejectsAnEditedFile() throws Exception {
    Path repo = signedRepository("nosign-edited", "q");
    String signed = committedText(repo, "signed/cm.yaml");
    Files.writeString(repo.resolve("signed/cm.yaml"), signed.replace("value: q", "value: evil"));
    commitAll(repo);
    List<String> before = registry.snapshot();
    CliRun run =
        CliRun.run(
            new HashMap<>(),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/nosign-edited",
            "--plain-http",
            "--no-sign");
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    assertThat(run.err()).contains("signed/cm.yaml");
    assertThat(registry.snapshot()).isEqualTo(before);
  }

  @Test
  void missingTrustPolicy_isAUsageError_beforeAnythingIsPushed() throws Exception {
    Path repo = signedRepository("nopolicy", "r");
    restoreCommitted(repo);
    Files.delete(repo.resolve(".countersign/policy.yaml"));
    commitAll(repo);
    List<String> before = registry.snapshot();
    CliRun run = publishKeyless(repo, registry.host() + "/team/nopolicy");
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("No trust policy found at .countersign/policy.yaml");
    assertThat(registry.snapshot()).isEqualTo(before);
  }

  /**
   * Publishing {@code repo} keylessly exits 1 naming {@code file}; the registry is untouched and no
   * certificate is issued.
   */
  private void assertRejected(Path repo, String name, String file, String reason) throws Exception {
    List<String> before = registry.snapshot();
    stack.resetStats();
    CliRun run = publishKeyless(repo, registry.host() + "/team/" + name + ":v1");
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REJECTED.code());
    // In the workflow environment the finding is an error annotation on the file (stdout).
    assertThat(run.all())
        .contains("::error file=" + file + ",")
        .contains("does not verify")
        .contains(reason);
    assertThat(run.out())
        .contains("nothing was pushed or signed")
        .doesNotContain("pushed    ")
        .doesNotContain("signed    ");
    assertThat(registry.snapshot()).as("registry storage").isEqualTo(before);
    assertThat(status("/v2/team/" + name + "/manifests/v1"))
        .as("no manifest for the tag")
        .isEqualTo(404);
    assertThat(
            registry.snapshot().stream().filter(p -> p.contains("repositories/team/" + name + "/")))
        .as("nothing for the repository")
        .isEmpty();
    assertThat(stack.stats().certificates()).as("no Fulcio certificate requested").isZero();
    assertThat(stack.stats().logEntries()).as("no Rekor entry").isZero();
  }

  @Test
  void keylessWithoutAnIdentityToken_failsBeforeAnythingIsPushed() throws Exception {
    Path repo = signedRepository("notoken", "l");
    List<String> before = registry.snapshot();
    CliRun run =
        CliRun.run(
            new HashMap<>(),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            registry.host() + "/team/notoken",
            "--plain-http",
            "--trusted-root",
            stack.trustedRoot().toString(),
            "--signing-config",
            stack.signingConfig().toString());
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.ENVIRONMENT.code());
    assertThat(run.err()).contains("No OIDC identity token is available while signing keylessly");
    assertThat(registry.snapshot()).as("nothing pushed").isEqualTo(before);
  }

  @Test
  void unreachableRegistry_isARemoteProblem() throws Exception {
    Path repo = signedRepository("down", "j");
    int closedPort;
    try (java.net.ServerSocket socket =
        new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      closedPort = socket.getLocalPort();
    }
    CliRun run = publishKeyless(repo, "127.0.0.1:" + closedPort + "/team/down");
    assertThat(run.exitCode()).as(run.all()).isEqualTo(ExitCode.REMOTE.code());
    assertThat(run.err()).contains("Registry 127.0.0.1:" + closedPort + " is unreachable");
  }

  @Test
  void plainHttp_isRefusedForARegistryThatIsNotLoopback() throws Exception {
    Path repo = signedRepository("remote", "k");
    CliRun run =
        CliRun.run(
            new HashMap<>(),
            "publish",
            "--repo",
            repo.toString(),
            "signed",
            "--to",
            "registry.example.com/team/x",
            "--plain-http",
            "--no-sign");
    assertThat(run.exitCode()).isEqualTo(ExitCode.USAGE.code());
    assertThat(run.err()).contains("--plain-http is only allowed for a registry on this machine");
  }

  // ---------------------------------------------------------------------------------------------

  private CliRun publishKeyless(Path repo, String to, String... extra) {
    List<String> args =
        new java.util.ArrayList<>(
            List.of(
                "publish",
                "--repo",
                repo.toString(),
                "signed",
                "--to",
                to,
                "--plain-http",
                "--trusted-root",
                stack.trustedRoot().toString(),
                "--signing-config",
                stack.signingConfig().toString()));
    args.addAll(List.of(extra));
    return CliRun.run(new HashMap<>(stack.githubEnv()), args.toArray(String[]::new));
  }

  private CliRun verifyOci(String reference, String san, String issuer) {
    return CliRun.run(
        new HashMap<>(),
        "verify",
        "--oci",
        reference,
        "--plain-http",
        "--trusted-root",
        stack.trustedRoot().toString(),
        "--certificate-identity",
        san,
        "--certificate-oidc-issuer",
        issuer);
  }

  /**
   * A git repository whose signed/ holds two manifests signed with the demo key, committed at a
   * fixed time.
   */
  private Path signedRepository(String name, String value) throws Exception {
    return signedRepository(tmp, name, value);
  }

  static Path signedRepository(Path tmp, String name, String value) throws Exception {
    Path repo = tmp.resolve(name + "-" + value + "-repo");
    Files.createDirectories(repo.resolve("signed/apps"));
    Files.writeString(repo.resolve("signed/cm.yaml"), ActionPipelineTest.configMap(name, value));
    Files.writeString(
        repo.resolve("signed/apps/second.yaml"),
        ActionPipelineTest.configMap(name + "-second", value + "2"));
    Files.writeString(repo.resolve("signed/README.md"), "not a manifest\n");
    writePolicy(repo);
    CliRun sign =
        CliRun.run(
            new HashMap<>(Map.of("COSIGN_PASSWORD", "countersign-demo")),
            "sign",
            "--key",
            DEMO_KEY,
            repo.resolve("signed").toString());
    assertThat(sign.exitCode()).as(sign.all()).isZero();
    commitAll(repo);
    // A change in the work tree after the commit is not published: publish reads the commit.
    Files.writeString(repo.resolve("signed/cm.yaml"), "uncommitted\n");
    return repo;
  }

  private static final String POLICY =
      "apiVersion: countersign.dev/v1alpha1\n"
          + "kind: TrustPolicy\n"
          + "keys:\n"
          + "  - path: .countersign/cosign.pub\n";

  /** The repository's trust policy: the demo key signs its manifests. */
  static void writePolicy(Path repo) throws IOException {
    Files.createDirectories(repo.resolve(".countersign"));
    Files.copy(
        Path.of(DEMO_PUB),
        repo.resolve(".countersign/cosign.pub"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    Files.writeString(repo.resolve(".countersign/policy.yaml"), POLICY);
  }

  /**
   * Undoes the uncommitted work-tree edit {@link #signedRepository} leaves, before a test commits
   * again.
   */
  private static void restoreCommitted(Path repo) throws Exception {
    Files.writeString(repo.resolve("signed/cm.yaml"), committedText(repo, "signed/cm.yaml"));
  }

  static void commitAll(Path repo) throws Exception {
    try (Git git = Git.init().setDirectory(repo.toFile()).setInitialBranch("main").call()) {
      git.add().addFilepattern(".").call();
      PersonIdent who =
          new PersonIdent(
              "Test", "test@example.com", Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);
      git.commit().setMessage("manifests").setAuthor(who).setCommitter(who).setSign(false).call();
    }
  }

  private static String committedText(Path repo, String path) throws Exception {
    try (Git git = Git.open(repo.toFile())) {
      var repository = git.getRepository();
      try (var walk =
          org.eclipse.jgit.treewalk.TreeWalk.forPath(
              repository, path, repository.parseCommit(repository.resolve("HEAD")).getTree())) {
        return new String(repository.open(walk.getObjectId(0)).getBytes(), StandardCharsets.UTF_8);
      }
    }
  }

  private int status(String path) throws Exception {
    return http.send(
            HttpRequest.newBuilder(URI.create("http://" + registry.host() + path))
                .header("Accept", "application/vnd.oci.image.manifest.v1+json")
                .method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  private static String head(Path repo) throws Exception {
    try (Git git = Git.open(repo.toFile())) {
      return git.getRepository().resolve("HEAD").name();
    }
  }

  /** The manifests (not README.md) under signed/ as committed, relative to signed/. */
  private static Map<String, String> committedFiles(Path repo) throws Exception {
    Map<String, String> files = new TreeMap<>();
    try (Git git = Git.open(repo.toFile())) {
      var repository = git.getRepository();
      try (var walk = new org.eclipse.jgit.treewalk.TreeWalk(repository)) {
        walk.addTree(repository.parseCommit(repository.resolve("HEAD")).getTree());
        walk.setRecursive(true);
        while (walk.next()) {
          String path = walk.getPathString();
          if (path.startsWith("signed/") && path.endsWith(".yaml")) {
            files.put(
                path.substring("signed/".length()),
                new String(
                    repository.open(walk.getObjectId(0)).getBytes(), StandardCharsets.UTF_8));
          }
        }
      }
    }
    return files;
  }

  /** Reads a tar.gz with the JDK only: name -> content of regular files. */
  static Map<String, String> untar(byte[] tarGz) throws IOException {
    byte[] tar = new GZIPInputStream(new ByteArrayInputStream(tarGz)).readAllBytes();
    Map<String, String> files = new TreeMap<>();
    int offset = 0;
    while (offset + 512 <= tar.length && tar[offset] != 0) {
      String name = cString(tar, offset, 100);
      String prefix = cString(tar, offset + 345, 155);
      long size = Long.parseLong(cString(tar, offset + 124, 12).trim(), 8);
      String full = prefix.isEmpty() ? name : prefix + "/" + name;
      files.put(full, new String(tar, offset + 512, (int) size, StandardCharsets.UTF_8));
      offset += 512 + (int) ((size + 511) / 512 * 512);
    }
    return files;
  }

  private static String cString(byte[] bytes, int offset, int length) {
    int end = offset;
    while (end < offset + length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, offset, end - offset, StandardCharsets.US_ASCII);
  }

  static String digestIn(String output) {
    Matcher m = DIGEST.matcher(output);
    assertThat(m.find()).as(output).isTrue();
    return m.group(1);
  }

  private byte[] get(String path, String accept) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://" + registry.host() + path));
    if (accept != null) {
      request.header("Accept", accept);
    }
    HttpResponse<byte[]> response =
        http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    assertThat(response.statusCode()).as("GET " + path).isEqualTo(200);
    return response.body();
  }

  private void put(String path, byte[] manifest) throws Exception {
    HttpResponse<String> response =
        http.send(
            HttpRequest.newBuilder(URI.create("http://" + registry.host() + path))
                .header("Content-Type", "application/vnd.oci.image.manifest.v1+json")
                .PUT(HttpRequest.BodyPublishers.ofByteArray(manifest))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as("PUT " + path + ": " + response.body()).isEqualTo(201);
  }

  /**
   * A Sigstore bundle (v0.1: a certificate chain and a tlog entry with its inclusion promise) made
   * only from the signature layer's annotations, as a cosign-format consumer would.
   */
  private static String sigstoreBundle(byte[] payload, JsonNode annotations) throws Exception {
    JsonNode rekor = JSON.readTree(annotations.path("dev.sigstore.cosign/bundle").asText());
    JsonNode entryPayload = rekor.path("Payload");
    String certificatePem = annotations.path("dev.sigstore.cosign/certificate").asText();
    String der =
        certificatePem.replaceAll("-----(BEGIN|END) CERTIFICATE-----", "").replaceAll("\\s", "");
    ObjectNode bundle = JSON.createObjectNode();
    bundle.put("mediaType", "application/vnd.dev.sigstore.bundle+json;version=0.1");
    ObjectNode material = bundle.putObject("verificationMaterial");
    material
        .putObject("x509CertificateChain")
        .putArray("certificates")
        .addObject()
        .put("rawBytes", der);
    ArrayNode entries = material.putArray("tlogEntries");
    ObjectNode entry = entries.addObject();
    entry.put("logIndex", entryPayload.path("logIndex").asText());
    entry
        .putObject("logId")
        .put(
            "keyId",
            Base64.getEncoder()
                .encodeToString(
                    java.util.HexFormat.of().parseHex(entryPayload.path("logID").asText())));
    entry.putObject("kindVersion").put("kind", "hashedrekord").put("version", "0.0.1");
    entry.put("integratedTime", entryPayload.path("integratedTime").asText());
    entry
        .putObject("inclusionPromise")
        .put("signedEntryTimestamp", rekor.path("SignedEntryTimestamp").asText());
    entry.put("canonicalizedBody", entryPayload.path("body").asText());
    ObjectNode signature = bundle.putObject("messageSignature");
    signature
        .putObject("messageDigest")
        .put("algorithm", "SHA2_256")
        .put("digest", Base64.getEncoder().encodeToString(Sha256.of(payload)));
    signature.put("signature", annotations.path("dev.cosignproject.cosign/signature").asText());
    return JSON.writeValueAsString(bundle);
  }

  /**
   * Validation messages of {@code yaml} against the v1 openAPIV3Schema of Flux's OCIRepository CRD.
   */
  static List<String> fluxSchemaErrors(String yaml) throws IOException {
    YAMLMapper mapper = YAMLMapper.builder().build();
    JsonNode crd =
        mapper.readTree(
            Files.readString(
                Path.of(
                    "src/test/resources/publish/flux/source.toolkit.fluxcd.io_ocirepositories.yaml")));
    JsonNode schema = null;
    for (JsonNode version : crd.path("spec").path("versions")) {
      if (version.path("name").asText().equals("v1")) {
        schema = version.path("schema").path("openAPIV3Schema");
      }
    }
    assertThat(schema).as("v1 schema in the CRD").isNotNull();
    JsonSchema validator =
        JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4).getSchema(schema);
    JsonNode document = mapper.readTree(yaml);
    assertThat(document.path("apiVersion").asText()).isEqualTo("source.toolkit.fluxcd.io/v1");
    assertThat(document.path("kind").asText()).isEqualTo("OCIRepository");
    Set<ValidationMessage> messages = validator.validate(document);
    return messages.stream().map(ValidationMessage::getMessage).toList();
  }
}
