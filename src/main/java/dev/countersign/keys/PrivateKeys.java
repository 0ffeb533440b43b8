package dev.countersign.keys;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.countersign.support.Env;
import dev.countersign.support.Json;
import dev.countersign.support.problems.InputProblem;
import dev.countersign.support.problems.InternalProblem;
import dev.countersign.support.problems.UsageProblem;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.ECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.bouncycastle.asn1.ASN1Primitive;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.AlgorithmIdentifier;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.asn1.x9.X9ObjectIdentifiers;
import org.bouncycastle.crypto.ec.CustomNamedCurves;
import org.bouncycastle.crypto.engines.XSalsa20Engine;
import org.bouncycastle.crypto.generators.SCrypt;
import org.bouncycastle.crypto.macs.Poly1305;
import org.bouncycastle.crypto.params.KeyParameter;
import org.bouncycastle.crypto.params.ParametersWithIV;

/**
 * Private keys: cosign's encrypted format ({@code ENCRYPTED COSIGN PRIVATE KEY}: scrypt-derived
 * key, NaCl secretbox around a PKCS#8 key), plain PKCS#8 {@code PRIVATE KEY} and SEC1 {@code EC
 * PRIVATE KEY}. Writes cosign-compatible encrypted key pairs for {@code keygen}.
 */
public final class PrivateKeys {

  /** The environment variable cosign reads the key password from. */
  public static final String PASSWORD_VARIABLE = "COSIGN_PASSWORD";

  static final String COSIGN_TYPE = "ENCRYPTED COSIGN PRIVATE KEY";
  // cosign >= 2.x may write this type; the content is the same JSON envelope.
  static final String SIGSTORE_TYPE = "ENCRYPTED SIGSTORE PRIVATE KEY";

  // cosign's generate-key-pair parameters (scrypt N=2^15, r=8, p=1).
  static final int SCRYPT_N = 32768;
  static final int SCRYPT_R = 8;
  static final int SCRYPT_P = 1;
  private static final int SALT_BYTES = 32;
  private static final int NONCE_BYTES = 24;
  private static final int KEY_BYTES = 32;
  private static final int TAG_BYTES = 16;
  // Refuse absurd KDF parameters from a file: a hostile key file must not exhaust memory.
  private static final long MAX_SCRYPT_MEMORY = 256L * 1024 * 1024;

  private static final ObjectMapper JSON = Json.mapper();

  private PrivateKeys() {}

  /** The key password from {@code COSIGN_PASSWORD}, or the empty password when unset. */
  public static char[] passwordFrom(Env env) {
    String value = env.vars().get(PASSWORD_VARIABLE);
    return value == null ? new char[0] : value.toCharArray();
  }

  /**
   * Reads the private key in {@code file} (also base64 of a PEM), decrypting it with {@code
   * password} when it is a cosign encrypted key.
   *
   * @throws UsageProblem when the file does not exist or the password is wrong
   * @throws InputProblem when the file holds no usable private key
   */
  public static PrivateKey read(Path file, char[] password) {
    return parse(PublicKeys.readKeyFile(file), file, password);
  }

  /** Like {@link #read} for content that came from {@code source} (named in messages only). */
  public static PrivateKey parse(byte[] content, Path source, char[] password) {
    List<Pem.Block> blocks =
        Pem.blocks(content, source, 0, "perhaps you should pass a cosign private key (cosign.key)");
    for (Pem.Block block : blocks) {
      switch (block.type()) {
        case COSIGN_TYPE, SIGSTORE_TYPE -> {
          return fromPkcs8(decrypt(block.der(), password, source), source);
        }
        case "PRIVATE KEY" -> {
          return fromPkcs8(block.der(), source);
        }
        case "EC PRIVATE KEY" -> {
          return fromSec1(block.der(), source);
        }
        default -> {
          // not a private key block (e.g. a certificate next to it); keep looking
        }
      }
    }
    throw new InputProblem(
        source,
        0,
        "no private key block found (expected \"-----BEGIN " + COSIGN_TYPE + "-----\")",
        "perhaps you should pass the private key file (cosign.key), not the public key");
  }

