package dev.countersign.workflow;

import static dev.countersign.manifest.YamlValues.list;
import static dev.countersign.manifest.YamlValues.map;

import dev.countersign.manifest.YamlValues;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A GitHub Actions workflow file as countersign reads it: every scalar as a string (so {@code on}
 * stays a key and {@code true} a word), with the line of every field.
 *
 * @param file repository-relative path, e.g. {@code .github/workflows/sign-on-merge.yml}
 * @param root the top-level mapping
 * @param lines dotted path ({@code jobs.sign.steps.1.uses}) to 1-based line
 */
public record WorkflowFile(Path file, Map<String, Object> root, Map<String, Integer> lines) {

  /** Words that end a shell command. */
  private static final List<String> COMMAND_ENDS = List.of(";", "&&", "||", "|");

  /** A step that uses the countersign action. */
  public record CountersignStep(
      String job, int index, String uses, Map<String, String> with, int line) {

    /** The {@code command} input; {@code run} when left out, as in action.yml. */
    public String command() {
      String command = with.getOrDefault("command", "").strip();
      return command.isEmpty() ? "run" : command;
    }

    /** Signs keylessly: {@code run} without a {@code key} input. */
    public boolean signsKeylessly() {
      return command().equals("run") && with.getOrDefault("key", "").isBlank();
    }

    /**
     * Pushes or opens pull requests with the job's own token (the default, or GITHUB_TOKEN /
     * github.token).
     */
    public boolean usesJobToken() {
      String token = with.getOrDefault("token", "").replace(" ", "");
      return token.isEmpty()
          || token.equals("${{secrets.GITHUB_TOKEN}}")
          || token.equals("${{github.token}}")
          || token.endsWith("||secrets.GITHUB_TOKEN}}")
          || token.endsWith("||github.token}}");
    }
  }

  /**
   * The workflow file's name, e.g. {@code sign-on-merge.yml}: the part of the certificate identity
   * after workflows/.
   */
  public String fileName() {
    return file.getFileName().toString();
  }

  /** The line of {@code path}, else of its nearest ancestor, else 1. */
  public int lineOf(String path) {
    return YamlValues.lineOf(lines, path, 1);
  }

  /** The trigger events, whichever form {@code on} takes (a name, a list or a mapping). */
  public List<String> events() {
    Object on = root.get("on");
    if (on instanceof String s) {
      return List.of(s);
    }
    if (on instanceof List<?> list) {
      return list.stream().map(String::valueOf).toList();
    }
    return new ArrayList<>(map(on).keySet());
  }

  /** {@code on.push.branches}; empty when push has no branch filter (or is absent). */
  public List<String> pushBranches() {
    return strings(map(map(root.get("on")).get("push")).get("branches"));
  }

  /** The jobs' names, in file order. */
  public List<String> jobs() {
    return new ArrayList<>(map(root.get("jobs")).keySet());
  }

  public Map<String, Object> job(String name) {
    return map(map(root.get("jobs")).get(name));
  }

  /**
   * The permissions a job's token has for {@code scope} as written: the job's {@code permissions}
   * if present, else the workflow's; {@code read-all}/{@code write-all} expand; empty when neither
   * level says anything (then the repository's default applies).
   */
  public Optional<String> permission(String job, String scope) {
    Object permissions =
        job(job).containsKey("permissions") ? job(job).get("permissions") : root.get("permissions");
    if (permissions == null) {
      return Optional.empty();
    }
    if (permissions instanceof String all) {
      return Optional.of(
          all.equals("write-all")
              ? "write"
              : all.equals("read-all") ? (scope.equals("id-token") ? "none" : "read") : "none");
    }
    Object value = map(permissions).get(scope);
    return Optional.of(value instanceof String s ? s : "none");
  }

  /** Where a job's permissions are written (job level, else workflow level, else the job). */
  public int permissionsLine(String job) {
    if (job(job).containsKey("permissions")) {
      return lineOf("jobs." + job + ".permissions");
    }
    if (root.containsKey("permissions")) {
      return lineOf("permissions");
    }
    return lineOf("jobs." + job);
  }

