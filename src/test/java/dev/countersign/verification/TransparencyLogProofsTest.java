package dev.countersign.verification;

import static org.assertj.core.api.Assertions.assertThat;

import dev.countersign.manifest.RekorBundle;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Rekor proofs on their own, each against an independent reference: inclusion proofs from an
 * RFC 6962 Merkle tree built here by its recursive definition (every leaf of every tree size up to
 * nine, so each branch of the audit-path walk is taken), checkpoints signed here as signed notes
 * with {@link FakeSigstore}'s log key. Each attack changes one thing beside a control that passes.
 */
class TransparencyLogProofsTest {

  private static final int LARGEST_TREE = 9;

  private final FakeSigstore sigstore = new FakeSigstore();
  private final TransparencyLogProofs proofs = new TransparencyLogProofs(sigstore.trustedRoot());
  private final String logId = TrustedRoot.logIdOf(sigstore.logKey.getPublic());

  // --- inclusion proofs

  @Test
  void inclusion_ofEveryLeafInEveryTreeSize_holds() {
    for (int size = 1; size <= LARGEST_TREE; size++) {
      for (int index = 0; index < size; index++) {
        assertThat(TransparencyLogProofs.checkInclusion(entry(index), proof(index, size)))
            .as("leaf %d of %d", index, size)
            .isEmpty();
      }
    }
  }

  @Test
  void inclusion_ofAnotherEntry_underThisLeafsPath_isRefused_inEveryTreeSize() {
    for (int size = 2; size <= LARGEST_TREE; size++) {
      for (int index = 0; index < size; index++) {
        int other = (index + 1) % size;
        assertThat(TransparencyLogProofs.checkInclusion(entry(other), proof(index, size)))
            .as("entry %d under the path of leaf %d of %d", other, index, size)
            .isPresent();
      }
    }
  }

  @Test
  void inclusion_claimingAnotherIndex_forTheSamePath_isRefused() {
    for (int size = 2; size <= LARGEST_TREE; size++) {
      for (int index = 0; index < size; index++) {
        RekorLogEntry.InclusionProof real = proof(index, size);
        for (int claimed = 0; claimed < size; claimed++) {
          if (claimed == index) {
            continue;
          }
          RekorLogEntry.InclusionProof moved =
              new RekorLogEntry.InclusionProof(
                  claimed, real.rootHash(), size, real.hashes(), real.checkpoint());
          assertThat(TransparencyLogProofs.checkInclusion(entry(index), moved))
              .as("leaf %d of %d claimed at %d", index, size, claimed)
              .isPresent();
        }
      }
    }
  }

  @Test
  void inclusion_atAnIndexOutsideTheTree_isRefused_evenWithALeadingPath() {
    // The last leaf of a tree of 5 claimed as index 4 of a tree of 4 (index == size): the path of
    // a tree of 5 and that tree's root, so only the bounds check can refuse it.
    RekorLogEntry.InclusionProof real = proof(4, 5);
    RekorLogEntry.InclusionProof atSize =
        new RekorLogEntry.InclusionProof(4, real.rootHash(), 4, real.hashes(), "");
    assertThat(TransparencyLogProofs.checkInclusion(entry(4), atSize))
        .hasValueSatisfying(reason -> assertThat(reason).contains("outside its tree of size 4"));

    RekorLogEntry.InclusionProof negative =
        new RekorLogEntry.InclusionProof(-1, real.rootHash(), 5, real.hashes(), "");
    assertThat(TransparencyLogProofs.checkInclusion(entry(4), negative)).isPresent();
    assertThat(TransparencyLogProofs.checkInclusion(entry(4), real)).isEmpty(); // control
  }

