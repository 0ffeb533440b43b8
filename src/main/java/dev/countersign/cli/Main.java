package dev.countersign.cli;

import dev.countersign.action.WorkflowLog;
import dev.countersign.git.FileStoreTiming;
import dev.countersign.signing.KeylessHeadStart;
import dev.countersign.support.Env;
import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * The composition root: the only place that reads the real environment, the system clock and
 * standard streams, and the only place that exits the process.
 *
 * <p>Inside GitHub Actions both standard streams are {@link WorkflowLog}s, the one writer for the
 * log: what any part of countersign, or a library it uses, prints there is neutralized, and only
 * the workflow commands countersign issues on purpose reach the runner as commands.
 */
public final class Main {

  /** The system property SLF4J 2 (jgit's logging API) takes its binding's class name from. */
  static final String SLF4J_PROVIDER = "slf4j.provider";

  /** The level below which SLF4J keeps its own messages to itself. */
  static final String SLF4J_VERBOSITY = "slf4j.internal.verbosity";

  /** picocli's switch for Groovy closures in annotations, which countersign does not use. */
  static final String PICOCLI_NO_CLOSURES = "picocli.disable.closures";

  private Main() {}

  public static void main(String[] args) {
    // Before jgit's first logger: name SLF4J's binding instead of letting it search the class
    // path for one, which opens every jar on each start. A value given with -D is kept.
    // SLF4J reports that choice on stderr unless its own verbosity is lowered.
    if (System.getProperty(SLF4J_PROVIDER) == null) {
      System.setProperty(SLF4J_PROVIDER, "org.slf4j.nop.NOPServiceProvider");
      System.setProperty(SLF4J_VERBOSITY, "WARN");
    }
    // Before the first CommandLine: otherwise picocli asks the class path for groovy.lang.Closure,
    // and that miss opens every jar (~40 ms of a cold start, on the main thread).
    if (System.getProperty(PICOCLI_NO_CLOSURES) == null) {
      System.setProperty(PICOCLI_NO_CLOSURES, "true");
    }
    Env env = Env.of(System.getenv());
    PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
    PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
    KeylessHeadStart headStart = KeylessHeadStart.NONE;
    if (env.inGitHubActions()) {
      WorkflowLog logOut = WorkflowLog.over(out);
      WorkflowLog logErr = WorkflowLog.over(err);
      // Libraries (java.util.logging, SLF4J's warnings, sigstore-java) print to System.out/err:
      // route them through the same writers before any of them can run.
      System.setOut(new PrintStream(new LineDecoder(logOut), true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(new LineDecoder(logErr), true, StandardCharsets.UTF_8));
      out = logOut;
      err = logErr;
      // Only now: what the preloading's libraries may print goes through the writers above.
      headStart = StartUpPreloading.headStart(env, List.of(args));
    }
    // Before jgit first looks at a file: no 3-second timestamp probe in a fresh container. After
    // the identity token request has left: jgit's start-up (~15 ms) is not a round trip's wait.
    FileStoreTiming.install();
    if (env.inGitHubActions()) {
      StartUpPreloading.start(env, headStart);
    }
    Console console = System.console();
    Runtime.PasswordPrompt prompt =
        console == null
            ? Runtime.PasswordPrompt.NONE
            : question -> Optional.ofNullable(console.readPassword("%s", question));
    Runtime runtime =
        new Runtime(env, Clock.systemUTC(), out, err, console != null, prompt)
            .withKeylessHeadStart(headStart);
    int code = run(runtime, args);
    out.flush();
    err.flush();
    System.exit(code);
  }

  /**
   * Runs one command line and returns its exit code; what tests and the Action entry call. In
   * GitHub Actions ({@code GITHUB_ACTIONS=true}) the runtime's writers are wrapped in {@link
   * WorkflowLog}s first. Never throws: an {@link Error} escaping the command is reported as an
   * internal error (exit 5) like an unexpected exception.
   */
  public static int run(Runtime runtime, String... args) {
    Runtime effective =
        runtime.env().inGitHubActions()
            ? runtime.withWriters(WorkflowLog.over(runtime.out()), WorkflowLog.over(runtime.err()))
            : runtime;
    try {
      return RootCommand.commandLine(effective, args).execute(args);
    } catch (Error error) {
      // picocli hands its exception handler Exceptions only; an Error (a StackOverflowError, an
      // OutOfMemoryError) would otherwise leave as the JVM's stack trace and exit 1, which reads
      // as "rejected". It is a bug: exit 5 with the same message and hint as any other.
      return new ProblemHandler(effective).report(error, List.of(args).contains("--stacktrace"));
    } finally {
      finish(effective.out());
      finish(effective.err());
    }
  }

  private static void finish(PrintWriter writer) {
    if (writer instanceof WorkflowLog log) {
      log.finish();
    } else {
      writer.flush();
    }
  }

  /**
   * Bytes printed to {@code System.out}/{@code err} by libraries, decoded line by line into a log.
   */
  static final class LineDecoder extends OutputStream {
    private final WorkflowLog log;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LineDecoder(WorkflowLog log) {
      this.log = log;
    }

    @Override
    public synchronized void write(int b) {
      line.write(b);
      if (b == '\n' || line.size() >= 64 * 1024) {
        flushLine();
      }
    }

    @Override
    public synchronized void flush() {
      // A partial line stays until its end: the log writer holds partial lines back anyway.
      log.flush();
    }

    @Override
    public synchronized void close() {
      flushLine();
      log.finish();
    }

    private void flushLine() {
      log.print(line.toString(StandardCharsets.UTF_8));
      line.reset();
    }
  }
}
