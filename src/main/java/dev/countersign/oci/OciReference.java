package dev.countersign.oci;

import dev.countersign.support.problems.UsageProblem;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An artifact reference {@code REGISTRY/REPOSITORY[:TAG][@sha256:HEX]}, checked against the OCI
 * distribution grammar. The registry part is mandatory (there is no implicit Docker Hub): a
 * reference always names the host its bytes go to.
 *
 * @param registry {@code host[:port]} as written (lowercase)
 * @param repository path components, e.g. {@code team/app-manifests}
 */
public record OciReference(
    String registry, String repository, Optional<String> tag, Optional<String> digest) {

  private static final String COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
  private static final Pattern REPOSITORY = Pattern.compile(COMPONENT + "(?:/" + COMPONENT + ")*");
  private static final Pattern TAG = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}");
  private static final String FORMAT_HINT =
      "write REGISTRY/REPOSITORY[:TAG], or REGISTRY/REPOSITORY@sha256:DIGEST where a digest is"
          + " asked for";
  public static final Pattern DIGEST = Pattern.compile("sha256:[a-f0-9]{64}");
  private static final Pattern REGISTRY =
      Pattern.compile(
          "(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*|\\[[0-9a-f:]+\\])(?::([0-9]{1,5}))?");

  public OciReference {
    tag.ifPresent(
        t -> require(TAG.matcher(t).matches(), "tag \"" + t + "\" is not a valid OCI tag"));
    digest.ifPresent(
        d ->
            require(
                DIGEST.matcher(d).matches(),
                "digest \"" + d + "\" is not sha256:<64 lowercase hex>"));
  }

  /**
   * Parses {@code text}.
   *
   * @param what the option it came from, for the error message
   * @throws UsageProblem when it is not a valid reference with a registry
   */
  public static OciReference parse(String text, String what) {
    String s = text.strip();
    Optional<String> digest = Optional.empty();
    int at = s.indexOf('@');
    if (at >= 0) {
      digest = Optional.of(s.substring(at + 1));
      s = s.substring(0, at);
    }
    int slash = s.indexOf('/');
    if (slash <= 0) {
      throw invalid(
          text,
          what,
          "it names no registry (write REGISTRY/REPOSITORY, e.g. ghcr.io/org/manifests)");
    }
    String registry = s.substring(0, slash).toLowerCase(Locale.ROOT);
    String rest = s.substring(slash + 1);
    Optional<String> tag = Optional.empty();
    int colon = rest.lastIndexOf(':');
    if (colon >= 0) {
      tag = Optional.of(rest.substring(colon + 1));
      rest = rest.substring(0, colon);
    }
    Matcher registryMatch = REGISTRY.matcher(registry);
    if (!registryMatch.matches()) {
      throw invalid(text, what, "\"" + registry + "\" is not a registry host[:port]");
    }
    if (registryMatch.group(1) != null && Integer.parseInt(registryMatch.group(1)) > 65535) {
      throw invalid(text, what, "port " + registryMatch.group(1) + " is out of range");
    }
    if (!REPOSITORY.matcher(rest).matches() || rest.length() > 255) {
      throw invalid(
          text,
          what,
          "\""
              + rest
              + "\" is not a repository name (lowercase letters, digits, . _ - separated by /)");
    }
    try {
      return new OciReference(registry, rest, tag, digest);
    } catch (UsageProblem e) {
      throw invalid(text, what, e.getMessage());
    }
  }

  /** The same repository at {@code digest}, without a tag. */
  public OciReference withDigest(String newDigest) {
    return new OciReference(registry, repository, Optional.empty(), Optional.of(newDigest));
  }

  /** The same repository at {@code newTag}. */
  public OciReference withTag(String newTag) {
    return new OciReference(registry, repository, Optional.of(newTag), Optional.empty());
  }

  /** {@code registry/repository}: what cosign writes as the payload's docker-reference. */
  public String name() {
    return registry + "/" + repository;
  }

  /** The host without the port (brackets removed for IPv6). */
  public String host() {
    String r = registry;
    if (r.startsWith("[")) {
      return r.substring(1, r.indexOf(']'));
    }
    int colon = r.indexOf(':');
    return colon < 0 ? r : r.substring(0, colon);
  }

  /**
   * True when the registry is on this machine's loopback interface ({@code localhost}, {@code
   * 127.0.0.0/8}, {@code ::1}): the only registries plain HTTP is allowed for. Decided from the
   * text, without a DNS lookup.
   */
  public boolean isLoopback() {
    return isLoopbackHost(host());
  }

  /**
   * The loopback rule of {@link #isLoopback()} for a bare host (no port, no brackets), e.g. one a
   * registry names in a token realm or a redirect: the one place that decides what "this machine"
   * is.
   */
  public static boolean isLoopbackHost(String host) {
    if (host.equals("localhost")) {
      return true;
    }
    if (!host.matches("[0-9.]+") && !host.matches("[0-9a-f]*:[0-9a-f:]*")) {
      return false;
    }
    try {
      return InetAddress.getByName(host).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return name() + tag.map(t -> ":" + t).orElse("") + digest.map(d -> "@" + d).orElse("");
  }

  private static void require(boolean ok, String reason) {
    if (!ok) {
      throw new UsageProblem(reason, FORMAT_HINT);
    }
  }

  private static UsageProblem invalid(String text, String what, String reason) {
    return new UsageProblem(
        "Invalid " + what + " \"" + text.strip() + "\": " + reason, FORMAT_HINT);
  }
}
