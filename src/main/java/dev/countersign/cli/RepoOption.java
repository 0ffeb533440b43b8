package dev.countersign.cli;

import dev.countersign.support.Env;
import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import picocli.CommandLine.Option;

/** {@code --repo}: the work tree a command works in; one declaration for every command. */
final class RepoOption {

  @Option(
      names = "--repo",
      paramLabel = "DIR",
      description =
          "The checked-out git work tree; paths in messages are relative to it (default:"
              + " GITHUB_WORKSPACE, else the current directory).")
  Path repo;

  /** True when {@code --repo} was given. */
  boolean given() {
    return repo != null;
  }

  /** {@code --repo}, else {@code GITHUB_WORKSPACE}, else the current directory, as given. */
  Path directory(Env env) {
    return Optional.ofNullable(repo)
        .orElseGet(() -> env.get("GITHUB_WORKSPACE").map(Path::of).orElse(Path.of(".")));
  }

  /** {@link #directory}, absolute. */
  Path workTree(Env env) {
    return directory(env).toAbsolutePath();
  }

  /**
   * The repository in {@link #workTree}, opened by a command that writes in it: handed back to the
   * workspace owner on every way out (see {@link OwnedWorkspace}).
   */
  OwnedWorkspace open(Runtime runtime) {
    return OwnedWorkspace.open(workTree(runtime.env()), runtime);
  }

  /** {@link #directory}, which must exist: a usage problem naming {@code command} otherwise. */
  Path existingDirectory(Env env, String command) {
    Path directory = directory(env);
    if (!Files.isDirectory(directory)) {
      throw new UsageProblem(
          "The repository directory "
              + directory
              + " does not exist while starting countersign "
              + command,
          "perhaps you should pass --repo DIR, the checked-out work tree");
    }
    return directory;
  }
}
