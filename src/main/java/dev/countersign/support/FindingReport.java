package dev.countersign.support;

import java.util.List;

/**
 * A report whose findings are each an error or a warning; it passes when no finding is an error.
 *
 * @param <F> the finding type
 */
public interface FindingReport<F extends FindingReport.Finding> {

  /** One finding: an error fails the report, anything else is a warning. */
  interface Finding {
    boolean isError();
  }

  List<F> findings();

  default boolean passed() {
    return errors() == 0;
  }

  default long errors() {
    return findings().stream().filter(Finding::isError).count();
  }

  default long warnings() {
    return findings().size() - errors();
  }
}
