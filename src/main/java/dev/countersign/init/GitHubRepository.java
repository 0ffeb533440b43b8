package dev.countersign.init;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A repository on github.com, as the signer identity names it ({@code
 * https://github.com/OWNER/REPO/...}).
 *
 * @param owner user or organisation
 * @param name repository name
 */
public record GitHubRepository(String owner, String name) {

  /**
   * {@code https://github.com/O/R(.git)}, with optional credentials, {@code
   * git@github.com:O/R(.git)}, {@code ssh://git@github.com(:22)/O/R(.git)} and {@code
   * git://github.com/O/R}. Other hosts (GitHub Enterprise Server) issue other certificate subjects,
   * so they are not recognised.
   */
  private static final Pattern URL =
      Pattern.compile(
          "(?:(?:https?|ssh|git)://(?:[^@/]+@)?github\\.com(?::\\d+)?/|(?:[^@/]+@)?github\\.com:)"
              + "/?([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100}?)(?:\\.git)?/?",
          Pattern.CASE_INSENSITIVE);

  /** The repository an origin URL points at, if it is a github.com repository. */
  public static Optional<GitHubRepository> fromRemoteUrl(String url) {
    if (url == null) {
      return Optional.empty();
    }
    Matcher matcher = URL.matcher(url.strip());
    if (!matcher.matches() || matcher.group(2).equals(".") || matcher.group(2).equals("..")) {
      return Optional.empty();
    }
    return Optional.of(new GitHubRepository(matcher.group(1), matcher.group(2)));
  }

  /** {@code OWNER/REPO} as in {@code GITHUB_REPOSITORY}. */
  public static Optional<GitHubRepository> fromSlug(String slug) {
    if (slug == null) {
      return Optional.empty();
    }
    String[] parts = slug.split("/", -1);
    return parts.length == 2 && !parts[0].isEmpty() && !parts[1].isEmpty()
        ? Optional.of(new GitHubRepository(parts[0], parts[1]))
        : Optional.empty();
  }
}
