package dev.countersign.signing;

import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;

/**
 * Where keyless signing gets its trust material and its identity token.
 *
 * @param trustedRoot {@code --trusted-root FILE}; with {@code signingConfig}, replaces the Sigstore
 *     public-good trust material (fetched with TUF over the network)
 * @param signingConfig {@code --signing-config FILE}: the Fulcio, Rekor and OIDC URLs to use; given
 *     together with {@code trustedRoot} or not at all
 * @param identityToken {@code --identity-token}: an OIDC token to use instead of {@code
 *     SIGSTORE_ID_TOKEN} or the ambient GitHub Actions token
 */
public record KeylessOptions(
    Optional<Path> trustedRoot, Optional<Path> signingConfig, Optional<String> identityToken) {

  public KeylessOptions {
    Objects.requireNonNull(trustedRoot, "trustedRoot");
    Objects.requireNonNull(signingConfig, "signingConfig");
    Objects.requireNonNull(identityToken, "identityToken");
    identityToken = identityToken.filter(token -> !token.isBlank()).map(String::trim);
  }

  /** The Sigstore public-good instance, with the token taken from the environment. */
  public static KeylessOptions publicGood() {
    return new KeylessOptions(Optional.empty(), Optional.empty(), Optional.empty());
  }

  /** Custom infrastructure (a private Sigstore, or the loopback test stack). */
  public static KeylessOptions custom(Path trustedRoot, Path signingConfig) {
    return new KeylessOptions(
        Optional.of(trustedRoot), Optional.of(signingConfig), Optional.empty());
  }

  public KeylessOptions withIdentityToken(String token) {
    return new KeylessOptions(trustedRoot, signingConfig, Optional.ofNullable(token));
  }

  /** Never prints the token. */
  @Override
  public String toString() {
    return "KeylessOptions[trustedRoot="
        + trustedRoot.map(Path::toString).orElse("public-good")
        + ", signingConfig="
        + signingConfig.map(Path::toString).orElse("public-good")
        + ", identityToken="
        + (identityToken.isPresent() ? "(given)" : "(from environment)")
        + "]";
  }
}
