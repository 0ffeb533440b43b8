package dev.countersign.promotion;

import dev.countersign.support.Records;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * One file a promotion adds, changes or removes, with the signature facts a reviewer checks.
 *
 * @param path repository-relative, with {@code /} separators ({@code deploy/signed/app.yaml})
 * @param messageDigest {@code sha256:<64 lowercase hex>} of the signed message; empty for removals
 * @param signer certificate identity (or key fingerprint) that signed it; empty for removals
 * @param rekorLogIndex the transparency-log entry, when the signature was logged
 */
public record FileChange(
    String path,
    Change change,
    Optional<String> messageDigest,
    Optional<String> signer,
    OptionalLong rekorLogIndex) {

  private static final Pattern SHA256 = Pattern.compile("sha256:[0-9a-f]{64}");

  /** What happens to the file on the base branch when the promotion is merged. */
  public enum Change {
    ADDED,
    CHANGED,
    REMOVED;

    /** The word shown in the pull request body. */
    public String word() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public FileChange {
    Records.requireNonNull(FileChange.class, path, change, messageDigest, signer, rekorLogIndex);
    if (path.isBlank() || path.contains("\\") || path.startsWith("/")) {
      throw new IllegalArgumentException(
          "path must be repository-relative with / separators: " + path);
    }
    messageDigest.ifPresent(
        d -> {
          if (!SHA256.matcher(d).matches()) {
            throw new IllegalArgumentException(
                "message digest must be sha256:<64 lowercase hex>: " + d);
          }
        });
    if (change != Change.REMOVED && (messageDigest.isEmpty() || signer.isEmpty())) {
      // An added or changed file is only promoted once signed, so both facts must be known.
      throw new IllegalArgumentException(
          change.word() + " file needs a digest and signer: " + path);
    }
  }

  public static FileChange added(String path, String messageDigest, String signer, long logIndex) {
    return signed(path, Change.ADDED, messageDigest, signer, logIndex);
  }

  public static FileChange changed(
      String path, String messageDigest, String signer, long logIndex) {
    return signed(path, Change.CHANGED, messageDigest, signer, logIndex);
  }

  public static FileChange removed(String path) {
    return new FileChange(
        path, Change.REMOVED, Optional.empty(), Optional.empty(), OptionalLong.empty());
  }

  private static FileChange signed(
      String path, Change change, String messageDigest, String signer, long logIndex) {
    return new FileChange(
        path, change, Optional.of(messageDigest), Optional.of(signer), OptionalLong.of(logIndex));
  }
}
