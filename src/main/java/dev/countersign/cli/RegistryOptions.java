package dev.countersign.cli;

import dev.countersign.action.Reporter;
import dev.countersign.oci.DistributionRegistry;
import dev.countersign.oci.OciReference;
import dev.countersign.oci.RegistryCredentials;
import java.util.Optional;
import picocli.CommandLine.Option;

/**
 * How to reach an OCI registry; shared by {@code publish}, {@code run --publish-to} and {@code
 * verify --oci}.
 */
final class RegistryOptions {

  @Option(
      names = "--registry-token",
      paramLabel = "TOKEN",
      description =
          "Registry password or token (default: "
              + RegistryCredentials.TOKEN_VARIABLE
              + ", else the Docker config: $DOCKER_CONFIG/config.json or ~/.docker/config.json)."
              + " Never printed.")
  String token;

  @Option(
      names = "--registry-username",
      paramLabel = "NAME",
      description =
          "User name sent with --registry-token (default: countersign; ghcr.io accepts any).")
  String username;

  @Option(
      names = "--plain-http",
      description =
          "Talk to the registry over plain HTTP. Only for a registry on this machine (localhost,"
              + " 127.0.0.1, ::1); refused otherwise.")
  boolean plainHttp;

  /** A client for the registry {@code reference} names; the token is masked before use. */
  DistributionRegistry registry(Runtime runtime, Reporter reporter, OciReference reference) {
    Optional<RegistryCredentials> credentials =
        RegistryCredentials.resolve(
            reference.registry(),
            Optional.ofNullable(token),
            Optional.ofNullable(username),
            runtime.env());
    credentials.ifPresent(c -> reporter.mask(c.secret()));
    return new DistributionRegistry(reference, plainHttp, credentials);
  }
}
