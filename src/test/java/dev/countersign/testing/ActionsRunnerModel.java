package dev.countersign.testing;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What the GitHub Actions runner does with a step's output, modelled on actions/runner ({@code
 * ActionCommandManager.TryProcessCommand}, {@code ActionCommand.TryParseV2/TryParse}): lines split
 * at {@code \n}, {@code \r}, {@code \r\n}; v2 commands ({@code ::name props::data} after leading
 * white space) tried first, then v1 ({@code ##[name props]data} anywhere); only registered names
 * count; {@code stop-commands} suspends everything until its token comes back; {@code add-mask}
 * hides a value in every later displayed line. Where the runner compares strings
 * culture-sensitively, the model is stricter: it ignores invisible characters.
 *
 * <p>Tests feed it countersign's real output and ask what the runner would have executed and shown.
 */
public final class ActionsRunnerModel {

  /** The commands the runner registers (actions/runner command extensions plus stop-commands). */
  private static final Set<String> REGISTERED =
      Set.of(
          "stop-commands",
          "set-env",
          "set-output",
          "save-state",
          "add-mask",
          "add-path",
          "add-matcher",
          "remove-matcher",
          "warning",
          "error",
          "notice",
          "debug",
          "group",
          "endgroup",
          "echo");

  /** A command the runner executed, with the line it came from. */
  public record Command(String name, Map<String, String> properties, String data, String line) {}

  private final Set<String> registered = new LinkedHashSet<>(REGISTERED);
  private final List<Command> executed = new ArrayList<>();
  private final List<String> displayed = new ArrayList<>();
  private final List<String> masks = new ArrayList<>();
  private String stopToken;

  /** Feeds a whole stream of output (stdout or stderr) through the model. */
  public ActionsRunnerModel feed(String output) {
    for (String line : output.split("\\r\\n|\\r|\\n", -1)) {
      process(line);
    }
    return this;
  }

  public List<Command> executed() {
    return executed;
  }

  /** The log as a reader sees it, masks applied. */
  public List<String> displayed() {
    return displayed;
  }

  public boolean commandsStopped() {
    return stopToken != null;
  }

  private void process(String line) {
    Command command = parseV2(line);
    if (command == null) {
      command = parseV1(line);
    }
    if (command == null) {
      display(line);
      return;
    }
    String name = command.name().toLowerCase(Locale.ROOT);
    if (stopToken != null) {
      if (name.equalsIgnoreCase(stopToken)) {
        registered.remove(stopToken.toLowerCase(Locale.ROOT));
        stopToken = null;
        executed.add(command);
      }
      display(line);
      return;
    }
    executed.add(command);
    switch (name) {
      case "stop-commands" -> {
        stopToken = command.data();
        registered.add(stopToken.toLowerCase(Locale.ROOT));
        display(line);
      }
      case "add-mask" -> {
        if (!command.data().isBlank()) {
          masks.add(command.data());
        }
        display("::add-mask::***");
      }
      default -> display(line);
    }
  }

  private void display(String line) {
    String shown = line;
    for (String mask : masks) {
      shown = shown.replace(mask, "***");
    }
    displayed.add(shown);
  }

  private Command parseV2(String line) {
    String s = significant(line);
    int first = 0;
    while (first < s.length()
        && (Character.isWhitespace(s.charAt(first)) || Character.isSpaceChar(s.charAt(first)))) {
      first++; // .NET's TrimStart: every Unicode white space, including no-break spaces
    }
    s = s.substring(first);
    if (!s.startsWith("::")) {
      return null;
    }
    int end = s.indexOf("::", 2);
    if (end < 0) {
      return null;
    }
    String info = s.substring(2, end);
    int space = info.indexOf(' ');
    String name = space < 0 ? info : info.substring(0, space);
    if (!registered.contains(name.toLowerCase(Locale.ROOT))) {
      return null;
    }
    Map<String, String> properties = new HashMap<>();
    if (space > 0) {
      for (String property : info.substring(space + 1).trim().split(",")) {
        String[] pair = property.split("=", 2);
        if (pair.length == 2 && !pair[0].isEmpty() && !pair[1].isEmpty()) {
          properties.put(pair[0], unescape(pair[1], true));
        }
      }
    }
    return new Command(name, properties, unescape(s.substring(end + 2), false), line);
  }

  private Command parseV1(String line) {
    String s = significant(line);
    int prefix = s.indexOf("##[");
    if (prefix < 0) {
      return null;
    }
    int close = s.indexOf(']', prefix);
    if (close < 0) {
      return null;
    }
    String info = s.substring(prefix + 3, close);
    int space = info.indexOf(' ');
    String name = space < 0 ? info : info.substring(0, space);
    if (!registered.contains(name.toLowerCase(Locale.ROOT))) {
      return null;
    }
    return new Command(name, Map.of(), s.substring(close + 1), line);
  }

  /** The line as a culture-sensitive comparison sees it: invisible characters dropped. */
  private static String significant(String line) {
    StringBuilder sb = new StringBuilder();
    line.codePoints()
        .filter(
            cp ->
                cp == '\t'
                    || !(Character.isISOControl(cp) || Character.getType(cp) == Character.FORMAT))
        .forEach(sb::appendCodePoint);
    return sb.toString();
  }

  private static String unescape(String s, boolean property) {
    String u = s.replace("%0D", "\r").replace("%0A", "\n");
    if (property) {
      u = u.replace("%3A", ":").replace("%2C", ",");
    }
    return u.replace("%25", "%");
  }
}
