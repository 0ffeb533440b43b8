package dev.countersign.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts one {@link OciTestRegistry} per JVM (on first use) and injects it. Without the {@code
 * docker-registry} executable the tests are skipped locally and fail under CI ({@code CI=true}),
 * like {@link SigstoreTestStackExtension}. {@code .ci/run} installs it.
 */
public final class OciTestRegistryExtension implements ExecutionCondition, ParameterResolver {

  static final String BINARY_PROPERTY = "oci.registry.binary";
  static final String INSTALL_HINT =
      "install it with `apt-get install docker-registry` (`.ci/run` does), or set -D"
          + BINARY_PROPERTY
          + "=PATH";

  private static OciTestRegistry shared;
  private static String unavailable;

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (sharedRegistry() != null) {
      return ConditionEvaluationResult.enabled("a registry runs at " + shared.host());
    }
    if (CiMode.active()) {
      return ConditionEvaluationResult.enabled("CI=true: a missing OCI registry is a failure");
    }
    return ConditionEvaluationResult.disabled("No OCI registry for tests: " + unavailable);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == OciTestRegistry.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    OciTestRegistry registry = sharedRegistry();
    if (registry == null) {
      throw new AssertionError(
          "No OCI registry for tests: "
              + unavailable
              + (CiMode.active() ? " (CI=true, so this fails instead of skipping)" : ""));
    }
    return registry;
  }

  /** The {@code docker-registry} executable, if installed. */
  public static Path binary() {
    String configured = System.getProperty(BINARY_PROPERTY, "").trim();
    if (!configured.isEmpty()) {
      return Path.of(configured);
    }
    return Path.of("/usr/bin/docker-registry");
  }

  private static synchronized OciTestRegistry sharedRegistry() {
    if (shared == null && unavailable == null) {
      Path binary = binary();
      if (!Files.isExecutable(binary)) {
        unavailable = "no docker-registry executable at " + binary + "; " + INSTALL_HINT;
      } else {
        try {
          shared = OciTestRegistry.start(binary, null);
        } catch (IOException e) {
          unavailable = "could not start " + binary + ": " + e.getMessage();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          unavailable = "interrupted while starting it";
        }
      }
    }
    return shared;
  }
}
