package dev.countersign.init;

/**
 * What the generated workflows put after {@code uses:}. A placeholder until the release process
 * decides between a tagged action repository and a digest-pinned image ({@code
 * docker://ghcr.io/...@sha256:...}); this is the one place to change it.
 */
public final class ActionReference {

  /** Placeholder reference to the countersign action. */
  public static final String USES = "countersign/countersign@v1";

  private ActionReference() {}
}
