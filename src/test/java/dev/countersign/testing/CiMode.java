package dev.countersign.testing;

/**
 * Whether this test run is CI's, where a test that lacks what it needs must fail rather than skip.
 * Surefire passes the CI environment variable as the system property {@code countersign.ci}
 * (pom.xml), so test code needs no System.getenv either.
 */
public final class CiMode {

  private CiMode() {}

  public static boolean active() {
    return "true".equalsIgnoreCase(System.getProperty("countersign.ci", "").trim());
  }
}
