package dev.countersign.verification;

import dev.countersign.support.problems.RemoteProblem;
import dev.sigstore.trustroot.SigstoreConfigurationException;
import dev.sigstore.trustroot.SigstoreTrustedRoot;
import dev.sigstore.tuf.SigstoreTufClient;
import java.io.IOException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;

/**
 * The public-good trusted root through sigstore-java's TUF client (network, TUF metadata
 * verification), converted to {@link TrustedRoot}. Kept apart from {@link TrustedRoot} so that runs
 * given a {@code trusted_root.json} never load sigstore-java's protobuf classes.
 */
public final class PublicGoodTrustMaterial {

  private PublicGoodTrustMaterial() {}

  static TrustedRoot trustedRoot(Path cacheDirectory) {
    try {
      SigstoreTufClient.Builder builder = SigstoreTufClient.builder().usePublicGoodInstance();
      if (cacheDirectory != null) {
        builder.tufCacheLocation(cacheDirectory);
      }
      SigstoreTufClient client = builder.build();
      client.update();
      return convert(client.getSigstoreTrustedRoot(), "Sigstore public-good TUF");
    } catch (IOException | SigstoreConfigurationException | RuntimeException e) {
      throw new RemoteProblem(
          "Could not fetch the Sigstore trusted root through TUF (tuf-repo-cdn.sigstore.dev) while"
              + " preparing to check certificates and log entries: "
              + e.getMessage(),
          ", perhaps you should check network access to tuf-repo-cdn.sigstore.dev, or pass"
              + " --trusted-root FILE",
          e);
    }
  }

  /** sigstore-java's trusted root (e.g. from its TUF client) as ours. */
  public static TrustedRoot convert(SigstoreTrustedRoot root, String source) {
    List<TrustedRoot.TransparencyLogKey> logs = new ArrayList<>();
    for (var log : root.getTLogs()) {
      logs.add(logKey(log));
    }
    List<TrustedRoot.TransparencyLogKey> ctLogs = new ArrayList<>();
    for (var log : root.getCTLogs()) {
      ctLogs.add(logKey(log));
    }
    List<TrustedRoot.CertificateAuthority> authorities = new ArrayList<>();
    for (var ca : root.getCAs()) {
      List<X509Certificate> chain =
          ca.getCertPath().getCertificates().stream().map(c -> (X509Certificate) c).toList();
      authorities.add(
          new TrustedRoot.CertificateAuthority(
              String.valueOf(ca.getUri()),
              chain,
              ca.getValidFor().getStart(),
              ca.getValidFor().getEnd()));
    }
    if (logs.isEmpty()) {
      throw new IllegalArgumentException(source + " names no transparency log");
    }
    return new TrustedRoot(logs, authorities, ctLogs);
  }

  private static TrustedRoot.TransparencyLogKey logKey(dev.sigstore.trustroot.TransparencyLog log) {
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
    return TrustedRoot.TransparencyLogKey.of(
        key, String.valueOf(log.getBaseUrl()), validFor.getStart(), validFor.getEnd());
  }
}
