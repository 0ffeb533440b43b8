package dev.countersign.gate;

import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;

/** Turns problems into finding messages: what is wrong, then what to do, as one sentence. */
final class Messages {

  private Messages() {}

  /**
   * The problem's text without its location (the finding carries the location separately), followed
   * by its hint.
   */
  static String of(InputProblem problem) {
    return Hints.append(problem.what(), problem.hint().orElse(null));
  }
}
