package dev.countersign.manifest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.stream.Stream;
import java.util.zip.CRC32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link Gzip#gunzipIfGzip} reads what Go's {@code compress/gzip} reads, which Kyverno uses through
 * k8s-manifest-sigstore's {@code GzipDecompress}: there, whatever the Go reader fails on is
 * verified as the compressed bytes themselves, so no signature verifies and the cluster rejects the
 * object. The expectations below are what go1.19's reader does with the same bytes.
 */
class GzipTest {

  static final byte[] FIRST = "apiVersion: v1\nkind: ConfigMap\n".getBytes(StandardCharsets.UTF_8);
  static final byte[] SECOND = "data: {}\n".getBytes(StandardCharsets.UTF_8);

  static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] part : parts) {
      out.writeBytes(part);
    }
    return out.toByteArray();
  }

  /** {@code member} with FNAME set and a name of {@code length} bytes. */
  static byte[] named(byte[] member, int length) {
    byte[] header = Arrays.copyOf(member, 10);
    header[3] |= 8;
    byte[] name = new byte[length + 1];
    Arrays.fill(name, 0, length, (byte) 'n');
    return concat(header, name, Arrays.copyOfRange(member, 10, member.length));
  }

  /** {@code member} with every optional header field, FHCRC right or wrong. */
  static byte[] fullHeader(byte[] member, boolean rightHeaderCrc) {
    byte[] header =
        concat(
            new byte[] {0x1f, (byte) 0x8b, 8, 2 | 4 | 8 | 16, 1, 2, 3, 4, 0, 3},
            new byte[] {3, 0, 'a', 'b', 'c'},
            "name\0comment\0".getBytes(StandardCharsets.US_ASCII));
    CRC32 crc = new CRC32();
    crc.update(header);
    int check = (int) crc.getValue() ^ (rightHeaderCrc ? 0 : 1);
    return concat(
        header,
        new byte[] {(byte) check, (byte) (check >> 8)},
        Arrays.copyOfRange(member, 10, member.length));
  }

  static Stream<Arguments> readByGo() {
    byte[] first = Gzip.compress(FIRST);
    byte[] second = Gzip.compress(SECOND);
    return Stream.of(
        Arguments.of("one member", first, FIRST),
        Arguments.of("two members, concatenated", concat(first, second), concat(FIRST, SECOND)),
        Arguments.of("a name of 511 bytes", named(first, 511), FIRST),
        Arguments.of(
            "extra field, name, comment and header CRC",
            concat(first, fullHeader(second, true)),
            concat(FIRST, SECOND)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("readByGo")
  void whatGoReads_isReadTheSame(String name, byte[] gzip, byte[] expected) {
    assertThat(Gzip.gunzipIfGzip(gzip, 1024)).isEqualTo(expected);
  }

  static Stream<Arguments> refusedByGo() {
    byte[] first = Gzip.compress(FIRST);
    byte[] second = Gzip.compress(SECOND);
    String after =
        " after member 1 do not start another member; Kyverno's gzip reader refuses them)";
    return Stream.of(
        Arguments.of(
            "one byte after the member",
            concat(first, new byte[1]),
            "is not valid gzip (1 byte(s)" + after),
        Arguments.of(
            "nine bytes after the member",
            concat(first, "xxxxxxxxx".getBytes(StandardCharsets.US_ASCII)),
            "is not valid gzip (9 byte(s)" + after),
        Arguments.of(
            "forty zero bytes after the member",
            concat(first, new byte[40]),
            "is not valid gzip (40 byte(s)" + after),
        Arguments.of(
            "the start of a second member",
            concat(first, Arrays.copyOf(second, 11)),
            "is truncated gzip"),
        Arguments.of(
            "a name of 512 bytes",
            named(first, 512),
            "is not valid gzip (member 1 has a file name or comment longer than 511 bytes, which"
                + " Kyverno's gzip reader refuses)"),
        Arguments.of(
            "a second member named with 600 bytes",
            concat(first, named(second, 600)),
            "is not valid gzip (member 2 has a file name or comment longer than 511 bytes, which"
                + " Kyverno's gzip reader refuses)"),
        Arguments.of(
            "a second member with a wrong header CRC",
            concat(first, fullHeader(second, false)),
            "is not valid gzip (header checksum mismatch)"),
        Arguments.of(
            "a second member with a wrong data CRC",
            concat(first, flipped(second, second.length - 8)),
            "is not valid gzip (member 2 fails its checksum or size)"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refusedByGo")
  void whatGoRefuses_isAnError(String name, byte[] gzip, String reason) {
    assertThatThrownBy(() -> Gzip.gunzipIfGzip(gzip, 1024))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(reason);
  }

  @Test
  void outputBeyondTheLimit_acrossMembers_isTooLarge() {
    byte[] twoMembers = concat(Gzip.compress(FIRST), Gzip.compress(SECOND));

    assertThat(Gzip.gunzipIfGzip(twoMembers, FIRST.length + SECOND.length)).hasSize(40);
    assertThatThrownBy(() -> Gzip.gunzipIfGzip(twoMembers, FIRST.length + SECOND.length - 1))
        .isInstanceOf(Gzip.TooLarge.class);
  }

  private static byte[] flipped(byte[] data, int index) {
    byte[] copy = data.clone();
    copy[index] ^= 1;
    return copy;
  }
}
