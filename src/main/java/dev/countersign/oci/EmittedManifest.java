package dev.countersign.oci;

import dev.countersign.support.AtomicWrites;
import dev.countersign.support.problems.EnvironmentProblem;
import dev.countersign.support.problems.UsageProblem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The file {@code publish --emit-manifest} writes into the GitOps repository: a Flux {@code
 * OCIRepository} ({@code source.toolkit.fluxcd.io/v1}) pinned by digest whose {@code verify} names
 * the signer, or with {@code --emit-kind reference} a plain YAML reference.
 *
 * <p>Byte-stable: a fixed key order, LF line ends, one trailing newline, nothing from the clock;
 * the first line is {@code # countersign publish — digest=sha256:… signer=…}. The same publish
 * gives the same bytes, so re-running leaves the repository unchanged.
 */
public final class EmittedManifest {

  /** What to write. */
  public enum Kind {
    /** A Flux OCIRepository. */
    FLUX,
    /** A plain YAML reference (artifact, digest, signer) for other tools. */
    REFERENCE
  }

  /**
   * @param name {@code metadata.name}
   * @param namespace {@code metadata.namespace}
   * @param interval {@code spec.interval}
   * @param keySecret for keyed signatures: the Secret holding the cosign public key ({@code
   *     verify.secretRef})
   */
  public record Settings(
      Kind kind, String name, String namespace, String interval, String keySecret) {}

  /**
   * The signer as the manifest states it.
   *
   * @param subject certificate SAN, or key fingerprint for keyed signatures
   * @param issuer OIDC issuer (keyless only)
   */
  public record Signer(String subject, Optional<String> issuer) {}

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern PLAIN =
      Pattern.compile("[A-Za-z0-9][A-Za-z0-9._/@+-]*(:[A-Za-z0-9._/@+-]+)*");
  private static final Pattern INTERVAL = Pattern.compile("([0-9]+(\\.[0-9]+)?(ms|s|m|h))+");

  private EmittedManifest() {}

  /** A DNS-1123 label from the repository's last path component (Flux object names). */
  public static String defaultName(OciReference reference) {
    String last =
        reference
            .repository()
            .substring(reference.repository().lastIndexOf('/') + 1)
            .toLowerCase(Locale.ROOT);
    String name = last.replaceAll("[^a-z0-9-]+", "-").replaceAll("^-+|-+$", "");
    if (name.length() > 63) {
      name = name.substring(0, 63).replaceAll("-+$", "");
    }
    return name.isEmpty() ? "manifests" : name;
  }

  /**
   * @throws UsageProblem when a name or the interval is not what Kubernetes and Flux accept
   */
  public static void check(Settings settings) {
    for (String[] field :
        new String[][] {
          {"--emit-name", settings.name()},
          {"--emit-namespace", settings.namespace()},
          {"--emit-key-secret", settings.keySecret()}
        }) {
      if (field[1].length() > 63 || !DNS_LABEL.matcher(field[1]).matches()) {
        throw new UsageProblem(
            "Invalid " + field[0] + " \"" + field[1] + "\": not a DNS-1123 label",
            "use lowercase letters, digits and '-', at most 63 characters");
      }
    }
    if (!INTERVAL.matcher(settings.interval()).matches()) {
      throw new UsageProblem(
          "Invalid --emit-interval \"" + settings.interval() + "\"",
          "write a Go duration such as 10m or 1h30m");
    }
  }

  /**
   * Refuses, before anything is pushed, what {@link #write} would refuse or overwrite.
   *
   * @throws dev.countersign.support.problems.InputProblem when the file, or inside the checkout
   *     {@code tree} a directory on the way to it, is a symbolic link
   * @throws UsageProblem when {@code file} exists and {@code force} is false
   */
  public static void checkWritable(Path tree, Path file, boolean force) {
    AtomicWrites.checkFile(tree, file);
    if (!force && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new UsageProblem(
          "Refusing to overwrite " + file + " (--emit-manifest)",
          "pass --force to replace it, or choose another file");
    }
    if (Files.isDirectory(file, LinkOption.NOFOLLOW_LINKS)) {
      throw new UsageProblem(file + " is a directory (--emit-manifest)", "name a file");
    }
  }

  /** The manifest text. */
  public static String render(
      Settings settings, OciReference pinned, boolean plainHttp, Signer signer) {
    String digest = pinned.digest().orElseThrow();
    StringBuilder y = new StringBuilder();
    y.append("# countersign publish \u2014 digest=")
        .append(digest)
        .append(" signer=")
        .append(comment(signer.subject()))
        .append('\n');
    if (settings.kind() == Kind.REFERENCE) {
      y.append("artifact: ").append(scalar(pinned.toString())).append('\n');
      y.append("url: ").append(scalar("oci://" + pinned.name())).append('\n');
      y.append("digest: ").append(scalar(digest)).append('\n');
      y.append("signature:\n");
      y.append("  format: cosign\n");
      y.append("  tag: ").append(scalar(CosignSignatureFormat.signatureTag(digest))).append('\n');
      if (signer.issuer().isPresent()) {
        y.append("  identity: ").append(scalar(signer.subject())).append('\n');
        y.append("  issuer: ").append(scalar(signer.issuer().get())).append('\n');
      } else {
        y.append("  key: ").append(scalar(signer.subject())).append('\n');
      }
      return y.toString();
    }
    y.append("apiVersion: source.toolkit.fluxcd.io/v1\n");
    y.append("kind: OCIRepository\n");
    y.append("metadata:\n");
    y.append("  name: ").append(settings.name()).append('\n');
    y.append("  namespace: ").append(settings.namespace()).append('\n');
    y.append("spec:\n");
    y.append("  interval: ").append(settings.interval()).append('\n');
    y.append("  url: ").append(scalar("oci://" + pinned.name())).append('\n');
    y.append("  ref:\n");
    y.append("    digest: ").append(scalar(digest)).append('\n');
    if (plainHttp) {
      y.append("  insecure: true\n");
    }
    y.append("  verify:\n");
    y.append("    provider: cosign\n");
    if (signer.issuer().isPresent()) {
      y.append("    matchOIDCIdentity:\n");
      y.append("      - issuer: ").append(scalar(exactRegex(signer.issuer().get()))).append('\n');
      y.append("        subject: ").append(scalar(exactRegex(signer.subject()))).append('\n');
    } else {
      y.append("    secretRef:\n");
      y.append("      name: ").append(settings.keySecret()).append('\n');
    }
    return y.toString();
  }

  /**
   * Writes {@code text} to {@code file} atomically, never through a symbolic link (from {@code
   * tree} down when the file is in that checkout; see {@link AtomicWrites#writeFile}).
   */
  public static void write(Path tree, Path file, String text) {
    try {
      AtomicWrites.writeFile(tree, file, text.getBytes(StandardCharsets.UTF_8));
    } catch (EnvironmentProblem e) {
      throw new EnvironmentProblem(
          "Could not write " + file + " (--emit-manifest): " + e.getMessage(),
          "perhaps you should check the directory exists and is writable; the artifact is published"
              + " and signed, so re-running only writes the file",
          e);
    }
  }

  /**
   * A Go (RE2) regular expression matching exactly {@code value}: Flux's {@code matchOIDCIdentity}
   * fields are regular expressions, so the literal is escaped (as Go's {@code regexp.QuoteMeta})
   * and anchored.
   */
  static String exactRegex(String value) {
    StringBuilder out = new StringBuilder("^");
    for (char c : value.toCharArray()) {
      if ("\\.+*?()|[]{}^$".indexOf(c) >= 0) {
        out.append('\\');
      }
      out.append(c);
    }
    return out.append('$').toString();
  }

  /** A YAML scalar: plain when unambiguous, else a double-quoted (JSON-escaped) string. */
  static String scalar(String value) {
    if (PLAIN.matcher(value).matches()
        && !value.matches("(?i)y|n|yes|no|true|false|on|off|null|~|[-+0-9.eE_:]+")) {
      return value;
    }
    StringBuilder out = new StringBuilder("\"");
    for (char c : value.toCharArray()) {
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f || c == '\u2028' || c == '\u2029' || c == '\u0085') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"').toString();
  }

  /** A value inside the header comment: one line, printable. */
  private static String comment(String value) {
    StringBuilder out = new StringBuilder();
    value
        .codePoints()
        .forEach(
            c ->
                out.appendCodePoint(
                    Character.isISOControl(c) || c == 0x2028 || c == 0x2029 ? '?' : c));
    return out.toString();
  }
}
