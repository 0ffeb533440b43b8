package dev.countersign.cli;

import dev.countersign.action.ActionInputs;
import dev.countersign.git.JGitWorkspace;
import dev.countersign.pipeline.DirPair;
import dev.countersign.run.EarlySigning;
import dev.countersign.signing.KeylessHeadStart;
import dev.countersign.support.Env;
import java.net.MalformedURLException;
import java.net.URL;
import java.nio.file.Path;
import java.util.List;

/**
 * Start-up work that a run in GitHub Actions meets early, done on a background thread while the
 * main thread parses the command line, so that the first round trip of a keyless run leaves sooner
 * (docs/performance.md, "One manifest: the round trips' start, and the check between them"). It
 * only loads what the run would load anyway, the same way, and decides nothing: a failure here is
 * met again, and reported, where the run needs the thing.
 *
 * <ul>
 *   <li>The GitHub Actions identity token and the ephemeral key, for a command that may sign
 *       keylessly ({@link KeylessHeadStart}): the token request is the first round trip of a
 *       keyless run, and it leaves before picocli builds the command's model (~150 ms of CPU).
 *   <li>Otherwise the class path's jars, where an identity token may be requested: the first {@code
 *       http} URL of a process asks the class path for URL handler providers, which opens every jar
 *       (~60, ~40 ms of a cold start). In a keyless run that first URL is the identity token
 *       request, the start of the chain of round trips a one-manifest run waits for, and classes
 *       come from the AppCDS archive without opening jars, so nothing opens them earlier.
 *   <li>jgit's global configuration ({@link JGitWorkspace#loadGlobalConfiguration}), which the
 *       first repository open reads (~50-70 ms, more where jgit runs {@code git} to find the system
 *       configuration).
 * </ul>
 */
final class StartUpPreloading {

  private StartUpPreloading() {}

  /**
   * Starts the keyless signer's head start (identity token request, key) when {@link
   * #maySignKeylessly} says the command may sign: the first thing a process in GitHub Actions does
   * after its log writers are in place.
   *
   * @return the head start, for the keyless signer to take; {@link KeylessHeadStart#NONE} when none
   *     was started
   */
  static KeylessHeadStart headStart(Env env, List<String> args) {
    return maySignKeylessly(env, args) ? KeylessHeadStart.request(env) : KeylessHeadStart.NONE;
  }

  /**
   * Starts the preloading on a daemon thread (it never delays the exit). It waits for {@code
   * headStart}'s token request to be under way first ({@link
   * KeylessHeadStart#awaitTokenRequestUnderWay}): that request is on the critical path, the
   * preloading is not.
   */
  static void start(Env env, KeylessHeadStart headStart) {
    // Here, before the thread: it uses jgit while this thread goes on to open the repository.
    JGitWorkspace.initializeFileSystemClasses();
    // The token request opens the class path itself, on its own thread.
    boolean openClassPath =
        headStart == KeylessHeadStart.NONE && env.get("ACTIONS_ID_TOKEN_REQUEST_URL").isPresent();
    Thread thread =
        new Thread(
            () -> {
              try {
                headStart.awaitTokenRequestUnderWay();
                if (openClassPath) {
                  openClassPath();
                }
                JGitWorkspace.loadGlobalConfiguration();
              } catch (RuntimeException metAgainWhereNeeded) {
                // the run loads the same things itself and reports what fails there
              }
            },
            "countersign-preload");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * A hint, from the arguments and the work tree alone, that the command is a signing run: {@code
   * run}, or {@code action} whose {@code command} input is {@code run} (the default), and the
   * default unsigned directory ({@link DirPair#DEFAULT}) of the default work tree ({@code
   * GITHUB_WORKSPACE}, else the current directory) holds an entry ({@link
   * EarlySigning#workTreeMayHaveWork}). Decides nothing: a wrong guess either wastes one token
   * request or leaves the request to the run ({@link EarlySigning}), as before.
   */
  static boolean maySignKeylessly(Env env, List<String> args) {
    Class<?> command = RootCommand.invokedSubcommand(args.toArray(String[]::new)).orElse(null);
    boolean signingCommand =
        command == RunCommand.class
            || (command == ActionCommand.class
                && ActionInputs.read(env, ActionInputs.COMMAND)
                    .orElse(ActionInputs.DEFAULT_COMMAND)
                    .equals("run"));
    if (!signingCommand) {
      return false;
    }
    Path workTree = env.get("GITHUB_WORKSPACE").map(Path::of).orElse(Path.of(""));
    return EarlySigning.workTreeMayHaveWork(workTree.toAbsolutePath(), List.of(DirPair.DEFAULT));
  }

  private static void openClassPath() {
    try {
      new URL("http://localhost/");
    } catch (MalformedURLException impossible) {
      // a constant URL
    }
  }
}
