package dev.countersign.cli;

import dev.countersign.git.JGitWorkspace;
import dev.countersign.support.Env;
import java.net.MalformedURLException;
import java.net.URL;

/**
 * Start-up work that a run in GitHub Actions meets early, done on a background thread while the
 * main thread parses the command line, so that the first round trip of a keyless run leaves sooner
 * (docs/performance.md, "One manifest: the round trips' start, and the check between them"). It
 * only loads what the run would load anyway, the same way, and decides nothing: a failure here is
 * met again, and reported, where the run needs the thing.
 *
 * <ul>
 *   <li>The class path's jars, where an identity token may be requested: the first {@code http} URL
 *       of a process asks the class path for URL handler providers, which opens every jar (~60, ~40
 *       ms of a cold start). In a keyless run that first URL is the identity token request, the
 *       start of the chain of round trips a one-manifest run waits for, and classes come from the
 *       AppCDS archive without opening jars, so nothing opens them earlier.
 *   <li>jgit's global configuration ({@link JGitWorkspace#loadGlobalConfiguration}), which the
 *       first repository open reads (~50-70 ms, more where jgit runs {@code git} to find the system
 *       configuration).
 * </ul>
 */
final class StartUpPreloading {

  private StartUpPreloading() {}

  /** Starts the preloading on a daemon thread (it never delays the exit). */
  static void start(Env env) {
    boolean mayRequestToken = env.get("ACTIONS_ID_TOKEN_REQUEST_URL").isPresent();
    Thread thread =
        new Thread(
            () -> {
              try {
                if (mayRequestToken) {
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

  private static void openClassPath() {
    try {
      new URL("http://localhost/");
    } catch (MalformedURLException impossible) {
      // a constant URL
    }
  }
}
