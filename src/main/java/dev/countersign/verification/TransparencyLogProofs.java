package dev.countersign.verification;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.manifest.RekorBundle;
import dev.countersign.support.Json;
import dev.countersign.support.Sha256;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.erdtman.jcs.JsonCanonicalizer;

/**
 * The proofs a Rekor v1 entry carries, each checked against the trusted root: the signed entry
 * timestamp (SET), the RFC 6962 inclusion proof, and the checkpoint (a signed note) that commits to
 * the proof's root. Every method returns why the proof fails, or empty when it holds. Stateless
 * apart from the trusted root; thread-safe.
 */
final class TransparencyLogProofs {

  private static final ObjectMapper JSON = Json.mapper();
  private static final String SIGNATURE_LINE_START = "\u2014 ";

  private final TrustedRoot trustedRoot;

  TransparencyLogProofs(TrustedRoot trustedRoot) {
    this.trustedRoot = trustedRoot;
  }

  /** The SET: signed by a transparency log the trusted root names, valid at integratedTime. */
  Optional<String> checkSet(RekorBundle bundle) {
    Instant integratedTime = Instant.ofEpochSecond(bundle.integratedTime());
    Optional<TrustedRoot.TransparencyLogKey> log = trustedRoot.log(bundle.logId());
    if (log.isEmpty()) {
      return Optional.of(
          "bundle logID " + bundle.logId() + " is not a transparency log in the trusted root");
    }
    if (!log.get().validAt(integratedTime)) {
      return Optional.of(
          "the transparency log key "
              + bundle.logId()
              + " was not valid at the entry's integratedTime "
              + integratedTime);
    }
    byte[] set;
    try {
      set = Base64.getDecoder().decode(bundle.signedEntryTimestamp());
    } catch (IllegalArgumentException e) {
      return Optional.of("the bundle's SignedEntryTimestamp is not base64");
    }
    if (!EcdsaVerification.verifySha256(log.get().key(), setCanonicalJson(bundle), set)) {
      return Optional.of(
          "the bundle's signed entry timestamp does not verify with transparency log "
              + bundle.logId());
    }
    return Optional.empty();
  }

  /**
   * What a SET signs: the RFC 8785 canonical JSON of {@code
   * {"body","integratedTime","logID","logIndex"}} (the erdtman JCS library).
   */
  static byte[] setCanonicalJson(RekorBundle bundle) {
    // The common case written directly: JCS parses the JSON and writes it again, which was most of
    // the SET check's cost besides ECDSA. For strings of printable ASCII without '"' or '\\' and
    // integers a double holds exactly, JCS writes each value as is (RFC 8785 3.2.2); anything
    // else takes the library's path.
    if (isVerbatimInJcs(bundle.body())
        && isVerbatimInJcs(bundle.logId())
        && isExactInDouble(bundle.integratedTime())
        && isExactInDouble(bundle.logIndex())) {
      String json =
          "{\"body\":\""
              + bundle.body()
              + "\",\"integratedTime\":"
              + bundle.integratedTime()
              + ",\"logID\":\""
              + bundle.logId()
              + "\",\"logIndex\":"
              + bundle.logIndex()
              + "}";
      return json.getBytes(StandardCharsets.US_ASCII);
    }
    return setCanonicalJsonByJcs(bundle);
  }

  /** {@link #setCanonicalJson} through the JCS library, for any values. */
  static byte[] setCanonicalJsonByJcs(RekorBundle bundle) {
    ObjectNode signed = JSON.createObjectNode();
    signed.put("body", bundle.body());
    signed.put("integratedTime", bundle.integratedTime());
    signed.put("logID", bundle.logId());
    signed.put("logIndex", bundle.logIndex());
    try {
      return new JsonCanonicalizer(JSON.writeValueAsString(signed)).getEncodedUTF8();
    } catch (IOException e) {
      throw new IllegalStateException("canonicalising the SET payload", e);
    }
  }

  private static boolean isVerbatimInJcs(String s) {
    if (s == null) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }

  /** JCS reads numbers as IEEE doubles and writes integers up to 2^53 as plain digits. */
  private static boolean isExactInDouble(long n) {
    return n >= -(1L << 53) && n <= (1L << 53);
  }

