package dev.countersign.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code countersign}: the root of the command tree; holds the runtime every subcommand uses. */
@Command(
    name = "countersign",
    mixinStandardHelpOptions = true,
    versionProvider = RootCommand.Version.class,
    description = "Sign Kubernetes manifests with Sigstore, verify them, and gate merges.")
public final class RootCommand implements Runnable {

  /**
   * The subcommands, by name, in the order help lists them. Not in {@code @Command(subcommands)}:
   * picocli would build every command's model (reflection over all options and mixins, ~0.2 CPU s)
   * at every start, although a run executes one of them. Named here rather than read from their
   * {@code @Command} annotations (RootCommandTest holds the two equal): reading an annotation
   * parses it into a proxy class made at run time, ~1 ms each in a cold JVM, and {@link
   * StartUpPreloading} asks which subcommand runs before the identity token request can leave.
   */
  private static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

  private static Map<String, Class<?>> subcommands() {
    Map<String, Class<?>> byName = new LinkedHashMap<>();
    byName.put("run", RunCommand.class);
    byName.put("action", ActionCommand.class);
    byName.put("sign", SignCommand.class);
    byName.put("verify", VerifyCommand.class);
    byName.put("keygen", KeygenCommand.class);
    byName.put("check", CheckCommand.class);
    byName.put("init", InitCommand.class);
    byName.put("doctor", DoctorCommand.class);
    byName.put("promote", PromoteCommand.class);
    byName.put("publish", PublishCommand.class);
    byName.put("help", CommandLine.HelpCommand.class);
    return Collections.unmodifiableMap(byName);
  }

  /** The subcommands by name, as {@link #commandLine} adds them. */
  static Map<String, Class<?>> subcommandsByName() {
    return SUBCOMMANDS;
  }

  private Runtime runtime;

  @Option(
      names = "--stacktrace",
      scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of a failure (also when RUNNER_DEBUG=1).")
  boolean stacktrace;

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  Runtime runtime() {
    return runtime;
  }

  @Override
  public void run() {
    spec.commandLine().usage(runtime.out());
  }

  /**
   * A command line wired to {@code runtime} (its writers, exception handler and exit codes) that
   * executes {@code args} exactly as the full command tree would. It holds only the subcommand
   * {@code args} invoke when that is certain: the first argument that is not {@code --stacktrace}
   * names a subcommand other than {@code help}. Anything else (no arguments, {@code help}, an
   * unknown name or option, an {@code @file}) gets every subcommand, so that help, suggestions and
   * errors list them all; {@code --version} alone needs none.
   */
  static CommandLine commandLine(Runtime runtime, String... args) {
    RootCommand root = new RootCommand();
    root.runtime = runtime;
    CommandLine commandLine = new CommandLine(root);
    for (Class<?> subcommand : subcommandsFor(args)) {
      commandLine.addSubcommand(subcommand);
    }
    commandLine.setOut(runtime.out());
    commandLine.setErr(runtime.err());
    commandLine.setExecutionExceptionHandler(new ProblemHandler(runtime));
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    return commandLine;
  }

  /** The subcommands a command line for {@code args} needs; see {@link #commandLine}. */
  static Collection<Class<?>> subcommandsFor(String... args) {
    if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
      return List.of();
    }
    return invokedSubcommand(args).<Collection<Class<?>>>map(List::of).orElse(SUBCOMMANDS.values());
  }

  /**
   * The subcommand {@code args} certainly invoke: the first argument that is not {@code
   * --stacktrace} names a subcommand other than {@code help}; empty otherwise.
   */
  static Optional<Class<?>> invokedSubcommand(String... args) {
    for (String arg : args) {
      if (arg.equals("--stacktrace")) {
        continue;
      }
      Class<?> invoked = SUBCOMMANDS.get(arg);
      return invoked == CommandLine.HelpCommand.class
          ? Optional.empty()
          : Optional.ofNullable(invoked);
    }
    return Optional.empty();
  }

  /** Reads the version Maven wrote into {@code version.properties}. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() throws IOException {
      Properties properties = new Properties();
      try (InputStream in =
          RootCommand.class.getResourceAsStream("/dev/countersign/version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      }
      return new String[] {"countersign " + properties.getProperty("version", "unknown")};
    }
  }
}
