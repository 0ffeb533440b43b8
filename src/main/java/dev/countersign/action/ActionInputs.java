package dev.countersign.action;

import dev.countersign.support.Env;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The one table mapping Action inputs (snake_case, as declared in {@code action.yml}) to options of
 * the command the Action runs ({@code run} unless the {@code command} input names another). The
 * Action does nothing the CLI cannot: it turns {@code INPUT_*} variables into the same argument
 * list a user would type and runs the same command in-process (so secrets in the list never reach a
 * process command line).
 *
 * <p>The runner names an input's variable {@code INPUT_<NAME>} upper-cased with spaces turned into
 * underscores but dashes kept, so both {@code INPUT_PUSH_ATTEMPTS} and {@code INPUT_PUSH-ATTEMPTS}
 * are read. Values are trimmed; an empty value means "not set" (an input without a default arrives
 * as "").
 */
public final class ActionInputs {

  /** How an input becomes arguments. */
  public enum Kind {
    /**
     * {@code --option=value}, one line: a value with a second line is an error naming the input,
     * never one of its lines picked nor a line break passed into a name.
     */
    VALUE,
    /** {@code --option=value}, line breaks kept (text such as a pull request body). */
    TEXT,
    /**
     * {@code true} adds {@code --option}; {@code false} adds nothing; anything else is an error.
     */
    FLAG,
    /** One {@code --option=line} per non-blank line. */
    LINES
  }

  /**
   * @param name the input name in action.yml (its description is there, for workflow authors)
   * @param option the option it sets
   * @param secret its value must be masked in logs
   */
  public record Input(String name, String option, Kind kind, boolean secret) {}

  // In action.yml order. An input sets the option of the same name in kebab-case unless a row
  // names another (most list inputs are plural, their repeatable options singular).
  private static final List<Input> ALL =
      List.of(
          secret("token"),
          value("mode"),
          value("branch"),
          value("base"),
          value("unsigned_dir"),
          value("signed_dir"),
          lines("dirs", "--dir"),
          lines("key", "--key"),
          secret("identity_token"),
          value("trusted_root"),
          value("signing_config"),
          value("annotation_domain"),
          value("parallel"),
          value("push_attempts"),
          value("author"),
          value("committer"),
          flag("signoff"),
          value("commit_message"),
          flag("dry_run"),
          flag("no_sign"),
          value("path", "--repo"),
          value("policy"),
          value("output"),
          value("sarif_file"),
          flag("from_worktree"),
          value("from"),
          value("to"),
          value("pr_branch"),
          value("title"),
          lines("labels", "--label"),
          lines("reviewers", "--reviewer"),
          lines("team_reviewers", "--team-reviewer"),
          flag("draft"),
          flag("delete_branch"),
          value("certificate_identity"),
          value("certificate_oidc_issuer"),
          value("policy_from"),
          flag("tlog_upload"),
          value("rekor_url"),
          flag("sign_commits"),
          text("body"),
          lines("assignees", "--assignee"),
          value("source"),
          value("publish_to"),
          secret("registry_token"),
          value("registry_username"),
          value("emit_manifest"),
          value("emit_kind"),
          value("emit_name"),
          value("emit_namespace"),
          flag("force"),
          flag("plain_http"));

  /** A value input; its option is {@code name} in kebab-case. */
  private static Input value(String name) {
    return value(name, optionFor(name));
  }

  private static Input value(String name, String option) {
    return new Input(name, option, Kind.VALUE, false);
  }

  private static Input text(String name) {
    return new Input(name, optionFor(name), Kind.TEXT, false);
  }

  /** A value input to mask in logs. */
  private static Input secret(String name) {
    return new Input(name, optionFor(name), Kind.VALUE, true);
  }

  private static Input flag(String name) {
    return new Input(name, optionFor(name), Kind.FLAG, false);
  }

  private static Input lines(String name, String option) {
    return new Input(name, option, Kind.LINES, false);
  }

  private static String optionFor(String name) {
    return "--" + name.replace('_', '-');
  }

  /**
   * Inputs action.yml gives a default: the runner sets them on every step, so their presence says
   * nothing about what the workflow author wrote and they are never reported as ignored.
   */
  public static final Set<String> DEFAULTED = Set.of("token");

