package dev.countersign.manifest;

import java.io.ByteArrayOutputStream;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/** Deterministic gzip for annotations, and a bounded gunzip that reads exactly what Go reads. */
final class Gzip {

  /**
   * Fixed header: magic, CM=deflate, no flags, mtime 0, no extra flags, OS=255 (unknown), as Go's
   * compress/gzip writes it. The JDK's own header bytes changed between releases.
   */
  private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};

  /**
   * Idle deflaters for reuse. A level-9 deflater holds ~270 KB of native buffers that zlib
   * allocates and clears at each creation; every manifest compresses three annotations. Reset
   * between uses (zlib's {@code deflateReset}: the same state as a new stream, so the same output).
   * At most one per core is kept idle, so memory does not grow with the signing pool's size.
   */
  private static final ConcurrentLinkedDeque<Deflater> IDLE = new ConcurrentLinkedDeque<>();

  private static final AtomicInteger IDLE_COUNT = new AtomicInteger();

  private static final int MAX_IDLE = Runtime.getRuntime().availableProcessors();

  private Gzip() {}

  static byte[] compress(byte[] data) {
    Deflater deflater = IDLE.pollFirst();
    if (deflater == null) {
      deflater = new Deflater(Deflater.BEST_COMPRESSION, true);
    } else {
      IDLE_COUNT.decrementAndGet();
    }
    boolean reusable = false;
    try {
      deflater.setInput(data);
      deflater.finish();
      ByteArrayOutputStream out = new ByteArrayOutputStream(data.length / 2 + 64);
      out.write(HEADER, 0, HEADER.length);
      byte[] buffer = new byte[8192];
      while (!deflater.finished()) {
        int n = deflater.deflate(buffer);
        out.write(buffer, 0, n);
      }
      CRC32 crc = new CRC32();
      crc.update(data);
      writeIntLe(out, (int) crc.getValue());
      writeIntLe(out, data.length);
      reusable = true;
      return out.toByteArray();
    } finally {
      release(deflater, reusable);
    }
  }

  /** Back to the idle list after a complete stream (reset), or ended. */
  private static void release(Deflater deflater, boolean reusable) {
    if (reusable && IDLE_COUNT.incrementAndGet() <= MAX_IDLE) {
      deflater.reset();
      IDLE.addFirst(deflater);
      return;
    }
    if (reusable) {
      IDLE_COUNT.decrementAndGet();
    }
    deflater.end();
  }

  /** The output would exceed the caller's limit: a gzip bomb, or simply too much. */
  static final class TooLarge extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    TooLarge(long limit) {
      super("decompresses to more than " + limit + " bytes");
    }
  }

  static boolean isGzip(byte[] data) {
    return data.length >= 2 && data[0] == 0x1f && (data[1] & 0xff) == 0x8b;
  }

  /**
   * Gunzips {@code data} if it starts with the gzip magic; returns it unchanged otherwise (like
   * k8s-manifest-sigstore's {@code GzipDecompress}). Reads as Go's {@code compress/gzip} does,
   * which Kyverno and cosign use: every member in turn, concatenated, and after each member either
   * the end of the data or the header of another member; a file name or comment of more than 511
   * bytes is a bad header. Where Go's reader fails, k8s-manifest-sigstore verifies the compressed
   * bytes themselves, which no signature covers, so the cluster rejects the object: that is an
   * error here too, never the JDK's {@code GZIPInputStream}, which stops quietly at bytes after a
   * member (a re-encoded annotation would verify here and fail at admission). Unlike Go, a corrupt
   * or truncated first member is an error too, and output beyond {@code limit} bytes is refused
   * (gzip bombs).
   *
   * @throws TooLarge when the output would exceed {@code limit} bytes
   * @throws IllegalArgumentException with a reason ("is truncated gzip", "is not valid gzip (...)")
   *     when the stream is not what Go reads in full
   */
  static byte[] gunzipIfGzip(byte[] data, long limit) {
    if (!isGzip(data)) {
      return data;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    long total = 0;
    Inflater inflater = new Inflater(true);
    try {
      int position = 0;
      for (int member = 1; position < data.length; member++) {
        position = memberStart(data, position, member);
        inflater.reset();
        inflater.setInput(data, position, data.length - position);
        CRC32 crc = new CRC32();
        long size = 0;
        while (!inflater.finished()) {
          int n = inflater.inflate(buffer);
          if (n == 0 && !inflater.finished()) {
            throw new IllegalArgumentException(
                inflater.needsInput()
                    ? "is truncated gzip"
                    : "is not valid gzip (corrupt deflate data)");
          }
          total += n;
          if (total > limit) {
            throw new TooLarge(limit);
          }
          crc.update(buffer, 0, n);
          size += n;
          out.write(buffer, 0, n);
        }
        position = data.length - inflater.getRemaining();
        if (data.length - position < 8) {
          throw new IllegalArgumentException("is truncated gzip");
        }
        if (readIntLe(data, position) != (int) crc.getValue()
            || readIntLe(data, position + 4) != (int) size) {
          throw new IllegalArgumentException(
              "is not valid gzip (member " + member + " fails its checksum or size)");
        }
        position += 8;
      }
      return out.toByteArray();
    } catch (DataFormatException e) {
      String reason = e.getMessage() == null ? "corrupt deflate data" : e.getMessage();
      throw new IllegalArgumentException("is not valid gzip (" + reason + ")", e);
    } finally {
      inflater.end();
    }
  }

  /** Longest file name or comment Go's reader takes: its 512-byte buffer, NUL included. */
  private static final int GO_MAX_HEADER_STRING = 511;

  private static final int FHCRC = 2;
  private static final int FEXTRA = 4;
  private static final int FNAME = 8;
  private static final int FCOMMENT = 16;

  /**
   * Where the deflate data of the member whose header starts at {@code start} begins, checking the
   * header as Go's {@code readHeader} does.
   */
  private static int memberStart(byte[] data, int start, int member) {
    if (member > 1
        && (data.length - start < 3
            || data[start] != 0x1f
            || (data[start + 1] & 0xff) != 0x8b
            || data[start + 2] != 8)) {
      int trailing = data.length - start;
      throw new IllegalArgumentException(
          "is not valid gzip ("
              + trailing
              + " byte(s) after member "
              + (member - 1)
              + " do not start another member; Kyverno's gzip reader refuses them)");
    }
    if (data.length - start < 10) {
      throw new IllegalArgumentException("is truncated gzip");
    }
    if (data[start + 2] != 8) {
      throw new IllegalArgumentException("is not valid gzip (unsupported compression method)");
    }
    int flags = data[start + 3] & 0xff;
    int position = start + 10;
    if ((flags & FEXTRA) != 0) {
      if (data.length - position < 2) {
        throw new IllegalArgumentException("is truncated gzip");
      }
      position += 2 + ((data[position] & 0xff) | (data[position + 1] & 0xff) << 8);
    }
    for (int flag : new int[] {FNAME, FCOMMENT}) {
      if ((flags & flag) != 0) {
        int nul = position;
        while (nul < data.length && data[nul] != 0 && nul - position <= GO_MAX_HEADER_STRING) {
          nul++;
        }
        if (nul - position > GO_MAX_HEADER_STRING) {
          throw new IllegalArgumentException(
              "is not valid gzip (member "
                  + member
                  + " has a file name or comment longer than "
                  + GO_MAX_HEADER_STRING
                  + " bytes, which Kyverno's gzip reader refuses)");
        }
        position = nul + 1;
      }
    }
    if ((flags & FHCRC) != 0) {
      if (data.length - position < 2) {
        throw new IllegalArgumentException("is truncated gzip");
      }
      CRC32 crc = new CRC32();
      crc.update(data, start, position - start);
      int expected = (data[position] & 0xff) | (data[position + 1] & 0xff) << 8;
      if (expected != ((int) crc.getValue() & 0xffff)) {
        throw new IllegalArgumentException("is not valid gzip (header checksum mismatch)");
      }
      position += 2;
    }
    if (position > data.length) {
      throw new IllegalArgumentException("is truncated gzip");
    }
    return position;
  }

  private static int readIntLe(byte[] data, int offset) {
    return (data[offset] & 0xff)
        | (data[offset + 1] & 0xff) << 8
        | (data[offset + 2] & 0xff) << 16
        | (data[offset + 3] & 0xff) << 24;
  }

  private static void writeIntLe(ByteArrayOutputStream out, int value) {
    out.write(value & 0xff);
    out.write((value >>> 8) & 0xff);
    out.write((value >>> 16) & 0xff);
    out.write((value >>> 24) & 0xff);
  }
}
