package dev.countersign.gate;

import dev.countersign.support.problems.Hints;
import dev.countersign.support.problems.InputProblem;

/** Turns problems into finding messages: what is wrong, then what to do, as one sentence. */
final class Messages {

  private Messages() {}

  /**
   * The problem's text without its {@code file:line: } prefix (the finding carries the location
   * separately), followed by its hint.
   */
  static String of(InputProblem problem) {
    String message = String.valueOf(problem.getMessage());
    String file = String.valueOf(problem.file());
    String withLine = file + ":" + problem.line().orElse(0) + ": ";
    if (problem.line().isPresent() && message.startsWith(withLine)) {
      message = message.substring(withLine.length());
    } else if (message.startsWith(file + ": ")) {
      message = message.substring(file.length() + 2);
    }
    return Hints.append(message, problem.hint().orElse(null));
  }
}
