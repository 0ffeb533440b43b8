package dev.countersign.init;

import dev.countersign.support.problems.UsageProblem;
import java.nio.file.Path;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What {@code countersign init} generates for.
 *
 * @param owner GitHub owner (user or organisation)
 * @param repository GitHub repository name
 * @param branch the branch that merged pull requests land on and the signer runs from
 * @param unsignedDir where authors put manifests, relative to the repository
 * @param signedDir where signed manifests go, relative to the repository
 * @param namespace the Kubernetes namespace the Argo CD application deploys to and the Kyverno
 *     policy guards
 * @param withPromotion also generate the promotion workflow
 * @param force overwrite files that already exist
 */
public record InitOptions(
    String owner,
    String repository,
    String branch,
    Path unsignedDir,
    Path signedDir,
    String namespace,
    boolean withPromotion,
    boolean force) {

  /** The signing workflow's file name; part of the signer identity, so fixed. */
  public static final String SIGNING_WORKFLOW = "sign-on-merge.yml";

  public static final String GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

  private static final Pattern OWNER = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})");
  private static final Pattern REPOSITORY = Pattern.compile("[A-Za-z0-9._-]{1,100}");
  private static final Pattern BRANCH = Pattern.compile("[A-Za-z0-9._/-]{1,200}");
  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern DIRECTORY = Pattern.compile("[A-Za-z0-9._/-]{1,200}");

  public InitOptions {
    require(owner, OWNER, "owner", "a GitHub user or organisation name such as acme");
    require(repository, REPOSITORY, "repository", "a GitHub repository name such as deploy");
    if (repository.equals(".") || repository.equals("..")) {
      throw invalid("repository", repository, "a GitHub repository name such as deploy");
    }
    require(branch, BRANCH, "branch", "a branch name such as main");
    if (branch.contains("..") || branch.startsWith("/") || branch.startsWith("-") || branch.endsWith("/")
        || branch.endsWith(".lock") || branch.contains("//")) {
      throw invalid("branch", branch, "a branch name such as main");
    }
    require(namespace, DNS_LABEL, "namespace", "a Kubernetes namespace name (lower-case letters, digits and '-')");
    unsignedDir = directory(unsignedDir, "unsigned directory");
    signedDir = directory(signedDir, "signed directory");
    if (unsignedDir.startsWith(signedDir) || signedDir.startsWith(unsignedDir)) {
      throw new UsageProblem(
          "The unsigned directory " + unsignedDir + " and the signed directory " + signedDir
              + " overlap while preparing countersign init",
          ", perhaps you should use two separate directories such as unsigned and signed");
    }
  }

  /** Defaults: unsigned/ and signed/, namespace derived from the repository name, no promotion. */
  public static InitOptions of(String owner, String repository, String branch) {
    String namespace = repository.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9-]", "-").replaceAll("^-+|-+$", "");
    return new InitOptions(owner, repository, branch, Path.of("unsigned"), Path.of("signed"),
        namespace.isEmpty() ? "default" : namespace, false, false);
  }

  public InitOptions withForce(boolean value) {
    return new InitOptions(owner, repository, branch, unsignedDir, signedDir, namespace, withPromotion, value);
  }

  public InitOptions withPromotion(boolean value) {
    return new InitOptions(owner, repository, branch, unsignedDir, signedDir, namespace, value, force);
  }

  /**
   * The Fulcio certificate SAN of a signature made by the generated signing workflow:
   * {@code https://github.com/OWNER/REPO/.github/workflows/sign-on-merge.yml@refs/heads/BRANCH}.
   */
  public String signerSubject() {
    return "https://github.com/" + owner + "/" + repository + "/.github/workflows/" + SIGNING_WORKFLOW + "@refs/heads/" + branch;
  }

  private static Path directory(Path value, String what) {
    if (value == null) {
      throw new UsageProblem("The " + what + " is missing while preparing countersign init", null);
    }
    String text = value.toString().replace('\\', '/');
    Path normalized = value.normalize();
    if (!DIRECTORY.matcher(text).matches() || value.isAbsolute() || normalized.startsWith("..") || normalized.toString().isEmpty()) {
      throw invalid(what, text, "a directory inside the repository such as " + (what.startsWith("unsigned") ? "unsigned" : "signed"));
    }
    return normalized;
  }

  private static void require(String value, Pattern pattern, String what, String example) {
    if (value == null || !pattern.matcher(value).matches()) {
      throw invalid(what, value, example);
    }
  }

  private static UsageProblem invalid(String what, String value, String example) {
    return new UsageProblem(
        "The " + what + " \"" + value + "\" is not valid while preparing countersign init",
        ", perhaps you should pass " + example);
  }
}
