package dev.countersign.pipeline;

import dev.countersign.support.Records;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * Signs unsigned manifests for a {@link ReconcileJob}. All or nothing: it returns one result per
 * input, or throws (a {@link dev.countersign.support.problems.CountersignException}) and then the
 * job writes, commits and pushes nothing.
 */
public interface SigningStep {

  /**
   * @param inputs the manifests to sign, sorted by source path
   * @return one result per input, matched by {@link Input#targetPath()}
   */
  List<Result> sign(List<Input> inputs);

  /**
   * Moves manifests without signing them (the {@code no_sign} input): the target gets the unsigned
   * bytes, or stays as it is when it already holds them. For trying out the workflow only.
   */
  static SigningStep moveOnly() {
    return inputs ->
        inputs.stream()
            .map(
                in ->
                    in.existingSigned().map(b -> Arrays.equals(b, in.unsignedBytes())).orElse(false)
                        ? (Result) new Unchanged(in.targetPath())
                        : new MovedUnsigned(in.targetPath(), in.unsignedBytes()))
            .toList();
  }

  /**
   * One manifest to sign.
   *
   * @param sourcePath repository-relative path of the unsigned manifest, e.g. {@code
   *     unsigned/a.yaml}
   * @param targetPath where the signed manifest goes, e.g. {@code signed/a.yaml}
   * @param unsignedBytes the manifest as committed
   * @param existingSigned the bytes at {@code targetPath} in the same commit, if any; when they
   *     already carry a valid signature over identical content the step answers {@link Unchanged}
   *     so the file does not churn
   */
  record Input(
      String sourcePath, String targetPath, byte[] unsignedBytes, Optional<byte[]> existingSigned) {
    public Input {
      Records.requireNonNull(Input.class, sourcePath, targetPath, unsignedBytes, existingSigned);
    }
  }

  /** What to do with one input. */
  sealed interface Result {
    String targetPath();
  }

  /** A result that writes {@link #bytes()} to the target path. */
  sealed interface Written extends Result {
    byte[] bytes();
  }

  /** Write the signed manifest {@code bytes} to the target path. */
  record Signed(String targetPath, byte[] bytes) implements Written {
    public Signed {
      Records.requireNonNull(Signed.class, targetPath, bytes);
    }
  }

  /**
   * {@code --no-sign}: write the manifest to the target path as it is, with no signature; nothing
   * about it verifies.
   */
  record MovedUnsigned(String targetPath, byte[] bytes) implements Written {
    public MovedUnsigned {
      Records.requireNonNull(MovedUnsigned.class, targetPath, bytes);
    }
  }

  /** The existing signed file already covers this content; keep it as it is. */
  record Unchanged(String targetPath) implements Result {
    public Unchanged {
      Records.requireNonNull(Unchanged.class, targetPath);
    }
  }
}
