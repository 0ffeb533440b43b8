package dev.countersign.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.support.Env;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An {@link Error} escaping a command (picocli hands its exception handler only {@link Exception}s)
 * ends as an internal error, exit 5, with the "this is a bug" hint, not as the JVM's stack trace
 * and exit 1.
 */
class InternalErrorTest {

  @TempDir Path dir;

  private final StringWriter out = new StringWriter();
  private final StringWriter err = new StringWriter();

  /** keygen asks for a password; this prompt fails as a runaway recursion would. */
  private int keygen(String... options) {
    Runtime runtime =
        new Runtime(
            Env.empty(),
            Clock.systemUTC(),
            new PrintWriter(out, true),
            new PrintWriter(err, true),
            true,
            prompt -> {
              throw new StackOverflowError();
            });
    String[] args = new String[options.length + 3];
    args[0] = "keygen";
    args[1] = "--output-key-prefix";
    args[2] = dir.resolve("k").toString();
    System.arraycopy(options, 0, args, 3, options.length);
    return Main.run(runtime, args);
  }

  @Test
  void run_errorEscapingACommand_exits5WithTheBugHint() {
    int code = keygen();

    assertThat(code).isEqualTo(5);
    assertThat(err.toString().lines().toList())
        .containsExactly(
            "error: unexpected StackOverflowError",
            "hint: this is a bug in countersign; please report it with the output of --stacktrace");
    assertThat(out.toString()).isEmpty();
  }

  @Test
  void run_errorEscapingACommandWithStacktrace_printsTheStackTrace() {
    int code = keygen("--stacktrace");

    assertThat(code).isEqualTo(5);
    assertThat(err.toString().lines().toList())
        .startsWith(
            "error: unexpected StackOverflowError",
            "hint: this is a bug in countersign; please report it with the output of --stacktrace",
            "java.lang.StackOverflowError")
        .anySatisfy(line -> assertThat(line).contains("at dev.countersign.cli.KeygenCommand"));
  }
}
