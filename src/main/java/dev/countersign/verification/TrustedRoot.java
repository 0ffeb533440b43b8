package dev.countersign.verification;

import dev.countersign.support.Sha256;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import dev.sigstore.trustroot.SigstoreConfigurationException;
import dev.sigstore.trustroot.SigstoreTrustedRoot;
import dev.sigstore.tuf.SigstoreTufClient;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The Sigstore trust material the strict verifier uses: transparency-log keys (selected by log ID)
 * and Fulcio certificate authorities, each with its validity window. Read from a {@code
 * trusted_root.json}; parsing is sigstore-java's, every check is ours.
 */
public final class TrustedRoot {

  /**
   * A transparency log's signing key.
   *
   * @param logId lowercase hex SHA-256 of the key's DER SubjectPublicKeyInfo (what bundles name)
   */
  public record TransparencyLogKey(
      String logId,
      PublicKey key,
      String baseUrl,
      Instant validFrom,
      Optional<Instant> validUntil) {

    public static TransparencyLogKey of(
        PublicKey key, String baseUrl, Instant validFrom, Optional<Instant> validUntil) {
      return new TransparencyLogKey(logIdOf(key), key, baseUrl, validFrom, validUntil);
    }

    public boolean validAt(Instant time) {
      return !time.isBefore(validFrom) && validUntil.map(end -> !time.isAfter(end)).orElse(true);
    }
  }

  /**
   * A certificate authority: its chain from the issuing certificate up to the self-signed root
   * (last), and when it was allowed to issue.
   */
  public record CertificateAuthority(
      String uri, List<X509Certificate> chain, Instant validFrom, Optional<Instant> validUntil) {

    public CertificateAuthority {
      chain = List.copyOf(chain);
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(
            "a certificate authority needs at least its root certificate");
      }
    }

    public boolean validAt(Instant time) {
      return !time.isBefore(validFrom) && validUntil.map(end -> !time.isAfter(end)).orElse(true);
    }

    public X509Certificate root() {
      return chain.get(chain.size() - 1);
    }
  }

  private final List<TransparencyLogKey> logs;
  private final List<CertificateAuthority> authorities;

  public TrustedRoot(List<TransparencyLogKey> logs, List<CertificateAuthority> authorities) {
    this.logs = List.copyOf(logs);
    this.authorities = List.copyOf(authorities);
  }

  /**
   * Reads a Sigstore {@code trusted_root.json} (media type {@code
   * application/vnd.dev.sigstore.trustedroot+json;version=0.1}).
   *
   * @throws UsageProblem when the file does not exist
   * @throws InputProblem when it is not a usable trusted root
   */
  public static TrustedRoot fromFile(Path file) {
    byte[] json;
    try {
      json = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      throw new UsageProblem(
          "Trusted root " + file + " does not exist",
          ", perhaps you should check the --trusted-root path",
          e);
    } catch (IOException e) {
      throw new InputProblem(
          file,
          0,
          "could not be read: " + e.getMessage(),
          ", perhaps you should check the file's permissions",
          e);
    }
    try {
      return from(SigstoreTrustedRoot.from(new ByteArrayInputStream(json)), file.toString());
    } catch (SigstoreConfigurationException | RuntimeException e) {
      throw new InputProblem(
          file,
          0,
          "is not a Sigstore trusted root: " + e.getMessage(),
          ", perhaps you should pass a trusted_root.json (e.g. from `cosign trusted-root create` or"
              + " the Sigstore TUF repository)",
          e);
    }
  }

  /**
   * The public-good Sigstore trusted root, fetched and verified through TUF (network). Only called
   * when the user did not pass {@code --trusted-root}.
   *
   * @param cacheDirectory where TUF metadata is cached; null for sigstore-java's default ({@code
   *     ~/.sigstore-java/root})
   * @throws RemoteProblem when TUF cannot be reached or fails verification
   */
  public static TrustedRoot fromPublicGoodTuf(Path cacheDirectory) {
    try {
      SigstoreTufClient.Builder builder = SigstoreTufClient.builder().usePublicGoodInstance();
      if (cacheDirectory != null) {
        builder.tufCacheLocation(cacheDirectory);
      }
      SigstoreTufClient client = builder.build();
      client.update();
      return from(client.getSigstoreTrustedRoot(), "Sigstore public-good TUF");
    } catch (IOException | SigstoreConfigurationException | RuntimeException e) {
      throw new RemoteProblem(
          "Could not fetch the Sigstore trusted root through TUF (tuf-repo-cdn.sigstore.dev) while"
              + " preparing keyless verification: "
              + e.getMessage(),
          ", perhaps you should check network access to tuf-repo-cdn.sigstore.dev, or pass"
              + " --trusted-root FILE",
          e);
    }
  }

  private static TrustedRoot from(SigstoreTrustedRoot root, String source) {
    List<TransparencyLogKey> logs = new ArrayList<>();
    for (var log : root.getTLogs()) {
      PublicKey key;
      try {
        key = log.getPublicKey().toJavaPublicKey();
      } catch (GeneralSecurityException | RuntimeException e) {
        throw new IllegalArgumentException(
            "transparency log "
                + log.getBaseUrl()
                + " has an unusable key ("
                + log.getPublicKey().getKeyDetails()
                + ")",
            e);
      }
      var validFor = log.getPublicKey().getValidFor();
      logs.add(
          TransparencyLogKey.of(
              key, String.valueOf(log.getBaseUrl()), validFor.getStart(), validFor.getEnd()));
    }
    List<CertificateAuthority> authorities = new ArrayList<>();
    for (var ca : root.getCAs()) {
      List<X509Certificate> chain =
          ca.getCertPath().getCertificates().stream().map(c -> (X509Certificate) c).toList();
      authorities.add(
          new CertificateAuthority(
              String.valueOf(ca.getUri()),
              chain,
              ca.getValidFor().getStart(),
              ca.getValidFor().getEnd()));
    }
    if (logs.isEmpty()) {
      throw new IllegalArgumentException(source + " names no transparency log");
    }
    return new TrustedRoot(logs, authorities);
  }

  /** The log whose key hashes to {@code logId} (lowercase hex), if any. */
  public Optional<TransparencyLogKey> log(String logId) {
    return logs.stream().filter(l -> l.logId().equalsIgnoreCase(logId)).findFirst();
  }

  public List<TransparencyLogKey> logs() {
    return logs;
  }

  public List<CertificateAuthority> certificateAuthorities() {
    return authorities;
  }

  /** hex(sha256(DER SubjectPublicKeyInfo)), cosign's and Rekor's log ID. */
  public static String logIdOf(PublicKey key) {
    return Sha256.hex(key.getEncoded());
  }
}
