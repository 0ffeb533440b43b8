package dev.countersign.github;

import dev.countersign.support.RetryTiming;
import java.time.Clock;
import java.time.DateTimeException;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.function.Function;
import java.util.random.RandomGenerator;

/**
 * The one rule for when a GitHub API request is sent again, shared by every call countersign makes
 * (pull requests, branches, the Git Data API). Pure: it decides, {@link RetryingConnector} waits
 * and resends.
 *
 * <ul>
 *   <li><b>Server errors</b> (5xx) and <b>connection failures</b> are transient: up to {@link
 *       #attempts()} tries in all, with jittered exponential backoff (1 s, 2 s, ..., each times 0.5
 *       to 1.5).
 *   <li><b>Rate limits</b> are recognised by status and headers, as GitHub documents them: 429; or
 *       403 with {@code Retry-After}, {@code gh-limited-by}, {@code x-ratelimit-remaining: 0} or a
 *       message naming a rate limit. The wait is what GitHub asks for: {@code Retry-After} seconds,
 *       else until {@code x-ratelimit-reset} when no requests remain (the primary limit), else one
 *       minute (GitHub's advice for a secondary limit without {@code Retry-After}). A wait longer
 *       than {@link #longestWait()} is not waited: the call gives up at once, so a job never hangs
 *       for the rest of the hour.
 *   <li>Everything else (2xx, 3xx, other 4xx) is final.
 * </ul>
 */
public final class GitHubRetryPolicy {

  /** Tries per request, the first included. */
  public static final int ATTEMPTS = 3;

  /** The longest single wait for a rate limit; more than this gives up instead. */
  public static final Duration LONGEST_WAIT = Duration.ofSeconds(90);

  static final Duration FIRST_BACKOFF = Duration.ofSeconds(1);
  static final Duration SECONDARY_LIMIT_WAIT = Duration.ofSeconds(60);

  private final Clock clock;
  private final RandomGenerator random;
  private final int attempts;
  private final Duration longestWait;

  public GitHubRetryPolicy(Clock clock, RandomGenerator random) {
    this(clock, random, ATTEMPTS, LONGEST_WAIT);
  }

  public GitHubRetryPolicy(
      Clock clock, RandomGenerator random, int attempts, Duration longestWait) {
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
    if (attempts < 1) {
      throw new IllegalArgumentException("attempts must be at least 1");
    }
    this.attempts = attempts;
    this.longestWait = Objects.requireNonNull(longestWait, "longestWait");
  }

  public int attempts() {
    return attempts;
  }

  public Duration longestWait() {
    return longestWait;
  }

  /** What kind of failure a response or exception was. */
  public enum Failure {
    /** GitHub answered 5xx. */
    SERVER_ERROR,
    /** A primary or secondary rate limit. */
    RATE_LIMIT,
    /** No HTTP answer at all (connection refused, reset, timed out, TLS). */
    UNREACHABLE
  }

  /** What to do after one try. */
  public sealed interface Decision {}

  /** The answer stands (success, or a failure retrying cannot fix). */
  public record Final() implements Decision {}

  /** Send the request again after {@code delay}. */
  public record Retry(Failure failure, Duration delay) implements Decision {}

  /** Stop; {@code why} says why in words for the error message. */
  public record GiveUp(Failure failure, String why) implements Decision {}

  /**
   * @param attempt the try that produced this answer, from 1
   * @param header reads a response header, case-insensitively; null when absent
   * @param message GitHub's {@code message} from the body, or empty
   */
  public Decision afterResponse(
      int attempt, int status, Function<String, String> header, String message) {
    if (isRateLimit(status, header, message)) {
      Duration wait = rateLimitWait(header);
      if (wait.compareTo(longestWait) > 0) {
        return new GiveUp(
            Failure.RATE_LIMIT,
            "GitHub asks to wait "
                + howLong(wait, header)
                + ", longer than the "
                + seconds(longestWait)
                + " countersign waits");
      }
      if (attempt >= attempts) {
        return new GiveUp(Failure.RATE_LIMIT, "still limited after " + attempt + " tries");
      }
      return new Retry(Failure.RATE_LIMIT, wait);
    }
    if (status >= 500) {
      return attempt >= attempts
          ? new GiveUp(Failure.SERVER_ERROR, inARow(attempt))
          : new Retry(Failure.SERVER_ERROR, backoff(attempt));
    }
    return new Final();
  }

