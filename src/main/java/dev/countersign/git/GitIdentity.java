package dev.countersign.git;

import dev.countersign.support.problems.UsageProblem;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A commit author or committer, without a time: the workspace stamps commits with its clock.
 *
 * @param name display name, never blank
 * @param email address without angle brackets, never blank
 */
public record GitIdentity(String name, String email) {

  private static final Pattern NAME_AND_EMAIL = Pattern.compile("^\\s*(.*?)\\s*<([^<>]+)>\\s*$");

  /** The committer GitHub shows as "github-actions[bot]"; the default for Action runs. */
  public static final GitIdentity GITHUB_ACTIONS_BOT =
      new GitIdentity(
          "github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com");

  public GitIdentity {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(email, "email");
    // A newline or angle bracket would let a value forge extra header lines or trailers.
    if (name.isBlank()
        || email.isBlank()
        || hasControlOrBracket(name)
        || hasControlOrBracket(email)) {
      throw new UsageProblem(
          "Invalid git identity \"" + name + " <" + email + ">\"",
          "perhaps you should write it as \"Name <email@example.com>\"");
    }
  }

  /**
   * Parses the {@code Name <email>} form used by git and by the {@code author}/{@code committer}
   * inputs.
   */
  public static GitIdentity parse(String nameAndEmail) {
    Matcher m = NAME_AND_EMAIL.matcher(nameAndEmail == null ? "" : nameAndEmail);
    if (!m.matches() || m.group(1).isBlank()) {
      throw new UsageProblem(
          "Invalid git identity \"" + nameAndEmail + "\" while reading the author or committer",
          "perhaps you should write it as \"Name <email@example.com>\"");
    }
    return new GitIdentity(m.group(1), m.group(2).trim());
  }

  /** GitHub's no-reply address for a user, as actions such as create-pull-request default to. */
  public static GitIdentity githubUser(String login, String userId) {
    return new GitIdentity(login, userId + "+" + login + "@users.noreply.github.com");
  }

  private static boolean hasControlOrBracket(String s) {
    return s.chars().anyMatch(c -> c < 0x20 || c == 0x7f || c == '<' || c == '>');
  }

  @Override
  public String toString() {
    return name + " <" + email + ">";
  }
}
