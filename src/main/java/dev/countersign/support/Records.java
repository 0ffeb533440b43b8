package dev.countersign.support;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;

/** The one null check for records whose components are all required. */
public final class Records {

  /** Component names by record type, read once per type. */
  private static final ClassValue<String[]> NAMES =
      new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
          return Arrays.stream(type.getRecordComponents())
              .map(RecordComponent::getName)
              .toArray(String[]::new);
        }
      };

  private Records() {}

  /**
   * Fails with a {@link NullPointerException} naming the first null component. Call it from the
   * compact constructor with every component of {@code type}, in declaration order (primitives
   * included), after normalising any component that may be given as null (a default for it).
   *
   * @throws IllegalArgumentException when {@code components} are not as many as the record has
   */
  public static void requireNonNull(Class<? extends Record> type, Object... components) {
    String[] names = NAMES.get(type);
    if (components.length != names.length) {
      throw new IllegalArgumentException(
          type.getSimpleName()
              + " has "
              + names.length
              + " components, but "
              + components.length
              + " were checked");
    }
    for (int i = 0; i < components.length; i++) {
      if (components[i] == null) {
        throw new NullPointerException(names[i]);
      }
    }
  }
}
