package dev.countersign.manifest;

import java.util.regex.Pattern;

/**
 * The signature annotation keys under one domain (default {@code cosign.sigstore.dev}), as
 * k8s-manifest-sigstore and Kyverno's {@code validate.manifests} name them: {@code message}, {@code
 * signature[_N]}, {@code certificate[_N]}, {@code bundle[_N]}, {@code resourceBundleRef}.
 */
public record AnnotationDomain(String domain) {

  // Declared before DEFAULT: static initializers run in order, and DEFAULT's constructor uses it.
  private static final Pattern VALID =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public static final AnnotationDomain DEFAULT = new AnnotationDomain("cosign.sigstore.dev");

  public AnnotationDomain {
    if (domain == null || !VALID.matcher(domain).matches() || domain.length() > 253) {
      throw new IllegalArgumentException(
          "annotation domain \"" + domain + "\" is not a DNS subdomain (e.g. cosign.sigstore.dev)");
    }
  }

  public String message() {
    return domain + "/message";
  }

  public String signature(int index) {
    return indexed("signature", index);
  }

  public String certificate(int index) {
    return indexed("certificate", index);
  }

  public String bundle(int index) {
    return indexed("bundle", index);
  }

  public String resourceBundleRef() {
    return domain + "/resourceBundleRef";
  }

  /**
   * True for every key the signer strips from the message and the verifier ignores: the same
   * prefixes as k8s-manifest-sigstore's {@code AnnotationKeyMask} ({@code message*}, {@code
   * signature*}, {@code certificate*}, {@code bundle*}, {@code resourceBundleRef*}).
   */
  public boolean isSignatureAnnotation(String key) {
    if (!key.startsWith(domain + "/")) {
      return false;
    }
    String name = key.substring(domain.length() + 1);
    return name.startsWith("message")
        || name.startsWith("signature")
        || name.startsWith("certificate")
        || name.startsWith("bundle")
        || name.startsWith("resourceBundleRef");
  }

  private String indexed(String base, int index) {
    return index == 0 ? domain + "/" + base : domain + "/" + base + "_" + index;
  }
}
