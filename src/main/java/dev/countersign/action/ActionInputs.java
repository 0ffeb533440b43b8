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
 * {@code countersign run}. The Action does nothing the CLI cannot: it turns {@code INPUT_*}
 * variables into the same argument list a user would type and runs the same command in-process (so
 * secrets in the list never reach a process command line).
 *
 * <p>The runner names an input's variable {@code INPUT_<NAME>} upper-cased with spaces turned into
 * underscores but dashes kept, so both {@code INPUT_PUSH_ATTEMPTS} and {@code INPUT_PUSH-ATTEMPTS}
 * are read. Values are trimmed; an empty value means "not set" (an input without a default arrives
 * as "").
 */
public final class ActionInputs {

  /** How an input becomes arguments. */
  public enum Kind {
    /** {@code --option=value}. */
    VALUE,
    /**
     * {@code true} adds {@code --option}; {@code false} adds nothing; anything else is an error.
     */
    FLAG,
    /** One {@code --option=line} per non-blank line. */
    LINES
  }

  /**
   * @param name the input name in action.yml
   * @param option the {@code run} option it sets
   * @param secret its value must be masked in logs
   */
  public record Input(String name, String option, Kind kind, boolean secret, String description) {}

  private static final List<Input> ALL =
      List.of(
          new Input(
              "token", "--token", Kind.VALUE, true, "token to push and open pull requests with"),
          new Input(
              "mode",
              "--mode",
              Kind.VALUE,
              false,
              "push to the branch, or open a pull request (pull-request)"),
          new Input(
              "branch",
              "--branch",
              Kind.VALUE,
              false,
              "branch to reconcile; default from the event"),
          new Input(
              "base", "--base", Kind.VALUE, false, "base branch of the promotion pull request"),
          new Input(
              "unsigned_dir",
              "--unsigned-dir",
              Kind.VALUE,
              false,
              "directory of manifests to sign"),
          new Input(
              "signed_dir",
              "--signed-dir",
              Kind.VALUE,
              false,
              "directory signed manifests move to"),
          new Input(
              "dirs", "--dir", Kind.LINES, false, "several from:to directory pairs, one per line"),
          new Input(
              "key",
              "--key",
              Kind.VALUE,
              false,
              "run: sign with this private key instead of keyless; promote: accepted public key"),
          new Input(
              "identity_token",
              "--identity-token",
              Kind.VALUE,
              true,
              "OIDC token for keyless signing"),
          new Input(
              "trusted_root", "--trusted-root", Kind.VALUE, false, "Sigstore trusted_root.json"),
          new Input(
              "signing_config",
              "--signing-config",
              Kind.VALUE,
              false,
              "Sigstore signing_config.json"),
          new Input(
              "annotation_domain",
              "--annotation-domain",
              Kind.VALUE,
              false,
              "annotation key prefix"),
          new Input("parallel", "--parallel", Kind.VALUE, false, "manifests signed at once"),
          new Input(
              "push_attempts", "--push-attempts", Kind.VALUE, false, "push tries before giving up"),
          new Input("author", "--author", Kind.VALUE, false, "commit author, Name <email>"),
          new Input(
              "committer", "--committer", Kind.VALUE, false, "commit committer, Name <email>"),
          new Input("signoff", "--signoff", Kind.FLAG, false, "add Signed-off-by"),
          new Input(
              "commit_message",
              "--commit-message",
              Kind.VALUE,
              false,
              "first line of the commit message"),
          new Input("dry_run", "--dry-run", Kind.FLAG, false, "print the plan, change nothing"),
          new Input(
              "no_sign", "--no-sign", Kind.FLAG, false, "move without signing (testing only)"),
          new Input(
              "path", "--repo", Kind.VALUE, false, "repository work tree; default the workspace"),
          new Input(
              "policy",
              "--policy",
              Kind.VALUE,
              false,
              "trust policy file for check, promote and publish"),
          new Input(
              "output", "--output", Kind.VALUE, false, "check output format: text, json or sarif"),
          new Input(
              "sarif_file", "--sarif-file", Kind.VALUE, false, "check also writes SARIF here"),
          new Input(
              "from_worktree",
              "--from-worktree",
              Kind.FLAG,
              false,
              "sign manifests an earlier step generated into the work tree (scheduled refresh)"),
          new Input(
              "from", "--from", Kind.VALUE, false, "promote: source directory of signed manifests"),
          new Input(
              "to",
              "--to",
              Kind.VALUE,
              false,
              "promote: target directory; publish: REGISTRY/REPOSITORY[:TAG]"),
          new Input(
              "pr_branch",
              "--pr-branch",
              Kind.VALUE,
              false,
              "branch countersign owns for the pull request"),
          new Input("title", "--title", Kind.VALUE, false, "pull request title"),
          new Input("labels", "--label", Kind.LINES, false, "pull request labels, one per line"),
          new Input(
              "reviewers",
              "--reviewer",
              Kind.LINES,
              false,
              "users to request reviews from, one per line"),
          new Input(
              "team_reviewers",
              "--team-reviewer",
              Kind.LINES,
              false,
              "teams to request reviews from, one per line"),
          new Input("draft", "--draft", Kind.FLAG, false, "open the pull request as a draft"),
          new Input(
              "delete_branch",
              "--delete-branch",
              Kind.FLAG,
              false,
              "delete the pull request branch when closing it as no longer needed"),
          new Input(
              "certificate_identity",
              "--certificate-identity",
              Kind.VALUE,
              false,
              "promote: accepted keyless signer (SAN)"),
          new Input(
              "certificate_oidc_issuer",
              "--certificate-oidc-issuer",
              Kind.VALUE,
              false,
              "promote: OIDC issuer of the accepted signer"),
          new Input(
              "policy_from",
              "--policy-from",
              Kind.VALUE,
              false,
              "check: rules from the base commit, or the work tree"),
          new Input(
              "tlog_upload",
              "--tlog-upload",
              Kind.FLAG,
              false,
              "run with key: also record the signatures in a Rekor v1 log (bundle annotation)"),
          new Input(
              "rekor_url",
              "--rekor-url",
              Kind.VALUE,
              false,
              "run with key and tlog_upload: the Rekor v1 log"),
          new Input(
              "sign_commits",
              "--sign-commits",
              Kind.FLAG,
              false,
              "make the commit through GitHub's API so GitHub signs it (Verified)"),
          new Input(
              "body",
              "--body",
              Kind.VALUE,
              false,
              "text above the generated table in the pull request body"),
          new Input(
              "assignees",
              "--assignee",
              Kind.LINES,
              false,
              "users to assign the pull request to, one per line"),
          new Input(
              "source",
              "--source",
              Kind.VALUE,
              false,
              "publish: signed directory or file to push as an OCI artifact"),
          new Input(
              "publish_to",
              "--publish-to",
              Kind.VALUE,
              false,
              "run: after the signing commit is pushed, publish the signed directory to this"
                  + " REGISTRY/REPOSITORY[:TAG]"),
          new Input(
              "registry_token",
              "--registry-token",
              Kind.VALUE,
              true,
              "publish: registry password or token"),
          new Input(
              "registry_username",
              "--registry-username",
              Kind.VALUE,
              false,
              "publish: registry user name for registry_token"),
          new Input(
              "emit_manifest",
              "--emit-manifest",
              Kind.VALUE,
              false,
              "publish: write a Flux OCIRepository pinning the artifact to this file"),
          new Input("emit_kind", "--emit-kind", Kind.VALUE, false, "publish: flux or reference"),
          new Input(
              "emit_name",
              "--emit-name",
              Kind.VALUE,
              false,
              "publish: metadata.name of the emitted manifest"),
          new Input(
              "emit_namespace",
              "--emit-namespace",
              Kind.VALUE,
              false,
              "publish: metadata.namespace of the emitted manifest"),
          new Input(
              "force",
              "--force",
              Kind.FLAG,
              false,
              "publish: overwrite an existing emit_manifest file"),
          new Input(
              "plain_http",
              "--plain-http",
              Kind.FLAG,
              false,
              "publish: plain HTTP to a registry on localhost (a job service container)"));

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

  /** The trimmed value of input {@code name}, or empty when unset or blank. */
  public static Optional<String> read(Env env, String name) {
    String upper = name.replace(' ', '_').toUpperCase(Locale.ROOT);
    return env.get("INPUT_" + upper)
        .or(() -> env.get("INPUT_" + upper.replace('_', '-')))
        .or(() -> env.get("INPUT_" + upper.replace('-', '_')))
        .map(String::strip)
        .filter(v -> !v.isEmpty());
  }

  /** The arguments for {@code countersign run}, starting with {@code run}. */
  public static List<String> runArguments(Env env) {
    return arguments(env, DEFAULT_COMMAND, option -> true);
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
        case VALUE -> args.add(input.option() + "=" + value.get());
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
