package dev.countersign.promotion;

import dev.countersign.manifest.ManifestDocument;
import dev.countersign.manifest.ManifestReader;
import dev.countersign.manifest.SignatureSetAnnotations;
import dev.countersign.manifest.SignedContent;
import dev.countersign.manifest.SignedManifestFormat;
import dev.countersign.signing.KeyMessageSigner;
import dev.countersign.signing.SignJob;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.verification.CertificateIdentity;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PublicKey;
import java.security.Signature;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * Reads, from a signed manifest file's own bytes, the facts a promotion pull request lists: the
 * message digest, who signed it and the Rekor log index. Reading them from the file (not from what
 * this run signed) keeps the pull request body identical across runs that sign nothing new, so such
 * a run changes nothing on the host.
 *
 * <p>The signer is the certificate's subject alternative name for keyless signatures; for a keyed
 * signature it is the {@code sha256:} fingerprint of the first of {@code knownKeys} the signature
 * verifies with, else {@value #UNKNOWN_KEY}. These are facts for reviewers, not a verification:
 * {@code countersign verify} (or {@code promote}'s check) decides trust.
 */
public final class SignatureFacts {

  /** The signer column for a keyed signature made by none of the known keys. */
  public static final String UNKNOWN_KEY = "unknown key";

  private final ManifestReader reader;
  private final SignedManifestFormat format;
  private final Supplier<List<PublicKey>> knownKeys;

  public SignatureFacts(
      ManifestReader reader, SignedManifestFormat format, List<PublicKey> knownKeys) {
    this(reader, format, () -> knownKeys);
  }

  /**
   * @param knownKeys asked only when a keyed signature is met (reading a private key's public half
   *     may need its password)
   */
  public SignatureFacts(
      ManifestReader reader, SignedManifestFormat format, Supplier<List<PublicKey>> knownKeys) {
    this.reader = reader;
    this.format = format;
    this.knownKeys = knownKeys;
  }

  /** Digest, signer and log index of one signed file. */
  public record Facts(String messageDigest, String signer, OptionalLong rekorLogIndex) {
    /** The pull request table row for {@code path}. */
    public FileChange as(String path, FileChange.Change change) {
      return new FileChange(
          path, change, Optional.of(messageDigest), Optional.of(signer), rekorLogIndex);
    }
  }

  /**
   * @throws InputProblem when {@code bytes} is not a manifest or carries no signature
   */
  public Facts of(String path, byte[] bytes) {
    SignedContent content =
        decode(path, bytes)
            .orElseThrow(
                () ->
                    new InputProblem(
                        Path.of(path),
                        0,
                        "carries no signature annotations",
                        "perhaps you should sign it first (countersign sign, or the run"
                            + " pipeline)"));
    String digest = SignJob.digest(content.message());
    if (content.signatureSets().isEmpty()) {
      throw new InputProblem(
          Path.of(path),
          0,
          "has a message annotation but no signature",
          "perhaps you should sign it again");
    }
    SignatureSetAnnotations set = content.signatureSets().get(0);
    OptionalLong index =
        set.bundle().map(b -> OptionalLong.of(b.logIndex())).orElse(OptionalLong.empty());
    String signer =
        set.certificatePem()
            .flatMap(SignatureFacts::subject)
            .orElseGet(() -> keyed(content.message(), set.signature()));
    return new Facts(digest, signer, index);
  }

  private Optional<SignedContent> decode(String path, byte[] bytes) {
    List<ManifestDocument> documents = reader.parse(bytes, Path.of(path));
    SignedManifestFormat.FileDecoder decoder = format.decoder();
    for (ManifestDocument document : documents) {
      Optional<SignedContent> content;
      try {
        content = decoder.decode(document);
      } catch (IllegalArgumentException e) {
        throw new InputProblem(
            Path.of(path), document.line(), e.getMessage(), "perhaps you should sign it again", e);
      }
      if (content.isPresent()) {
        return content;
      }
    }
    return Optional.empty();
  }

  private String keyed(byte[] message, byte[] signature) {
    for (PublicKey key : knownKeys.get()) {
      try {
        Signature verifier = Signature.getInstance("SHA256withECDSA");
        verifier.initVerify(key);
        verifier.update(message);
        if (verifier.verify(signature)) {
          return KeyMessageSigner.fingerprint(key);
        }
      } catch (GeneralSecurityException wrongKindOfKey) {
        // Not this key; try the next.
      }
    }
    return UNKNOWN_KEY;
  }

  /** The keyless signer's SAN, read by the one certificate-identity implementation. */
  private static Optional<String> subject(byte[] pem) {
    try {
      return Optional.of(
          CertificateIdentity.ofPem(new String(pem, StandardCharsets.UTF_8)).subject());
    } catch (IllegalArgumentException unreadable) {
      return Optional.empty();
    }
  }
}
