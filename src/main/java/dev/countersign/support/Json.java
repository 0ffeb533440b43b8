package dev.countersign.support;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The one plain Jackson mapper of the process (default configuration), for reading and writing JSON
 * trees. A mapper is thread-safe once configured, and this one is never configured.
 *
 * <p>Made on first use, not when a class that may need it is loaded: Jackson's first mapper costs
 * tens of milliseconds at start-up, and a keyless run wants that work on whichever thread gets
 * there first while the identity token request is already in flight (docs/performance.md).
 */
public final class Json {

  private Json() {}

  /** The shared mapper; do not configure it (make a mapper of your own for that). */
  public static ObjectMapper mapper() {
    return Holder.MAPPER;
  }

  private static final class Holder {
    static final ObjectMapper MAPPER = new ObjectMapper();
  }
}
