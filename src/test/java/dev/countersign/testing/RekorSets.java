package dev.countersign.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.countersign.manifest.RekorBundle;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.util.Base64;
import java.util.HexFormat;

/**
 * Checks a Rekor SignedEntryTimestamp the way cosign (and so Kyverno) does, independently of
 * sigstore-java: ECDSA-SHA256 by the log key named by {@code logID}, over the RFC 8785 JSON {@code
 * {"body","integratedTime","logID","logIndex"}}.
 */
public final class RekorSets {

  private static final ObjectMapper JSON = new ObjectMapper();

  private RekorSets() {}

  /** True when the SET verifies with the tlog key of {@code trustedRootJson} whose id is logID. */
  public static boolean verifies(RekorBundle bundle, Path trustedRootJson) {
    try {
      PublicKey key = tlogKey(trustedRootJson, bundle.logId());
      Signature ecdsa = Signature.getInstance("SHA256withECDSA");
      ecdsa.initVerify(key);
      ecdsa.update(canonicalPayload(bundle).getBytes(StandardCharsets.UTF_8));
      return ecdsa.verify(Base64.getDecoder().decode(bundle.signedEntryTimestamp()));
    } catch (GeneralSecurityException | IOException | IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * The JCS form: keys in code-point order (body, integratedTime, logID, logIndex), no whitespace,
   * integers as plain numbers. Strings are base64/hex, so JSON escaping is the only other rule, and
   * Jackson's string quoting matches JCS for them.
   */
  static String canonicalPayload(RekorBundle bundle) throws IOException {
    return "{\"body\":"
        + JSON.writeValueAsString(bundle.body())
        + ",\"integratedTime\":"
        + bundle.integratedTime()
        + ",\"logID\":"
        + JSON.writeValueAsString(bundle.logId())
        + ",\"logIndex\":"
        + bundle.logIndex()
        + "}";
  }

  private static PublicKey tlogKey(Path trustedRootJson, String logIdHex)
      throws GeneralSecurityException {
    JsonNode root;
    try {
      root = JSON.readTree(trustedRootJson.toFile());
    } catch (IOException e) {
      throw new GeneralSecurityException("cannot read " + trustedRootJson, e);
    }
    for (JsonNode tlog : root.path("tlogs")) {
      String keyId =
          HexFormat.of()
              .formatHex(Base64.getDecoder().decode(tlog.path("logId").path("keyId").asText()));
      if (keyId.equalsIgnoreCase(logIdHex)) {
        byte[] spki = Base64.getDecoder().decode(tlog.path("publicKey").path("rawBytes").asText());
        return KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(spki));
      }
    }
    throw new GeneralSecurityException("no tlog with logID " + logIdHex + " in " + trustedRootJson);
  }
}
