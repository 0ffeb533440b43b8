package dev.countersign.github;

import org.kohsuke.github.HttpException;

/**
 * {@link RetryingConnector} stopped retrying: the last answer was a server error or a rate limit,
 * or there was no answer. An {@link HttpException} so that hub4j passes it through unchanged (and
 * does not retry it again itself).
 */
final class GitHubGaveUp extends HttpException {

  private static final long serialVersionUID = 1L;

  private final transient GitHubRetryPolicy.Failure failure;
  private final String summary;
  private final String why;

  /**
   * @param status the last HTTP status, -1 when there was no answer
   * @param summary GitHub's message ({@link GitHubErrorBody#summary}), or the connection failure
   * @param why the policy's reason for stopping
   */
  GitHubGaveUp(
      GitHubRetryPolicy.Failure failure,
      int status,
      String summary,
      String why,
      String url,
      Throwable cause) {
    super(summary, status, summary, url, cause);
    this.failure = failure;
    this.summary = summary;
    this.why = why;
  }

  GitHubRetryPolicy.Failure failure() {
    return failure;
  }

  String summary() {
    return summary;
  }

  String why() {
    return why;
  }
}
