package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.gate.GateRepository;
import dev.countersign.signing.KeylessOptions;
import dev.countersign.signing.MessageSigner;
import dev.countersign.signing.SigstoreKeylessSigner;
import dev.countersign.support.Env;
import dev.countersign.testing.RequiresSigstoreStack;
import dev.countersign.testing.SigstoreTestStack;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gate over keylessly signed manifests, verified with the loopback stack's trusted root. */
@RequiresSigstoreStack
class CheckCommandKeylessTest {

  private final SigstoreTestStack stack;
  private final List<SigstoreKeylessSigner> signers = new ArrayList<>();
  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  @TempDir Path work;
  @TempDir Path scratch;

  CheckCommandKeylessTest(SigstoreTestStack stack) {
    this.stack = stack;
  }

  @BeforeEach
  void clearFaults() {
    stack.clearFaults();
  }

  @AfterEach
  void closeSigners() {
    signers.forEach(SigstoreKeylessSigner::close);
  }

  private Supplier<MessageSigner> signer(Map<String, String> claims) {
    return () -> {
      SigstoreKeylessSigner signer =
          new SigstoreKeylessSigner(
              KeylessOptions.custom(stack.trustedRoot(), stack.signingConfig())
                  .withIdentityToken(stack.tokenFor(claims)),
              Env.empty(),
              Clock.systemUTC(),
              token -> {});
      signers.add(signer);
      return signer;
    };
  }

  private int check() {
    return Main.run(
        Runtime.of(
            Env.empty(), Clock.systemUTC(), new PrintWriter(out, true), new PrintWriter(err, true)),
        "check",
        "--repo",
        work.toString(),
        "--trusted-root",
        stack.trustedRoot().toString());
  }

  @Test
  void check_keylessSignaturesByThePolicysIdentity_passThenFailAfterAHandEdit() {
    GateRepository repo =
        GateRepository.createKeyless(
            work, scratch, signer(Map.of()), stack.identitySan(), stack.identityIssuer());

    assertThat(check()).isEqualTo(0);
    assertThat(out.toString().lines().toList())
        .containsExactly(
            "signed:   2 files, 2 of 2 documents verified",
            "unsigned: 0 files, 0 documents, 2 governance policies applied",
            "check passed: 0 errors, 0 warnings");

    repo.write(
        "signed/app/deployment.yaml",
        repo.read("signed/app/deployment.yaml").replace("replicas: 2", "replicas: 20"));
    int line = repo.lineOf("signed/app/deployment.yaml", "replicas: 20");
    out.getBuffer().setLength(0);

    assertThat(check()).isEqualTo(1);
    assertThat(out.toString().lines().toList())
        .first()
        .asString()
        .startsWith(
            "error signed/app/deployment.yaml:"
                + line
                + " [signature] Deployment/shop/api: content differs from the"
                + " signed message at spec.replicas: signed 2, found 20");
  }

  @Test
  void check_keylessSignatureByAnotherWorkflow_isRejected() {
    String otherWorkflow = "octo-org/other-repo/.github/workflows/sign.yml@refs/heads/main";
    GateRepository.createKeyless(
        work,
        scratch,
        signer(Map.of("job_workflow_ref", otherWorkflow, "repository", "octo-org/other-repo")),
        stack.identitySan(),
        stack.identityIssuer());

    assertThat(check()).isEqualTo(1);
    List<String> lines = out.toString().lines().toList();
    assertThat(lines).hasSize(5);
    assertThat(lines.get(0))
        .startsWith("error signed/app/config.yaml:")
        .contains("https://github.com/" + otherWorkflow);
    assertThat(lines.get(4)).isEqualTo("check failed: 2 errors, 0 warnings");
  }
}
