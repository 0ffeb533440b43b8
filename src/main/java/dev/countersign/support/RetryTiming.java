package dev.countersign.support;

import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * The waits between tries of every client that retries (GitHub's API, the Rekor log): jittered
 * exponential backoff, and what a server asks for with {@code Retry-After}.
 */
public final class RetryTiming {

  private RetryTiming() {}

  /**
   * {@code first}, doubled for every earlier failed try, times a random factor from 0.5 to 1.5, so
   * that clients that failed together do not all try again together.
   *
   * @param attempt the try that failed, from 1
   */
  public static Duration backoff(int attempt, Duration first, RandomGenerator random) {
    long base = first.toMillis() << Math.min(attempt - 1, 10);
    return Duration.ofMillis((long) (base * (0.5 + random.nextDouble())));
  }

  /**
   * The wait a {@code Retry-After} header value asks for (RFC 9110: seconds, or an HTTP date), from
   * {@code now}: zero for a date already past, empty when the value is absent or unreadable.
   */
  public static Optional<Duration> retryAfter(String value, Instant now) {
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    String text = value.strip();
    try {
      return Optional.of(Duration.ofSeconds(Math.max(0, Long.parseLong(text))));
    } catch (NumberFormatException notSeconds) {
      try {
        Instant at = ZonedDateTime.parse(text, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
        Duration wait = Duration.between(now, at);
        return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
      } catch (DateTimeParseException unreadable) {
        return Optional.empty();
      }
    }
  }
}
