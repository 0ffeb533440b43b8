package dev.countersign.signing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.countersign.support.ExitCode;
import dev.countersign.support.problems.UsageProblem;
import java.net.URI;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Clock;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** How many signatures are in flight: the user's number, else the signer's, by the log it uses. */
class ParallelismTest {

  @Test
  void sigstoresSharedLogs_getFewerUploadsInFlightThanOnesOwn() {
    assertThat(
            Stream.of(
                    "https://rekor.sigstore.dev",
                    "https://REKOR.Sigstore.dev:443",
                    "https://rekor.sigstage.dev",
                    "http://127.0.0.1:3000",
                    "https://rekor.example.com",
                    "https://sigstore.dev.example.com",
                    "https://notsigstore.dev")
                .map(url -> RekorUploads.inFlightFor(URI.create(url))))
        .containsExactly(
            RekorUploads.SHARED_LOG_IN_FLIGHT,
            RekorUploads.SHARED_LOG_IN_FLIGHT,
            RekorUploads.SHARED_LOG_IN_FLIGHT,
            RekorUploads.OWN_LOG_IN_FLIGHT,
            RekorUploads.OWN_LOG_IN_FLIGHT,
            RekorUploads.OWN_LOG_IN_FLIGHT,
            RekorUploads.OWN_LOG_IN_FLIGHT);
  }

  @Test
  void aKeyedSigner_suggestsTheProcessorsWithoutALog_andWithOneWhatKeylessSigningSuggestsForIt()
      throws Exception {
    KeyPair pair = p256();

    assertThat(new KeyMessageSigner(pair.getPrivate(), pair.getPublic()).suggestedInFlight())
        .isEqualTo(Runtime.getRuntime().availableProcessors());
    assertThat(
            Stream.of(TransparencyLog.PUBLIC_GOOD, URI.create("http://127.0.0.1:3000"))
                .map(
                    url ->
                        new KeyMessageSigner(
                                pair.getPrivate(),
                                pair.getPublic(),
                                Optional.of(
                                    new TransparencyLog(
                                        url,
                                        () -> {
                                          throw new AssertionError("no root is read");
                                        },
                                        "no root",
                                        Clock.systemUTC(),
                                        wait -> {},
                                        warning -> {})))
                            .suggestedInFlight()))
        .containsExactly(RekorUploads.SHARED_LOG_IN_FLIGHT, RekorUploads.OWN_LOG_IN_FLIGHT);
  }

  @Test
  void aChosenNumber_winsOverTheSigners_andMustBePositive() throws Exception {
    KeyPair pair = p256();
    KeyMessageSigner signer = new KeyMessageSigner(pair.getPrivate(), pair.getPublic());

    assertThat(Parallelism.of(5).resolve(signer)).isEqualTo(5);
    assertThat(Parallelism.SIGNERS_CHOICE.resolve(signer)).isEqualTo(signer.suggestedInFlight());
    assertThatThrownBy(() -> Parallelism.of(0))
        .isInstanceOf(UsageProblem.class)
        .hasMessageContaining("--parallel 0")
        .satisfies(e -> assertThat(((UsageProblem) e).exitCode()).isEqualTo(ExitCode.USAGE));
  }

  private static KeyPair p256() throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
    generator.initialize(new ECGenParameterSpec("secp256r1"));
    return generator.generateKeyPair();
  }
}
