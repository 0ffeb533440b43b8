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
 * Starts the {@link SigstoreTestStack} once per JVM (on first use) and injects it. When the stack
 * cannot start, tests are skipped (disabled, with the install command as the reason), except under
 * CI (surefire property {@code countersign.ci}, from the {@code CI} environment variable), where
 * they fail: a CI run must never pass by skipping the keyless tests.
 */
public final class SigstoreTestStackExtension implements ExecutionCondition, ParameterResolver {

  static final String STACK_DIR_PROPERTY = "sigstore.stack.dir";
  static final String INSTALL_HINT =
      "install it with `.ci/install-test-stack` (or run `.ci/run`), which copies"
          + " ../shared/sigstore-test-stack to target/sigstore-test-stack and runs `npm ci` there";

  private static SigstoreTestStack shared;
  private static String unavailable;
  private static boolean skipAnnounced;

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    if (sharedStack() != null) {
      return ConditionEvaluationResult.enabled(
          "the Sigstore test stack is running at " + shared.baseUrl());
    }
    if (CiMode.active()) {
      // Run the test so that it fails (in parameter resolution or below) with the reason.
      return ConditionEvaluationResult.enabled(
          "CI=true: a missing Sigstore test stack is a failure");
    }
    if (!skipAnnounced) {
      skipAnnounced = true;
      // Surefire keeps skip reasons in its XML only; say it once where a developer looks.
      System.err.println("Skipping tests that need the Sigstore test stack: " + unavailable);
    }
    return ConditionEvaluationResult.disabled(
        "The Sigstore test stack is not available: " + unavailable);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SigstoreTestStack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    SigstoreTestStack stack = sharedStack();
    if (stack == null) {
      throw new AssertionError(
          "The Sigstore test stack is not available: "
              + unavailable
              + (CiMode.active() ? " (CI=true, so this fails instead of skipping)" : ""));
    }
    return stack;
  }

  private static synchronized SigstoreTestStack sharedStack() {
    if (shared == null && unavailable == null) {
      Path stackDir = Path.of(System.getProperty(STACK_DIR_PROPERTY, "target/sigstore-test-stack"));
      if (!Files.isRegularFile(stackDir.resolve("server.mjs"))
          || !Files.isDirectory(stackDir.resolve("node_modules"))) {
        unavailable =
            "no installed stack (server.mjs + node_modules) at "
                + stackDir.toAbsolutePath()
                + "; "
                + INSTALL_HINT;
      } else {
        try {
          shared = SigstoreTestStack.start(stackDir);
        } catch (IOException e) {
          unavailable =
              "could not run `node server.mjs` in "
                  + stackDir
                  + " ("
                  + e.getMessage()
                  + "); is Node.js >= 20 on PATH? "
                  + INSTALL_HINT;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          unavailable = "interrupted while starting it";
        } catch (RuntimeException e) {
          unavailable = e.getMessage();
        }
      }
    }
    return shared;
  }
}
