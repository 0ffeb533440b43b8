package dev.countersign.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** Backoff doubles with jitter; Retry-After is read in both of RFC 9110's forms. */
class RetryTimingTest {

  private static final Instant NOW = Instant.parse("2026-11-28T01:00:00Z");

  @Test
  void backoff_doublesPerTry_withinHalfToOneAndAHalfTimes() {
    RandomGenerator lowest = () -> 0L; // nextDouble() == 0.0
    assertThat(RetryTiming.backoff(1, Duration.ofSeconds(1), lowest)).hasMillis(500);
    assertThat(RetryTiming.backoff(3, Duration.ofSeconds(1), lowest)).hasMillis(2000);
    RandomGenerator real = RandomGenerator.getDefault();
    for (int i = 0; i < 100; i++) {
      assertThat(RetryTiming.backoff(2, Duration.ofSeconds(1), real))
          .isBetween(Duration.ofMillis(1000), Duration.ofMillis(3000));
    }
  }

  @Test
  void retryAfter_readsSecondsAndDates_andNothingElse() {
    assertThat(RetryTiming.retryAfter("7", NOW)).contains(Duration.ofSeconds(7));
    assertThat(RetryTiming.retryAfter(" 7 ", NOW)).contains(Duration.ofSeconds(7));
    assertThat(RetryTiming.retryAfter("Sat, 28 Nov 2026 01:00:30 GMT", NOW))
        .contains(Duration.ofSeconds(30));
    assertThat(RetryTiming.retryAfter("Sat, 28 Nov 2026 00:59:00 GMT", NOW))
        .contains(Duration.ZERO);
    assertThat(RetryTiming.retryAfter("-3", NOW)).contains(Duration.ZERO);
    assertThat(RetryTiming.retryAfter("soon", NOW)).isEmpty();
    assertThat(RetryTiming.retryAfter("", NOW)).isEmpty();
    assertThat(RetryTiming.retryAfter(null, NOW)).isEmpty();
  }
}