  /** The public half of an EC private key (Q = d·G on its curve). */
  public static PublicKey publicKeyOf(PrivateKey key) {
    if (!(key instanceof ECPrivateKey ec)) {
      throw new UsageProblem(
          "Only ECDSA private keys are supported, got " + key.getAlgorithm(),
          "perhaps you should generate an ECDSA P-256 key with `countersign keygen`");
    }
    ECParameterSpec params = ec.getParams();
    org.bouncycastle.math.ec.ECPoint q =
        curveParameters(params).getG().multiply(ec.getS()).normalize();
    ECPoint point =
        new ECPoint(q.getAffineXCoord().toBigInteger(), q.getAffineYCoord().toBigInteger());
    try {
      return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(point, params));
    } catch (GeneralSecurityException e) {
      throw new InternalProblem("could not derive the public key of an EC private key", null, e);
    }
  }

  /** A fresh ECDSA P-256 key pair, the kind cosign generates. */
  public static KeyPair generate(SecureRandom random) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), random);
      return generator.generateKeyPair();
    } catch (GeneralSecurityException e) {
      throw new InternalProblem("could not generate an ECDSA P-256 key", null, e);
    }
  }

  /**
   * {@code key} as a cosign {@code ENCRYPTED COSIGN PRIVATE KEY} PEM: PKCS#8, sealed with NaCl
   * secretbox under scrypt(password, random 32-byte salt, N=32768, r=8, p=1), random nonce.
   */
  public static String encryptToPem(PrivateKey key, char[] password, SecureRandom random) {
    byte[] salt = new byte[SALT_BYTES];
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(salt);
    random.nextBytes(nonce);
    byte[] secretKey = scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P);
    byte[] sealed = secretbox(true, key.getEncoded(), nonce, secretKey);
    if (sealed == null) {
      throw new InternalProblem("secretbox sealing failed");
    }
    // Field order as cosign's Go structs marshal them.
    ObjectNode root = JSON.createObjectNode();
    ObjectNode kdf = root.putObject("kdf");
    kdf.put("name", "scrypt");
    ObjectNode params = kdf.putObject("params");
    params.put("N", SCRYPT_N);
    params.put("r", SCRYPT_R);
    params.put("p", SCRYPT_P);
    kdf.put("salt", Base64.getEncoder().encodeToString(salt));
    ObjectNode cipher = root.putObject("cipher");
    cipher.put("name", "nacl/secretbox");
    cipher.put("nonce", Base64.getEncoder().encodeToString(nonce));
    root.put("ciphertext", Base64.getEncoder().encodeToString(sealed));
    try {
      return Pem.encode(COSIGN_TYPE, JSON.writeValueAsBytes(root));
    } catch (IOException e) {
      throw new InternalProblem("could not write the encrypted key JSON", null, e);
    }
  }

  private static byte[] decrypt(byte[] envelope, char[] password, Path source) {
    JsonNode root;
    try {
      root = JSON.readTree(envelope);
    } catch (IOException e) {
      throw new InputProblem(
          source,
          0,
          "the encrypted private key is not cosign's JSON envelope",
          "perhaps you should regenerate the key with `countersign keygen` or `cosign"
              + " generate-key-pair`",
          e);
    }
    String kdfName = root.path("kdf").path("name").asText();
    String cipherName = root.path("cipher").path("name").asText();
    if (!kdfName.equals("scrypt") || !cipherName.equals("nacl/secretbox")) {
      throw new InputProblem(
          source,
          0,
          "unsupported key encryption (kdf \""
              + kdfName
              + "\", cipher \""
              + cipherName
              + "\"); only scrypt + nacl/secretbox is supported",
          "perhaps you should regenerate the key with `countersign keygen` or `cosign"
              + " generate-key-pair`");
    }
    JsonNode params = root.path("kdf").path("params");
    int n = params.path("N").asInt(-1);
    int r = params.path("r").asInt(-1);
    int p = params.path("p").asInt(-1);
    if (n < 2
        || Integer.bitCount(n) != 1
        || r < 1
        || p < 1
        || 128L * n * r > MAX_SCRYPT_MEMORY
        || p > 16) {
      throw new InputProblem(
          source,
          0,
          "the key's scrypt parameters N=" + n + " r=" + r + " p=" + p + " are out of range",
          "perhaps you should regenerate the key with `countersign keygen` or `cosign"
              + " generate-key-pair`");
    }
    byte[] salt = base64Field(root.path("kdf").path("salt"), "kdf.salt", source);
    byte[] nonce = base64Field(root.path("cipher").path("nonce"), "cipher.nonce", source);
    byte[] ciphertext = base64Field(root.path("ciphertext"), "ciphertext", source);
    if (nonce.length != NONCE_BYTES || ciphertext.length < TAG_BYTES) {
      throw new InputProblem(
          source,
          0,
          "the encrypted private key has a malformed nonce or ciphertext",
          "perhaps you should regenerate the key with `countersign keygen` or `cosign"
              + " generate-key-pair`");
    }
    byte[] plain = secretbox(false, ciphertext, nonce, scrypt(password, salt, n, r, p));
    if (plain == null) {
      throw new UsageProblem(
          "Could not decrypt " + source + " while reading the private key: wrong password?",
          "perhaps you should set "
              + PASSWORD_VARIABLE
              + " to the password the key was created with");
    }
    return plain;
  }

  private static byte[] base64Field(JsonNode node, String name, Path source) {
    try {
      if (!node.isTextual()) {
        throw new IllegalArgumentException("missing");
      }
      return Base64.getDecoder().decode(node.asText());
    } catch (IllegalArgumentException e) {
      throw new InputProblem(
          source,
          0,
          "the encrypted private key's " + name + " is missing or not base64",
          "perhaps you should regenerate the key with `countersign keygen` or `cosign"
              + " generate-key-pair`",
          e);
    }
  }

  static byte[] scrypt(char[] password, byte[] salt, int n, int r, int p) {
    ByteBuffer encoded = StandardCharsets.UTF_8.encode(CharBuffer.wrap(password));
    byte[] bytes = Arrays.copyOfRange(encoded.array(), encoded.position(), encoded.limit());
    try {
      return SCrypt.generate(bytes, salt, n, r, p, KEY_BYTES);
    } finally {
      Arrays.fill(bytes, (byte) 0);
      Arrays.fill(encoded.array(), (byte) 0);
    }
  }

  /**
   * NaCl {@code crypto_secretbox}: XSalsa20 keystream, its first 32 bytes key Poly1305, the rest
   * encrypts; the box is tag || ciphertext. Returns null when opening fails authentication.
   */
  static byte[] secretbox(boolean seal, byte[] input, byte[] nonce, byte[] key) {
    XSalsa20Engine salsa = new XSalsa20Engine();
    salsa.init(true, new ParametersWithIV(new KeyParameter(key), nonce));
    byte[] macKey = new byte[KEY_BYTES];
    salsa.processBytes(new byte[KEY_BYTES], 0, KEY_BYTES, macKey, 0);
    Poly1305 poly = new Poly1305();
    poly.init(new KeyParameter(macKey));
    byte[] tag = new byte[TAG_BYTES];
    if (seal) {
      byte[] out = new byte[TAG_BYTES + input.length];
      salsa.processBytes(input, 0, input.length, out, TAG_BYTES);
      poly.update(out, TAG_BYTES, input.length);
      poly.doFinal(out, 0);
      return out;
    }
    int length = input.length - TAG_BYTES;
    poly.update(input, TAG_BYTES, length);
    poly.doFinal(tag, 0);
    if (!MessageDigest.isEqual(tag, Arrays.copyOf(input, TAG_BYTES))) {
      return null;
    }
    byte[] out = new byte[length];
    salsa.processBytes(input, TAG_BYTES, length, out, 0);
    return out;
  }

  private static PrivateKey fromPkcs8(byte[] der, Path source) {
    return PublicKeys.ecOrRsa(factory -> factory.generatePrivate(new PKCS8EncodedKeySpec(der)))
        .orElseThrow(
            () ->
                new InputProblem(
                    source,
                    0,
                    "the private key is not a PKCS#8 ECDSA or RSA key",
                    "perhaps you should generate an ECDSA P-256 key with `countersign keygen`"));
  }

  private static PrivateKey fromSec1(byte[] der, Path source) {
    try {
      org.bouncycastle.asn1.sec.ECPrivateKey sec1 =
          org.bouncycastle.asn1.sec.ECPrivateKey.getInstance(ASN1Primitive.fromByteArray(der));
      if (sec1.getParametersObject() == null) {
        throw new IllegalArgumentException("no curve parameters");
      }
      PrivateKeyInfo info =
          new PrivateKeyInfo(
              new AlgorithmIdentifier(
                  X9ObjectIdentifiers.id_ecPublicKey, sec1.getParametersObject()),
              sec1);
      return fromPkcs8(info.getEncoded(), source);
    } catch (IOException | RuntimeException e) {
      if (e instanceof InputProblem problem) {
        throw problem;
      }
      throw new InputProblem(
          source,
          0,
          "the EC PRIVATE KEY block is malformed: " + e.getMessage(),
          "perhaps you should generate an ECDSA P-256 key with `countersign keygen`",
          e);
    }
  }

  private static X9ECParameters curveParameters(ECParameterSpec params) {
    int bits = params.getCurve().getField().getFieldSize();
    String name =
        switch (bits) {
          case 256 -> "secp256r1";
          case 384 -> "secp384r1";
          case 521 -> "secp521r1";
          default ->
              throw new UsageProblem(
                  "Unsupported EC key size " + bits, "perhaps you should use an ECDSA P-256 key");
        };
    X9ECParameters x9 = CustomNamedCurves.getByName(name);
    if (!x9.getCurve().getB().toBigInteger().equals(params.getCurve().getB())) {
      throw new UsageProblem(
          "Unsupported elliptic curve of size " + bits,
          "perhaps you should use an ECDSA P-256 key");
    }
    return x9;
  }
}