  /** The input that names the subcommand the Action runs; {@value #DEFAULT_COMMAND} by default. */
  public static final String COMMAND = "command";

  public static final String DEFAULT_COMMAND = "run";

  private ActionInputs() {}

  /** Every input, in action.yml order. */
  public static List<Input> all() {
    return ALL;
  }

  /** The input that sets {@code option}, if one does. */
  public static Optional<String> inputSetting(String option) {
    return ALL.stream().filter(i -> i.option().equals(option)).map(Input::name).findFirst();
  }

  /** The trimmed value of input {@code name}, or empty when unset or blank. */
  public static Optional<String> read(Env env, String name) {
    String upper = name.replace(' ', '_').toUpperCase(Locale.ROOT);
    return env.get("INPUT_" + upper)
        .or(() -> env.get("INPUT_" + upper.replace('_', '-')))
        .or(() -> env.get("INPUT_" + upper.replace('-', '_')))
        .map(String::strip)
        .filter(v -> !v.isEmpty());
  }

  /**
   * The arguments for {@code command}, starting with its name: one per set input whose option the
   * command has ({@code hasOption}); inputs for options it lacks are left out (see {@link
   * #ignoredInputs}).
   */
  public static List<String> arguments(Env env, String command, Predicate<String> hasOption) {
    List<String> args = new ArrayList<>();
    args.add(command);
    for (Input input : ALL) {
      Optional<String> value = read(env, input.name());
      if (value.isEmpty() || !hasOption.test(input.option())) {
        continue;
      }
      switch (input.kind()) {
        case VALUE -> args.add(input.option() + "=" + oneLine(input.name(), value.get()));
        case TEXT -> args.add(input.option() + "=" + value.get());
        case FLAG -> {
          if (parseBoolean(input.name(), value.get())) {
            args.add(input.option());
          }
        }
        case LINES ->
            value
                .get()
                .lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .forEach(l -> args.add(input.option() + "=" + l));
      }
    }
    return args;
  }

  /** Inputs that are set but mean nothing to {@code command} (to warn about them). */
  public static List<String> ignoredInputs(Env env, Predicate<String> hasOption) {
    return ALL.stream()
        .filter(
            i ->
                read(env, i.name()).isPresent()
                    && !hasOption.test(i.option())
                    && !DEFAULTED.contains(i.name()))
        .map(Input::name)
        .toList();
  }

  /** Values of secret inputs that are set, to mask before anything is printed. */
  public static List<String> secretValues(Env env) {
    return ALL.stream()
        .filter(Input::secret)
        .map(i -> read(env, i.name()))
        .flatMap(Optional::stream)
        .toList();
  }

  /**
   * Everything to {@link Reporter#mask} before the first line is printed: the secret inputs and,
   * for the token, the base64 basic credential built from it (which is what would appear in an HTTP
   * trace).
   */
  public static List<String> masks(Env env) {
    List<String> masks = new ArrayList<>(secretValues(env));
    read(env, "token")
        .ifPresent(
            token ->
                masks.add(
                    Base64.getEncoder()
                        .encodeToString(
                            ("x-access-token:" + token).getBytes(StandardCharsets.UTF_8))));
    return masks;
  }

  /**
   * {@code value} when it is one line. The value itself is not quoted in the error: its second line
   * would reach the log.
   */
  private static String oneLine(String name, String value) {
    long lines = value.lines().count();
    if (lines > 1) {
      throw new UsageProblem(
          "Input " + name + " takes one line, got " + lines,
          "perhaps you should write "
              + name
              + " on one line (a YAML block scalar such as |"
              + " keeps its line breaks)");
    }
    return value;
  }

  /** Accepts what {@code core.getBooleanInput} accepts: true/True/TRUE and false/False/FALSE. */
  static boolean parseBoolean(String name, String value) {
    if (value.equals("true") || value.equals("True") || value.equals("TRUE")) {
      return true;
    }
    if (value.equals("false") || value.equals("False") || value.equals("FALSE")) {
      return false;
    }
    throw new UsageProblem(
        "Input " + name + " must be true or false, got \"" + value + "\"",
        "perhaps you should write " + name + ": true");
  }
}
