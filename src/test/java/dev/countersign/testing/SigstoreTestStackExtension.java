package dev.countersign.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Starts the {@link SigstoreTestStack} once per JVM (on first use) and injects it. When the stack
 * cannot start, tests are skipped with the install command, except under CI (surefire property
 * {@code countersign.ci}, from the {@code CI} environment variable), where they fail: a CI run
 * must never pass by skipping the keyless tests.
 */
public final class SigstoreTestStackExtension
    implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {

  static final String STACK_DIR_PROPERTY = "sigstore.stack.dir";
  static final String INSTALL_HINT =
      "install it with `.ci/install-test-stack` (or run `.ci/run`), which copies"
          + " ../shared/sigstore-test-stack to target/sigstore-test-stack and runs `npm ci` there";

  private static SigstoreTestStack shared;
  private static String unavailable;

  @Override
  public void beforeAll(ExtensionContext context) {
    requireStack();
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    requireStack();
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == SigstoreTestStack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return requireStack();
  }

  private static SigstoreTestStack requireStack() {
    SigstoreTestStack stack = sharedStack();
    if (stack != null) {
      return stack;
    }
    String message = "The Sigstore test stack is not available: " + unavailable;
    if (inCi()) {
      throw new AssertionError(message + " (CI=true, so this fails instead of skipping)");
    }
    Assumptions.abort(message);
    throw new IllegalStateException("unreachable");
  }

  private static synchronized SigstoreTestStack sharedStack() {
    if (shared == null && unavailable == null) {
      Path stackDir = Path.of(System.getProperty(STACK_DIR_PROPERTY, "target/sigstore-test-stack"));
      if (!Files.isRegularFile(stackDir.resolve("server.mjs"))
          || !Files.isDirectory(stackDir.resolve("node_modules"))) {
        unavailable = "no installed stack (server.mjs + node_modules) at " + stackDir.toAbsolutePath() + "; " + INSTALL_HINT;
      } else {
        try {
          shared = SigstoreTestStack.start(stackDir);
        } catch (IOException e) {
          unavailable = "could not run `node server.mjs` in " + stackDir + " (" + e.getMessage() + "); is Node.js >= 20 on PATH? " + INSTALL_HINT;
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

  // Surefire passes the CI environment variable as a system property (pom.xml), so test code
  // needs no System.getenv either.
  private static boolean inCi() {
    return "true".equalsIgnoreCase(System.getProperty("countersign.ci", "").trim());
  }
}