  @Test
  void inclusion_withAHashTooMany_tooFew_orMalformed_isRefused() {
    RekorLogEntry.InclusionProof real = proof(2, 7);
    assertThat(TransparencyLogProofs.checkInclusion(entry(2), real)).isEmpty(); // control

    List<byte[]> extra = new ArrayList<>(real.hashes());
    extra.add(leafHash(0));
    List<byte[]> missing = real.hashes().subList(0, real.hashes().size() - 1);
    List<byte[]> shortHash = new ArrayList<>(real.hashes());
    shortHash.set(0, Arrays.copyOf(shortHash.get(0), 31));
    for (List<byte[]> hashes : List.of(extra, missing, shortHash)) {
      assertThat(
              TransparencyLogProofs.checkInclusion(
                  entry(2), new RekorLogEntry.InclusionProof(2, real.rootHash(), 7, hashes, "")))
          .isPresent();
    }
  }

  @Test
  void inclusion_inAOneLeafTree_needsNoHashes_andRefusesAny() {
    RekorLogEntry.InclusionProof alone = proof(0, 1);
    assertThat(alone.hashes()).isEmpty();
    assertThat(TransparencyLogProofs.checkInclusion(entry(0), alone)).isEmpty();

    RekorLogEntry.InclusionProof padded =
        new RekorLogEntry.InclusionProof(0, alone.rootHash(), 1, List.of(leafHash(1)), "");
    assertThat(TransparencyLogProofs.checkInclusion(entry(0), padded)).isPresent();
  }

  // --- checkpoints

