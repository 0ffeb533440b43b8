package dev.countersign.signing;

import java.util.function.Consumer;

/**
 * What a keyless signer tells the run while it works. The Action masks tokens and prints warnings
 * through its reporter, which escapes what it prints.
 */
@FunctionalInterface
public interface SignerEvents {

  /** An identity token was obtained; called before the token is used or could be printed. */
  void tokenFetched(String token);

  /**
   * Something the user should know that is not a failure, e.g. that a busy Rekor made every upload
   * wait. Ignored unless given.
   */
  default void warning(String message) {}

  /** Tokens to {@code onToken}, warnings to {@code onWarning}. */
  static SignerEvents of(Consumer<String> onToken, Consumer<String> onWarning) {
    return new SignerEvents() {
      @Override
      public void tokenFetched(String token) {
        onToken.accept(token);
      }

      @Override
      public void warning(String message) {
        onWarning.accept(message);
      }
    };
  }
}