  /** Every {@code uses:} of every step, with its path. */
  public Map<String, String> stepUses() {
    Map<String, String> uses = new LinkedHashMap<>();
    for (String job : jobs()) {
      List<Object> steps = list(job(job).get("steps"));
      for (int i = 0; i < steps.size(); i++) {
        Object value = map(steps.get(i)).get("uses");
        if (value instanceof String s) {
          uses.put("jobs." + job + ".steps." + i + ".uses", s);
        }
      }
      Object reusable = job(job).get("uses");
      if (reusable instanceof String s) {
        uses.put("jobs." + job + ".uses", s);
      }
    }
    return uses;
  }

  /** The steps that use the countersign action. */
  public List<CountersignStep> countersignSteps() {
    List<CountersignStep> found = new ArrayList<>();
    for (String job : jobs()) {
      List<Object> steps = list(job(job).get("steps"));
      for (int i = 0; i < steps.size(); i++) {
        Map<String, Object> step = map(steps.get(i));
        if (step.get("uses") instanceof String uses && isCountersign(uses)) {
          Map<String, String> with = new LinkedHashMap<>();
          map(step.get("with")).forEach((k, v) -> with.put(k, String.valueOf(v)));
          found.add(
              new CountersignStep(
                  job, i, uses, with, lineOf("jobs." + job + ".steps." + i + ".uses")));
        }
      }
    }
    return found;
  }

  /**
   * A call of {@code countersign run} in a step's {@code run:} script: the command line's words
   * after {@code run} up to the end of the command ({@code ;}, {@code &&}, {@code ||}, {@code |}),
   * quotes removed, lines ending in a backslash joined.
   *
   * @param line the line of the step's {@code run} key
   */
  public record ScriptedRun(String job, int index, List<String> arguments, int line) {}

  /**
   * The steps whose {@code run:} script calls countersign's {@code run} command: the program {@code
   * countersign} (any directory), {@code countersign.jar} or the countersign image, followed by the
   * word {@code run}.
   */
  public List<ScriptedRun> scriptedRuns() {
    List<ScriptedRun> found = new ArrayList<>();
    for (String job : jobs()) {
      List<Object> steps = list(job(job).get("steps"));
      for (int i = 0; i < steps.size(); i++) {
        if (!(map(steps.get(i)).get("run") instanceof String script)) {
          continue;
        }
        for (String command : script.replaceAll("\\\\\\R", " ").split("\\R")) {
          List<String> words = List.of(command.strip().split("\\s+"));
          for (int w = 0; w + 1 < words.size(); w++) {
            if (isCountersignProgram(unquoted(words.get(w))) && words.get(w + 1).equals("run")) {
              List<String> arguments = new ArrayList<>();
              for (int a = w + 2; a < words.size() && !COMMAND_ENDS.contains(words.get(a)); a++) {
                String word = words.get(a);
                boolean last = word.endsWith(";");
                arguments.add(unquoted(last ? word.substring(0, word.length() - 1) : word));
                if (last) {
                  break;
                }
              }
              found.add(
                  new ScriptedRun(
                      job, i, arguments, lineOf("jobs." + job + ".steps." + i + ".run")));
            }
          }
        }
      }
    }
    return found;
  }

  /**
   * {@code countersign}, {@code /usr/local/bin/countersign}, {@code countersign.jar}, its image.
   */
  private static boolean isCountersignProgram(String word) {
    String name = word.substring(word.lastIndexOf('/') + 1).split("[:@]", 2)[0];
    return name.equals("countersign") || name.equals("countersign.jar");
  }

  private static String unquoted(String word) {
    boolean quoted =
        word.length() >= 2
            && (word.startsWith("\"") && word.endsWith("\"")
                || word.startsWith("'") && word.endsWith("'"));
    return quoted ? word.substring(1, word.length() - 1) : word;
  }

  /** The countersign action by repository or by image, whatever version. */
  public static boolean isCountersign(String uses) {
    String lower = uses.toLowerCase(Locale.ROOT);
    return lower.startsWith("countersign/countersign@")
        || lower.startsWith("docker://ghcr.io/countersign/countersign");
  }

  static List<String> strings(Object value) {
    if (value instanceof String s) {
      return List.of(s);
    }
    return list(value).stream().map(String::valueOf).toList();
  }
}
