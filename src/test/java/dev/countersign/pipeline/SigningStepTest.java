package dev.countersign.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SigningStepTest {

  private static final byte[] MANIFEST = "kind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);

  @Test
  void moveOnly_answersMovedUnsigned_neverSigned() {
    List<SigningStep.Result> results =
        SigningStep.moveOnly()
            .sign(
                List.of(
                    new SigningStep.Input(
                        "unsigned/a.yaml", "signed/a.yaml", MANIFEST, Optional.empty())));

    assertThat(results).singleElement().isInstanceOf(SigningStep.MovedUnsigned.class);
    assertThat(results.get(0)).isNotInstanceOf(SigningStep.Signed.class);
    assertThat(((SigningStep.Written) results.get(0)).bytes()).isEqualTo(MANIFEST);
  }

  @Test
  void moveOnly_targetAlreadyHoldingTheBytes_isUnchanged() {
    List<SigningStep.Result> results =
        SigningStep.moveOnly()
            .sign(
                List.of(
                    new SigningStep.Input(
                        "unsigned/a.yaml", "signed/a.yaml", MANIFEST, Optional.of(MANIFEST))));

    assertThat(results).singleElement().isInstanceOf(SigningStep.Unchanged.class);
  }
}
