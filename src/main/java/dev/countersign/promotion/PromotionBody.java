package dev.countersign.promotion;

import dev.countersign.support.MarkdownText;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;

/**
 * Renders the body of a promotion pull request: a hidden marker, a table of the promoted files with
 * their signature facts, and the command that checks them locally.
 *
 * <p>The output depends only on its arguments (no clock, no locale, {@code \n} line ends), so a
 * re-run over the same plan produces the same bytes and the update it makes is a no-op.
 */
public final class PromotionBody {

  /**
   * Hidden HTML comment at the top of every body we write; how later runs (and people) recognise a
   * promotion pull request regardless of its title.
   */
  public static final String MARKER = "<!-- countersign:promotion -->";

  /** Issuer of the certificates GitHub Actions workflows sign with. */
  public static final String GITHUB_ACTIONS_ISSUER = "https://token.actions.githubusercontent.com";

  private PromotionBody() {}

  /** What the pull request does, in the first sentence of its body. */
  public enum Purpose {
    /** {@code countersign promote}: copies verified signed manifests to another directory. */
    PROMOTE("promotes signed manifests", "Nothing to promote"),
    /** The merged-PR pipeline and the scheduled refresh: newly signed manifests. */
    SIGN("adds newly signed manifests", "Nothing to sign");

    private final String does;
    private final String nothing;

    Purpose(String does, String nothing) {
      this.does = does;
      this.nothing = nothing;
    }
  }

  /** True when {@code body} was written by {@link #render}. */
  public static boolean isPromotionBody(String body) {
    return body != null && body.startsWith(MARKER);
  }

  /**
   * @param plan the files to list
   * @param verifyDirectory repository-relative directory the verify command should check ({@code
   *     deploy/signed})
   */
  public static String render(PromotionPlan plan, String verifyDirectory) {
    return render(plan, verifyDirectory, Purpose.PROMOTE, "");
  }

  /**
   * @param purpose the first sentence: promoting, or signing
   * @param preamble the user's own text (the {@code body} input), placed after the marker and
   *     before the generated table, which always stays; blank for none
   */
  public static String render(
      PromotionPlan plan, String verifyDirectory, Purpose purpose, String preamble) {
    StringBuilder out = new StringBuilder();
    out.append(MARKER).append('\n');
    if (preamble != null && !preamble.isBlank()) {
      out.append(preamble.strip().replace("\r\n", "\n")).append("\n\n");
    }
    if (plan.isEmpty()) {
      return out.append(purpose.nothing)
          .append(": no signed manifest differs from the base branch.\n")
          .toString();
    }
    out.append("This pull request ")
        .append(purpose.does)
        .append(" (")
        .append(summary(plan))
        .append(").\n\n");
    out.append("| File | Change | Message digest | Signer | Rekor log index |\n");
    out.append("| --- | --- | --- | --- | --- |\n");
    for (FileChange change : plan.changes()) {
      out.append("| ")
          .append(MarkdownText.code(change.path()))
          .append(" | ")
          .append(change.change().word())
          .append(" | ")
          .append(change.messageDigest().map(MarkdownText::code).orElse("-"))
          .append(" | ")
          .append(change.signer().map(MarkdownText::code).orElse("-"))
          .append(" | ")
          .append(
              change.rekorLogIndex().isPresent()
                  ? Long.toString(change.rekorLogIndex().getAsLong())
                  : "-")
          .append(" |\n");
    }
    SortedSet<String> signers = plan.signers();
    if (!signers.isEmpty()) {
      out.append('\n');
      out.append(
          signers.size() == 1
              ? "To verify the signatures locally before merging:\n"
              : "The files were signed by different identities; verify each with:\n");
      out.append("\n```sh\n");
      for (String signer : signers) {
        if (isKey(signer)) {
          // Keyed signatures name a key fingerprint, not an identity: verify with the public key.
          out.append("countersign verify ")
              .append(shellQuote(verifyDirectory))
              .append(" --key cosign.pub  # the public key ")
              .append(signer)
              .append('\n');
          continue;
        }
        out.append("countersign verify ")
            .append(shellQuote(verifyDirectory))
            .append(" --certificate-identity ")
            .append(shellQuote(signer))
            .append(" --certificate-oidc-issuer ")
            .append(GITHUB_ACTIONS_ISSUER)
            .append('\n');
      }
      out.append("```\n");
    }
    return out.toString();
  }

  /**
   * Key fingerprints ({@code sha256:...}) and unknown keys, as opposed to certificate identities.
   */
  private static boolean isKey(String signer) {
    return signer.startsWith("sha256:") || signer.equals(SignatureFacts.UNKNOWN_KEY);
  }

  private static String summary(PromotionPlan plan) {
    Map<FileChange.Change, Integer> counts = new TreeMap<>();
    plan.changes().forEach(c -> counts.merge(c.change(), 1, Integer::sum));
    StringBuilder text = new StringBuilder();
    counts.forEach(
        (change, count) ->
            text.append(text.length() == 0 ? "" : ", ")
                .append(count)
                .append(' ')
                .append(change.word()));
    return text.toString();
  }

  /** POSIX single quotes: nothing inside is interpreted, a quote is closed, escaped, reopened. */
  private static String shellQuote(String value) {
    if (value.matches("[A-Za-z0-9_./:@=-]+")) {
      return value;
    }
    return "'" + value.replace("'", "'\\''") + "'";
  }
}
