package dev.countersign.git;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Where to fetch from and push to, and the token to authenticate with. The URL never carries
 * credentials: the token goes in an Authorization header, so it cannot leak through messages that
 * quote the URL.
 *
 * @param url e.g. {@code https://github.com/owner/repo.git}, or a {@code file://} URL in tests
 * @param token a GitHub token (App installation, PAT or GITHUB_TOKEN); empty for local remotes
 */
public record GitRemote(String url, Optional<String> token) {

  private static final Pattern USERINFO =
      Pattern.compile("(?i)\\b([a-z][a-z0-9+.-]*://)[^/@\\s]+@");

  public GitRemote {
    Objects.requireNonNull(url, "url");
    Objects.requireNonNull(token, "token");
    url = sanitize(url);
  }

  public static GitRemote anonymous(String url) {
    return new GitRemote(url, Optional.empty());
  }

  public static GitRemote withToken(String url, String token) {
    return new GitRemote(url, Optional.of(token));
  }

  /** The GitHub repository URL for {@code GITHUB_SERVER_URL} and {@code GITHUB_REPOSITORY}. */
  public static String githubUrl(String serverUrl, String repository) {
    String server =
        serverUrl.endsWith("/") ? serverUrl.substring(0, serverUrl.length() - 1) : serverUrl;
    return server + "/" + repository + ".git";
  }

  /** Replaces any {@code user:password@} in URLs inside {@code text} by {@code ***@}. */
  public static String sanitize(String text) {
    return text == null ? null : USERINFO.matcher(text).replaceAll("$1***@");
  }

  @Override
  public String toString() {
    return url + (token.isPresent() ? " (with token)" : "");
  }
}
