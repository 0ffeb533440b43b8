package dev.countersign.cli;

import dev.countersign.signing.KeylessHeadStart;
import dev.countersign.support.Env;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/** Runs the CLI in-process, as the Action entry point does, and captures what a user would see. */
record CliRun(int exitCode, String out, String err) {

  static CliRun run(Map<String, String> env, String... args) {
    return run(dev.countersign.support.Sleeper.real(), env, args);
  }

  /**
   * Like {@link #run(Map, String...)}, with every wait (push and GitHub retries) going to {@code
   * sleeper}.
   */
  static CliRun run(
      dev.countersign.support.Sleeper sleeper, Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try (PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err)) {
      code = Main.run(Runtime.of(Env.of(env), Clock.systemUTC(), o, e, sleeper), args);
    }
    return new CliRun(code, out.toString(), err.toString());
  }

  /**
   * Like {@link #run(Map, String...)}, started as {@link Main#main} starts a process in GitHub
   * Actions: with the start-up preloading and its identity token request ({@link
   * StartUpPreloading}).
   */
  static CliRun runAsStarted(Map<String, String> env, String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code;
    try (PrintWriter o = new PrintWriter(out);
        PrintWriter e = new PrintWriter(err)) {
      Env started = Env.of(env);
      KeylessHeadStart headStart = StartUpPreloading.headStart(started, List.of(args));
      StartUpPreloading.start(started, headStart);
      code =
          Main.run(
              Runtime.of(started, Clock.systemUTC(), o, e).withKeylessHeadStart(headStart), args);
    }
    return new CliRun(code, out.toString(), err.toString());
  }

  String all() {
    return out + err;
  }
}
