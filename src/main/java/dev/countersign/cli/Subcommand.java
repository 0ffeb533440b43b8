package dev.countersign.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.ParentCommand;

/**
 * A subcommand of {@link RootCommand}: runs with the runtime the root holds (its environment,
 * writers, clock), so that each command states only what it does with it.
 */
abstract class Subcommand implements Callable<Integer> {

  @ParentCommand RootCommand root;

  @Override
  public final Integer call() {
    return call(root.runtime());
  }

  /** Runs the command; returns its exit code or throws a problem carrying one. */
  abstract int call(Runtime runtime);
}
