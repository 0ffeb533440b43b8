package dev.countersign.support;

import java.util.function.Supplier;

/** A supplier that asks its factory once, on first use, and then answers the same value. */
public final class Memoized<T> implements Supplier<T> {

  private final Supplier<T> factory;
  private T value;

  private Memoized(Supplier<T> factory) {
    this.factory = factory;
  }

  public static <T> Supplier<T> of(Supplier<T> factory) {
    return new Memoized<>(factory);
  }

  @Override
  public synchronized T get() {
    if (value == null) {
      value = factory.get();
    }
    return value;
  }
}