  /** After a try that got no HTTP answer. */
  public Decision afterConnectionFailure(int attempt) {
    return attempt >= attempts
        ? new GiveUp(Failure.UNREACHABLE, inARow(attempt))
        : new Retry(Failure.UNREACHABLE, backoff(attempt));
  }

  /**
   * True for GitHub's primary and secondary rate limits, by status and headers; the message is only
   * a last resort for a 403 that carries none of the headers.
   */
  public static boolean isRateLimit(int status, Function<String, String> header, String message) {
    if (status == 429) {
      return true;
    }
    if (status != 403) {
      return false;
    }
    return header.apply("Retry-After") != null
        || header.apply("gh-limited-by") != null
        || "0".equals(strip(header.apply("x-ratelimit-remaining")))
        || String.valueOf(message).toLowerCase(Locale.ROOT).contains("rate limit");
  }

  private Duration rateLimitWait(Function<String, String> header) {
    String retryAfter = header.apply("Retry-After");
    if (retryAfter != null) {
      return RetryTiming.retryAfter(retryAfter, clock.instant()).orElse(SECONDARY_LIMIT_WAIT);
    }
    OptionalLong reset = primaryReset(header);
    if (reset.isPresent()) {
      // In whole seconds, never through Instant: any long is a header value GitHub could send,
      // and most of them are outside Instant's range. One second past the reset: GitHub's clock
      // and ours are not the same clock.
      long now = clock.instant().getEpochSecond();
      long ahead = reset.getAsLong() <= now ? 0 : reset.getAsLong() - now;
      return Duration.ofSeconds(Math.min(ahead, Long.MAX_VALUE - 1) + 1);
    }
    return SECONDARY_LIMIT_WAIT;
  }

  /**
   * The {@code x-ratelimit-reset} epoch second of a primary limit ({@code x-ratelimit-remaining:
   * 0}), when the wait comes from it (no {@code Retry-After}) and it is a number.
   */
  private static OptionalLong primaryReset(Function<String, String> header) {
    if (header.apply("Retry-After") != null
        || !"0".equals(strip(header.apply("x-ratelimit-remaining")))) {
      return OptionalLong.empty();
    }
    try {
      return OptionalLong.of(Long.parseLong(strip(header.apply("x-ratelimit-reset"))));
    } catch (NumberFormatException | NullPointerException noReset) {
      return OptionalLong.empty();
    }
  }

  /** {@code wait} in words, with the reset time of a primary limit when it is a real time. */
  private static String howLong(Duration wait, Function<String, String> header) {
    OptionalLong reset = primaryReset(header);
    if (reset.isEmpty()) {
      return seconds(wait);
    }
    try {
      return seconds(wait)
          + " (until the limit resets at "
          + Instant.ofEpochSecond(reset.getAsLong())
          + ")";
    } catch (DateTimeException beyondAnyDate) {
      return "until epoch second " + reset.getAsLong();
    }
  }

  private static String inARow(int attempt) {
    return attempt == 1 ? "on its only try" : "on " + attempt + " tries in a row";
  }

  private Duration backoff(int attempt) {
    return RetryTiming.backoff(attempt, FIRST_BACKOFF, random);
  }

  private static String seconds(Duration d) {
    return d.toSeconds() + " s";
  }

  private static String strip(String value) {
    return value == null ? null : value.strip();
  }
}
