package dev.countersign.action;

import dev.countersign.support.MarkdownText;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.InternalProblem;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Speaks GitHub Actions workflow commands on stdout and appends to the step's output and summary
 * files. Every line goes through one {@link WorkflowLog}: commands are escaped as the Actions
 * toolkit escapes them ({@link WorkflowCommands#format}), every other line is neutralized so the
 * runner never executes it. Outputs use {@code name=value}, or a {@code name<<ghadelimiter_<uuid>}
 * heredoc for multi-line values.
 */
public final class ActionsReporter implements Reporter {

  private static final Pattern OUTPUT_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_-]*");

  private final WorkflowLog out;
  private final Optional<Path> outputFile;
  private final Optional<Path> summaryFile;
  private final Supplier<String> uuids;

  /**
   * @param out the step log (stdout)
   * @param outputFile {@code GITHUB_OUTPUT}
   * @param summaryFile {@code GITHUB_STEP_SUMMARY}
   * @param uuids source of heredoc delimiter suffixes (random UUIDs in production)
   */
  public ActionsReporter(
      PrintWriter out,
      Optional<Path> outputFile,
      Optional<Path> summaryFile,
      Supplier<String> uuids) {
    this.out = WorkflowLog.over(out);
    this.outputFile = outputFile;
    this.summaryFile = summaryFile;
    this.uuids = uuids;
  }

  @Override
  public void mask(String secret) {
    if (secret == null || secret.isBlank()) {
      return;
    }
    // The runner matches masks line by line, so a multi-line secret needs one mask per line.
    for (String line : WorkflowCommands.lines(secret)) {
      if (!line.isBlank()) {
        command("add-mask", Map.of(), line);
      }
    }
    out.flush();
  }

  @Override
  public void info(String line) {
    // File names and messages are user data: the log writer keeps them from being commands.
    int end = line.length();
    while (end > 0 && (line.charAt(end - 1) == '\n' || line.charAt(end - 1) == '\r')) {
      end--;
    }
    out.println(line.substring(0, end));
  }

  @Override
  public void group(String title) {
    command("group", Map.of(), title);
  }

  @Override
  public void endGroup() {
    command("endgroup", Map.of(), "");
  }

  @Override
  public void error(String message, Annotation at) {
    command("error", at.properties(), message);
  }

  @Override
  public void warning(String message, Annotation at) {
    command("warning", at.properties(), message);
  }

  @Override
  public void notice(String message, Annotation at) {
    command("notice", at.properties(), message);
  }

  @Override
  public void output(String name, String value) {
    if (!OUTPUT_NAME.matcher(name).matches()) {
      throw new InternalProblem("Invalid step output name \"" + name + "\"");
    }
    String record;
    if (value.indexOf('\n') < 0 && value.indexOf('\r') < 0) {
      record = name + "=" + value + "\n";
    } else {
      String delimiter = "ghadelimiter_" + uuids.get();
      if (value.contains(delimiter)) {
        throw new InternalProblem(
            "Unexpected input: the value of output "
                + name
                + " contains the delimiter "
                + delimiter);
      }
      record = name + "<<" + delimiter + "\n" + value + "\n" + delimiter + "\n";
    }
    if (outputFile.isEmpty()) {
      info("(GITHUB_OUTPUT is not set; output " + name + " dropped)");
      return;
    }
    append(outputFile.get(), record, "GITHUB_OUTPUT");
  }

  /**
   * Appends to the job summary, but never past {@value #MAX_SUMMARY_BYTES} bytes in the step's
   * summary file (GitHub refuses a step summary over 1 MiB and shows none of it): what does not fit
   * is cut at a line and replaced by a note saying how many more table rows there were.
   */
  @Override
  public void summary(String markdown) {
    if (summaryFile.isEmpty()) {
      return;
    }
    Path file = summaryFile.get();
    long used;
    try {
      used = Files.exists(file) ? Files.size(file) : 0;
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not read the size of GITHUB_STEP_SUMMARY (" + file + ")",
          "perhaps you should check the runner's file commands directory",
          e);
    }
    String text =
        capped(markdown.endsWith("\n") ? markdown : markdown + "\n", MAX_SUMMARY_BYTES - used);
    if (!text.isEmpty()) {
      append(file, text, "GITHUB_STEP_SUMMARY");
    }
  }

  /** Largest step summary countersign writes; GitHub's limit is 1 MiB (1,048,576 bytes). */
  public static final int MAX_SUMMARY_BYTES = 1_000_000;

  /**
   * {@code text} if it fits in {@code budget} UTF-8 bytes; otherwise its longest prefix of whole
   * lines that fits with a closing note ("and N more rows"), or nothing if not even the note fits.
   */
  static String capped(String text, long budget) {
    if (text.getBytes(StandardCharsets.UTF_8).length <= budget) {
      return text;
    }
    List<String> lines = List.of(text.split("(?<=\n)"));
    String noteTemplate = "\n_... and %d more %s not shown: the job summary stops at %,d bytes._\n";
    long room = budget - noteTemplate.length() - 40;
    StringBuilder kept = new StringBuilder();
    long size = 0;
    int index = 0;
    for (; index < lines.size(); index++) {
      int bytes = lines.get(index).getBytes(StandardCharsets.UTF_8).length;
      if (size + bytes > room) {
        break;
      }
      kept.append(lines.get(index));
      size += bytes;
    }
    if (room < 0) {
      return "";
    }
    List<String> rest = lines.subList(index, lines.size());
    long rows = rest.stream().filter(l -> l.startsWith("|")).count();
    long others = rest.stream().filter(l -> !l.isBlank() && !l.startsWith("|")).count();
    String note =
        String.format(
            Locale.ROOT,
            noteTemplate,
            others == 0 ? rows : rows + others,
            others == 0 ? (rows == 1 ? "row" : "rows") : "lines",
            MAX_SUMMARY_BYTES);
    return kept + note;
  }

  /**
   * A GitHub-flavoured Markdown table whose cells are made inert ({@link MarkdownText#cell}): no
   * markup, pipes escaped, line breaks as {@code <br>}.
   */
  public static String markdownTable(List<String> headers, List<List<String>> rows) {
    StringBuilder sb = new StringBuilder();
    sb.append(row(headers));
    sb.append(headers.stream().map(h -> "---").collect(Collectors.joining(" | ", "| ", " |\n")));
    rows.forEach(r -> sb.append(row(r)));
    return sb.toString();
  }

  private static String row(List<String> cells) {
    return cells.stream().map(MarkdownText::cell).collect(Collectors.joining(" | ", "| ", " |\n"));
  }

  private void command(String name, Map<String, String> properties, String message) {
    out.command(name, properties, message);
  }

  private static void append(Path file, String text, String which) {
    try {
      Files.writeString(
          file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new EnvironmentProblem(
          "Could not append to " + which + " (" + file + ")",
          "perhaps you should check the runner's file commands directory",
          e);
    }
  }
}