  @Test
  void checkpoint_signedByTheLog_underItsHostName_committingToTheProofsTree_holds() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    String note = signedNote(noteText(6, proof.rootHash(), true), "127.0.0.1", sigstore.logKey);

    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, note))).isEmpty();
  }

  @Test
  void checkpoint_withoutExtraLines_holds() {
    // origin, size and root hash are all a note needs; Rekor adds a timestamp line.
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    String note = signedNote(noteText(6, proof.rootHash(), false), "127.0.0.1", sigstore.logKey);

    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, note))).isEmpty();
  }

  @Test
  void checkpoint_signedByTheLogsKey_underAnotherName_isRefused() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    String note =
        signedNote(noteText(6, proof.rootHash(), true), "rekor.example.org", sigstore.logKey);

    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, note)))
        .hasValueSatisfying(reason -> assertThat(reason).contains("not signed by"));
  }

  @Test
  void checkpoint_signedByAnotherKey_underTheLogsKeyHint_isRefused() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    KeyPair other = FakeSigstore.ec();
    String note = signedNote(noteText(6, proof.rootHash(), true), "127.0.0.1", other);

    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, note))).isPresent();
  }

  @Test
  void checkpoint_committingToAnotherTreeSizeOrRoot_isRefused() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    String otherSize =
        signedNote(noteText(7, proof(3, 7).rootHash(), true), "127.0.0.1", sigstore.logKey);
    String otherRoot =
        signedNote(noteText(6, proof(3, 5).rootHash(), true), "127.0.0.1", sigstore.logKey);

    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, otherSize)))
        .hasValueSatisfying(reason -> assertThat(reason).contains("another tree"));
    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, otherRoot)))
        .hasValueSatisfying(reason -> assertThat(reason).contains("another tree"));
  }

  @Test
  void checkpoint_ofALogTheTrustedRootDoesNotName_isRefused() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    KeyPair other = FakeSigstore.ec();
    String note = signedNote(noteText(6, proof.rootHash(), true), "127.0.0.1", other);

    assertThat(
            proofs.checkCheckpoint(
                TrustedRoot.logIdOf(other.getPublic()), withCheckpoint(proof, note)))
        .hasValueSatisfying(reason -> assertThat(reason).contains("not a transparency log"));
  }

  @Test
  void checkpoint_withoutASignatureBlock_orAnUnreadableSignatureLine_isRefused() {
    RekorLogEntry.InclusionProof proof = proof(3, 6);
    String text = noteText(6, proof.rootHash(), true);
    String signed = signedNote(text, "127.0.0.1", sigstore.logKey);
    String signatureLine = signed.substring(text.length() + 1);

    for (String note :
        List.of(
            text,
            text + "\n\u2014 127.0.0.1\n",
            text + "\n\u2014 127.0.0.1 not*base64\n",
            text + "\n- " + signatureLine.substring(2))) {
      assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, note))).as(note).isPresent();
    }
    // control: the same text, with a foreign signature line before the log's own
    String cosigned = text + "\n\u2014 witness.example AAAA\n" + signatureLine;
    assertThat(proofs.checkCheckpoint(logId, withCheckpoint(proof, cosigned))).isEmpty();
  }

  // --- the reference: RFC 6962 §2.1 by its recursive definitions

  private static byte[] body(int leaf) {
    return ("{\"entry\":" + leaf + "}").getBytes(StandardCharsets.UTF_8);
  }

  private static RekorBundle entry(int leaf) {
    return new RekorBundle("x", Base64.getEncoder().encodeToString(body(leaf)), 0, leaf, "ab");
  }

  private static byte[] leafHash(int leaf) {
    return sha256(new byte[] {0}, body(leaf));
  }

  /** MTH(D[from:to]). */
  private static byte[] treeHash(int from, int to) {
    if (to - from == 1) {
      return leafHash(from);
    }
    int split = largestPowerOfTwoBelow(to - from);
    return sha256(new byte[] {1}, treeHash(from, from + split), treeHash(from + split, to));
  }

  /** PATH(m, D[from:to]): the audit path, leaf to root. */
  private static List<byte[]> path(int m, int from, int to) {
    List<byte[]> path = new ArrayList<>();
    if (to - from == 1) {
      return path;
    }
    int split = largestPowerOfTwoBelow(to - from);
    if (m < split) {
      path.addAll(path(m, from, from + split));
      path.add(treeHash(from + split, to));
    } else {
      path.addAll(path(m - split, from + split, to));
      path.add(treeHash(from, from + split));
    }
    return path;
  }

  private static int largestPowerOfTwoBelow(int n) {
    int k = 1;
    while (k << 1 < n) {
      k <<= 1;
    }
    return k;
  }

  private static RekorLogEntry.InclusionProof proof(int index, int size) {
    return new RekorLogEntry.InclusionProof(
        index, treeHash(0, size), size, path(index, 0, size), "");
  }

  private static RekorLogEntry.InclusionProof withCheckpoint(
      RekorLogEntry.InclusionProof proof, String checkpoint) {
    return new RekorLogEntry.InclusionProof(
        proof.logIndex(), proof.rootHash(), proof.treeSize(), proof.hashes(), checkpoint);
  }

  /** The note's text as Rekor writes it: origin, size, base64 root, then its timestamp line. */
  private static String noteText(long size, byte[] root, boolean timestampLine) {
    return "127.0.0.1 - 1234567890\n"
        + size
        + "\n"
        + Base64.getEncoder().encodeToString(root)
        + "\n"
        + (timestampLine ? "Timestamp: 1767225600000000000\n" : "");
  }

  /** A signed note: text, a blank line, and "— name base64(keyhint || signature)". */
  private String signedNote(String text, String name, KeyPair signer) {
    try {
      byte[] hint = Arrays.copyOf(HexFormat.of().parseHex(logId), 4);
      byte[] signature =
          FakeSigstore.sign(signer.getPrivate(), text.getBytes(StandardCharsets.UTF_8));
      byte[] hinted = new byte[4 + signature.length];
      System.arraycopy(hint, 0, hinted, 0, 4);
      System.arraycopy(signature, 0, hinted, 4, signature.length);
      return text + "\n\u2014 " + name + " " + Base64.getEncoder().encodeToString(hinted) + "\n";
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] sha256(byte[]... parts) {
    try {
      java.security.MessageDigest digest = java.security.MessageDigest.getInstance("SHA-256");
      for (byte[] part : parts) {
        digest.update(part);
      }
      return digest.digest();
    } catch (java.security.NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
