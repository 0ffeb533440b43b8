package dev.countersign.manifest;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;

/** Deterministic gzip for annotations, and a bounded, Go-lenient gunzip for decoding them. */
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
   * k8s-manifest-sigstore's {@code GzipDecompress}). Unlike Go, a corrupt or truncated gzip stream
   * is an error, and output beyond {@code limit} bytes is refused (gzip bombs).
   *
   * @throws TooLarge when the output would exceed {@code limit} bytes
   * @throws IllegalArgumentException with a reason when the stream is corrupt
   */
  static byte[] gunzipIfGzip(byte[] data, long limit) {
    if (!isGzip(data)) {
      return data;
    }
    try (InputStream in = new GZIPInputStream(new ByteArrayInputStream(data))) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      byte[] buffer = new byte[8192];
      long total = 0;
      int n;
      while ((n = in.read(buffer)) > 0) {
        total += n;
        if (total > limit) {
          throw new TooLarge(limit);
        }
        out.write(buffer, 0, n);
      }
      return out.toByteArray();
    } catch (IOException e) {
      String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      throw new IllegalArgumentException("is not valid gzip (" + reason + ")", e);
    }
  }

  private static void writeIntLe(ByteArrayOutputStream out, int value) {
    out.write(value & 0xff);
    out.write((value >>> 8) & 0xff);
    out.write((value >>> 16) & 0xff);
    out.write((value >>> 24) & 0xff);
  }
}
