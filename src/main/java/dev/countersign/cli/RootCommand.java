package dev.countersign.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code countersign}: the root of the command tree; holds the runtime every subcommand uses. */
@Command(
    name = "countersign",
    mixinStandardHelpOptions = true,
    versionProvider = RootCommand.Version.class,
    description = "Sign Kubernetes manifests with Sigstore, verify them, and gate merges.",
    subcommands = {
      RunCommand.class,
      ActionCommand.class,
      SignCommand.class,
      VerifyCommand.class,
      KeygenCommand.class,
      CheckCommand.class,
      InitCommand.class,
      DoctorCommand.class,
      PromoteCommand.class,
      PublishCommand.class,
      CommandLine.HelpCommand.class
    })
public final class RootCommand implements Runnable {

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

  /** A command line wired to {@code runtime}: its writers, exception handler and exit codes. */
  static CommandLine commandLine(Runtime runtime) {
    RootCommand root = new RootCommand();
    root.runtime = runtime;
    CommandLine commandLine = new CommandLine(root);
    commandLine.setOut(runtime.out());
    commandLine.setErr(runtime.err());
    commandLine.setExecutionExceptionHandler(new ProblemHandler(runtime));
    commandLine.setCaseInsensitiveEnumValuesAllowed(true);
    return commandLine;
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
