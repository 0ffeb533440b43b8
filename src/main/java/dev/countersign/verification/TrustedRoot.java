package dev.countersign.verification;

import com.fasterxml.jackson.databind.JsonNode;
import dev.countersign.support.NamedFiles;
import dev.countersign.support.Sha256;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.RemoteProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.ByteArrayInputStream;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.X509EncodedKeySpec;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;

/**
 * The Sigstore trust material the strict verifier uses: transparency-log keys (selected by log ID)
 * and Fulcio certificate authorities, each with its validity window. Read from a {@code
 * trusted_root.json} with Jackson (sigstore-java's protobuf reader costs ~0.3 s of start-up; it is
 * used only for the public-good TUF download, see {@link PublicGoodTrustMaterial}).
 */
public final class TrustedRoot {

  /** Far above any real trusted root (the public-good one is tens of kilobytes). */
  private static final long MAX_FILE_BYTES = 16L * 1024 * 1024;

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
  private final List<TransparencyLogKey> certificateTransparencyLogs;

  public TrustedRoot(List<TransparencyLogKey> logs, List<CertificateAuthority> authorities) {
    this(logs, authorities, List.of());
  }

  /**
   * @param certificateTransparencyLogs the CT logs whose SCTs Fulcio embeds in its certificates
   */
  public TrustedRoot(
      List<TransparencyLogKey> logs,
      List<CertificateAuthority> authorities,
      List<TransparencyLogKey> certificateTransparencyLogs) {
    this.logs = List.copyOf(logs);
    this.authorities = List.copyOf(authorities);
    this.certificateTransparencyLogs = List.copyOf(certificateTransparencyLogs);
  }

  /**
   * Reads a Sigstore {@code trusted_root.json} (media type {@code
   * application/vnd.dev.sigstore.trustedroot+json;version=0.1}).
   *
   * @throws UsageProblem when the file does not exist
   * @throws InputProblem when it is not a usable trusted root
   */
  public static TrustedRoot fromFile(Path file) {
    byte[] json =
        NamedFiles.read(
            file,
            "trusted root",
            MAX_FILE_BYTES,
            "perhaps you should check the --trusted-root path");
    try {
      return fromJson(json, file.toString());
    } catch (IllegalArgumentException e) {
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
   * The public-good Sigstore trusted root, fetched and verified through TUF (network, with
   * sigstore-java's TUF client). Only called when the user did not pass {@code --trusted-root}.
   *
   * @param cacheDirectory where TUF metadata is cached; null for sigstore-java's default ({@code
   *     ~/.sigstore-java/root})
   * @throws RemoteProblem when TUF cannot be reached or fails verification
   */
  public static TrustedRoot fromPublicGoodTuf(Path cacheDirectory) {
    return PublicGoodTrustMaterial.trustedRoot(cacheDirectory);
  }

  /**
   * Parses {@code trusted_root.json} (the protobuf-specs JSON mapping) with Jackson: {@code tlogs},
   * {@code ctlogs} (DER SubjectPublicKeyInfo keys) and {@code certificateAuthorities} (DER chains),
   * each with {@code validFor}. Timestamp authorities are not read: nothing here uses them.
   *
   * @param source names the material in messages
   * @throws IllegalArgumentException with the reason when it is not a usable trusted root
   */
  public static TrustedRoot fromJson(byte[] json, String source) {
    JsonNode root = TrustMaterialJson.object(json, "application/vnd.dev.sigstore.trustedroot");
    List<TransparencyLogKey> logs = logKeys(root.path("tlogs"), "tlogs");
    List<TransparencyLogKey> ctLogs = logKeys(root.path("ctlogs"), "ctlogs");
    List<CertificateAuthority> authorities = new ArrayList<>();
    int i = 0;
    for (JsonNode ca : root.path("certificateAuthorities")) {
      String where = "certificateAuthorities[" + i++ + "]";
      List<X509Certificate> chain = new ArrayList<>();
      for (JsonNode certificate : ca.path("certChain").path("certificates")) {
        chain.add(certificate(bytes(certificate.path("rawBytes"), where), where));
      }
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(where + " has no certificate");
      }
      authorities.add(
          new CertificateAuthority(
              ca.path("uri").asText(""),
              chain,
              instant(ca.path("validFor").path("start"), where).orElse(Instant.MIN),
              instant(ca.path("validFor").path("end"), where)));
    }
    if (logs.isEmpty()) {
      throw new IllegalArgumentException(source + " names no transparency log");
    }
    return new TrustedRoot(logs, authorities, ctLogs);
  }

  private static List<TransparencyLogKey> logKeys(JsonNode array, String field) {
    List<TransparencyLogKey> keys = new ArrayList<>();
    int i = 0;
    for (JsonNode log : array) {
      String where = field + "[" + i++ + "]";
      JsonNode publicKey = log.path("publicKey");
      String details = publicKey.path("keyDetails").asText("");
      keys.add(
          TransparencyLogKey.of(
              publicKey(bytes(publicKey.path("rawBytes"), where), details, where),
              log.path("baseUrl").asText(""),
              instant(publicKey.path("validFor").path("start"), where).orElse(Instant.MIN),
              instant(publicKey.path("validFor").path("end"), where)));
    }
    return keys;
  }

  private static byte[] bytes(JsonNode base64, String where) {
    if (!base64.isTextual()) {
      throw new IllegalArgumentException(where + " has no rawBytes");
    }
    try {
      return Base64.getDecoder().decode(base64.asText());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(where + ".rawBytes is not base64", e);
    }
  }

  /** A DER SubjectPublicKeyInfo, of the algorithm keyDetails names (EC, RSA or Ed25519). */
  private static PublicKey publicKey(byte[] der, String keyDetails, String where) {
    String algorithm =
        keyDetails.contains("ECDSA")
            ? "EC"
            : keyDetails.contains("RSA") ? "RSA" : keyDetails.contains("ED25519") ? "Ed25519" : "";
    if (algorithm.isEmpty()) {
      throw new IllegalArgumentException(
          where + " has a key of unsupported type \"" + keyDetails + "\"");
    }
    try {
      return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException(
          where + " has an unusable key (" + keyDetails + "): " + e.getMessage(), e);
    }
  }

  private static X509Certificate certificate(byte[] der, String where) {
    try {
      return (X509Certificate)
          CertificateFactory.getInstance("X.509")
              .generateCertificate(new ByteArrayInputStream(der));
    } catch (CertificateException e) {
      throw new IllegalArgumentException(
          where + " has an unreadable certificate: " + e.getMessage(), e);
    }
  }

  private static Optional<Instant> instant(JsonNode text, String where) {
    return TrustMaterialJson.time(text, where + ".validFor");
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

  public List<TransparencyLogKey> certificateTransparencyLogs() {
    return certificateTransparencyLogs;
  }

  /** The certificate transparency log whose key hashes to {@code logId} (lowercase hex), if any. */
  public Optional<TransparencyLogKey> certificateTransparencyLog(String logId) {
    return certificateTransparencyLogs.stream()
        .filter(l -> l.logId().equalsIgnoreCase(logId))
        .findFirst();
  }

  /** hex(sha256(DER SubjectPublicKeyInfo)), cosign's and Rekor's log ID. */
  public static String logIdOf(PublicKey key) {
    return Sha256.hex(key.getEncoded());
  }
}
