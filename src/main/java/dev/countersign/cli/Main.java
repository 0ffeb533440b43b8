package dev.countersign.cli;

import dev.countersign.git.FileStoreTiming;
import dev.countersign.support.Env;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Optional;

/**
 * The composition root: the only place that reads the real environment, the system clock and
 * standard streams, and the only place that exits the process.
 */
public final class Main {

  private Main() {}

  public static void main(String[] args) {
    // Before jgit first looks at a file: no 3-second timestamp probe in a fresh container.
    FileStoreTiming.install();
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    java.io.Console console = System.console();
    Runtime.PasswordPrompt prompt =
        console == null
            ? Runtime.PasswordPrompt.NONE
            : question -> Optional.ofNullable(console.readPassword("%s", question));
    int code =
        run(new Runtime(Env.of(System.getenv()), Clock.systemUTC(), out, err, console != null, prompt), args);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /** Runs one command line and returns its exit code; what tests and the Action entry call. */
  public static int run(Runtime runtime, String... args) {
    return RootCommand.commandLine(runtime).execute(args);
  }
}