  /**
   * The entry's leaf ({@code SHA-256(0x00 || body)}) is at {@code proof.logIndex} of a tree of
   * {@code proof.treeSize} leaves whose root is {@code proof.rootHash} (RFC 9162 §2.1.3.2).
   */
  static Optional<String> checkInclusion(RekorBundle bundle, RekorLogEntry.InclusionProof proof) {
    byte[] body;
    try {
      body = Base64.getDecoder().decode(bundle.body());
    } catch (IllegalArgumentException e) {
      return Optional.of("the entry body is not base64");
    }
    long index = proof.logIndex();
    long size = proof.treeSize();
    if (index < 0 || size <= index) {
      return Optional.of(
          "the inclusion proof's index " + index + " is outside its tree of size " + size);
    }
    byte[] hash = Sha256.of(concat(new byte[] {0}, body));
    long fn = index;
    long sn = size - 1;
    for (byte[] sibling : proof.hashes()) {
      if (sn == 0 || sibling.length != 32) {
        return Optional.of("the inclusion proof has too many or malformed hashes");
      }
      if ((fn & 1) == 1 || fn == sn) {
        hash = Sha256.of(concat(new byte[] {1}, sibling, hash));
        if ((fn & 1) == 0) {
          while ((fn & 1) == 0 && fn != 0) {
            fn >>= 1;
            sn >>= 1;
          }
        }
      } else {
        hash = Sha256.of(concat(new byte[] {1}, hash, sibling));
      }
      fn >>= 1;
      sn >>= 1;
    }
    if (sn != 0 || !MessageDigest.isEqual(hash, proof.rootHash())) {
      return Optional.of(
          "the inclusion proof does not lead from the entry to root hash "
              + HexFormat.of().formatHex(proof.rootHash()));
    }
    return Optional.empty();
  }

  /**
   * The checkpoint is a signed note ({@code origin\nsize\nbase64(root)\n[extra lines]\n\n— name
   * base64(keyhint || signature)\n}) signed by the log that holds the entry ({@code logId}; the key
   * hint is the first 4 bytes of the log ID, the name the host of the log's base URL, as
   * sigstore-java checks), and it commits to the proof's tree size and root hash.
   */
  Optional<String> checkCheckpoint(String logId, RekorLogEntry.InclusionProof proof) {
    Optional<TrustedRoot.TransparencyLogKey> log = trustedRoot.log(logId);
    if (log.isEmpty()) {
      return Optional.of("logID " + logId + " is not a transparency log in the trusted root");
    }
    String note = proof.checkpoint();
    int end = note.indexOf("\n\n");
    if (end < 0) {
      return Optional.of("the checkpoint is not a signed note");
    }
    String text = note.substring(0, end + 1);
    List<String> lines = List.of(text.split("\n"));
    if (lines.size() < 3) {
      return Optional.of("the checkpoint has no tree size and root hash");
    }
    byte[] hint = Arrays.copyOf(HexFormat.of().parseHex(log.get().logId()), 4);
    String host = host(log.get().baseUrl());
    boolean signed = false;
    for (String line : note.substring(end + 2).split("\n")) {
      if (!line.startsWith(SIGNATURE_LINE_START)) {
        continue;
      }
      String nameAndSignature = line.substring(SIGNATURE_LINE_START.length());
      int space = nameAndSignature.lastIndexOf(' ');
      if (space < 0) {
        continue;
      }
      String name = nameAndSignature.substring(0, space);
      byte[] signature;
      try {
        signature = Base64.getDecoder().decode(nameAndSignature.substring(space + 1));
      } catch (IllegalArgumentException e) {
        continue;
      }
      if (signature.length > 4
          && Arrays.equals(Arrays.copyOf(signature, 4), hint)
          && (host.isEmpty() || name.equals(host))
          && EcdsaVerification.verifySha256(
              log.get().key(),
              text.getBytes(StandardCharsets.UTF_8),
              Arrays.copyOfRange(signature, 4, signature.length))) {
        signed = true;
        break;
      }
    }
    if (!signed) {
      return Optional.of("the checkpoint is not signed by transparency log " + logId);
    }
    long size;
    byte[] root;
    try {
      size = Long.parseLong(lines.get(1));
      root = Base64.getDecoder().decode(lines.get(2));
    } catch (IllegalArgumentException e) {
      return Optional.of("the checkpoint's tree size or root hash is unreadable");
    }
    if (size != proof.treeSize() || !MessageDigest.isEqual(root, proof.rootHash())) {
      return Optional.of(
          "the checkpoint commits to another tree (size "
              + size
              + ") than the inclusion proof (size "
              + proof.treeSize()
              + ")");
    }
    return Optional.empty();
  }

  private static String host(String baseUrl) {
    try {
      String host = URI.create(baseUrl).getHost();
      return host == null ? "" : host;
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  private static byte[] concat(byte[]... parts) {
    int length = 0;
    for (byte[] part : parts) {
      length += part.length;
    }
    byte[] out = new byte[length];
    int at = 0;
    for (byte[] part : parts) {
      System.arraycopy(part, 0, out, at, part.length);
      at += part.length;
    }
    return out;
  }
}
