package dev.countersign.github;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** The retry decisions, from status, headers and GitHub's message alone. */
class GitHubRetryPolicyTest {

  private static final Instant NOW = Instant.parse("2026-11-23T03:00:00Z");
  private final GitHubRetryPolicy policy =
      new GitHubRetryPolicy(
          Clock.fixed(NOW, ZoneOffset.UTC), RandomGenerator.of("L32X64MixRandom"));

  private static Function<String, String> headers(Map<String, String> values) {
    Map<String, String> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    map.putAll(values);
    return map::get;
  }

  private static final Function<String, String> NONE = headers(Map.of());

  @Test
  void serverErrors_areRetriedWithJitteredGrowingBackoff_thenGivenUpOnTheThirdTry() {
    var first = (GitHubRetryPolicy.Retry) policy.afterResponse(1, 502, NONE, "");
    var second = (GitHubRetryPolicy.Retry) policy.afterResponse(2, 500, NONE, "");

    assertThat(first.delay()).isBetween(Duration.ofMillis(500), Duration.ofMillis(1500));
    assertThat(second.delay()).isBetween(Duration.ofMillis(1000), Duration.ofMillis(3000));
    assertThat(policy.afterResponse(3, 503, NONE, ""))
        .isEqualTo(
            new GitHubRetryPolicy.GiveUp(
                GitHubRetryPolicy.Failure.SERVER_ERROR, "on 3 tries in a row"));
    assertThat(policy.afterConnectionFailure(3)).isInstanceOf(GitHubRetryPolicy.GiveUp.class);
  }

  @Test
  void clientErrors_andPermissionRefusals_areFinal() {
    assertThat(policy.afterResponse(1, 422, NONE, "Validation Failed"))
        .isInstanceOf(GitHubRetryPolicy.Final.class);
    assertThat(policy.afterResponse(1, 403, NONE, "Resource not accessible by integration"))
        .isInstanceOf(GitHubRetryPolicy.Final.class);
    assertThat(policy.afterResponse(1, 404, NONE, "Not Found"))
        .isInstanceOf(GitHubRetryPolicy.Final.class);
  }

  @Test
  void rateLimits_waitWhatGitHubAsks() {
    assertThat(policy.afterResponse(1, 403, headers(Map.of("retry-after", "12")), "secondary"))
        .isEqualTo(
            new GitHubRetryPolicy.Retry(
                GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(12)));
    assertThat(policy.afterResponse(1, 429, NONE, ""))
        .isEqualTo(
            new GitHubRetryPolicy.Retry(
                GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(60)));
    assertThat(policy.afterResponse(1, 403, NONE, "You have exceeded a secondary rate limit."))
        .isEqualTo(
            new GitHubRetryPolicy.Retry(
                GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(60)));
    assertThat(
            policy.afterResponse(
                1, 403, headers(Map.of("Retry-After", "Mon, 23 Nov 2026 03:00:40 GMT")), ""))
        .isEqualTo(
            new GitHubRetryPolicy.Retry(
                GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(40)));
    long reset = NOW.plusSeconds(30).getEpochSecond();
    assertThat(
            policy.afterResponse(
                1,
                403,
                headers(
                    Map.of(
                        "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", Long.toString(reset))),
                "API rate limit"))
        .isEqualTo(
            new GitHubRetryPolicy.Retry(
                GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(31)));
  }

  @Test
  void rateLimits_longerThanTheBound_areNotWaited() {
    long reset = NOW.plusSeconds(3600).getEpochSecond();
    assertThat(
            policy.afterResponse(
                1,
                403,
                headers(
                    Map.of(
                        "x-ratelimit-remaining", "0", "x-ratelimit-reset", Long.toString(reset))),
                ""))
        .isEqualTo(
            new GitHubRetryPolicy.GiveUp(
                GitHubRetryPolicy.Failure.RATE_LIMIT,
                "GitHub asks to wait 3601 s"
                    + " (until the limit resets at "
                    + Instant.ofEpochSecond(reset)
                    + "), longer than the 90 s countersign waits"));
    assertThat(policy.afterResponse(1, 429, headers(Map.of("Retry-After", "600")), ""))
        .isInstanceOf(GitHubRetryPolicy.GiveUp.class);
  }

  @Test
  void aResetBeyondAnyRepresentableTime_isGivenUpOn_notACrash() {
    for (String reset : new String[] {Long.toString(Long.MAX_VALUE), "31556889864403200"}) {
      assertThat(
              policy.afterResponse(
                  1,
                  403,
                  headers(Map.of("x-ratelimit-remaining", "0", "x-ratelimit-reset", reset)),
                  "API rate limit exceeded"))
          .isInstanceOfSatisfying(
              GitHubRetryPolicy.GiveUp.class,
              giveUp -> {
                assertThat(giveUp.failure()).isEqualTo(GitHubRetryPolicy.Failure.RATE_LIMIT);
                assertThat(giveUp.why())
                    .startsWith("GitHub asks to wait until epoch second " + reset)
                    .endsWith(", longer than the 90 s countersign waits");
              });
    }
  }

  @Test
  void aResetInThePast_isWaitedOnlyTheSecondForClockSkew() {
    for (String reset : new String[] {"0", Long.toString(Long.MIN_VALUE), "-5"}) {
      assertThat(
              policy.afterResponse(
                  1,
                  403,
                  headers(Map.of("x-ratelimit-remaining", "0", "x-ratelimit-reset", reset)),
                  ""))
          .isEqualTo(
              new GitHubRetryPolicy.Retry(
                  GitHubRetryPolicy.Failure.RATE_LIMIT, Duration.ofSeconds(1)));
    }
  }

  @Test
  void aForbiddenAnswerWithQuotaLeft_isNotARateLimit() {
    assertThat(
            GitHubRetryPolicy.isRateLimit(
                403,
                headers(Map.of("x-ratelimit-remaining", "4999")),
                "Resource not accessible by integration"))
        .isFalse();
    assertThat(
            GitHubRetryPolicy.isRateLimit(
                403, headers(Map.of("gh-limited-by", "search-elastic")), ""))
        .isTrue();
  }
}
