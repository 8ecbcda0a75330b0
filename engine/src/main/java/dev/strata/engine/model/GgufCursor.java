package dev.strata.engine.model;

import dev.strata.engine.model.GgufException.Kind;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SeekableByteChannel;
import java.util.function.Supplier;

/**
 * A bounded, buffered little-endian reader over one file's channel, what {@link GgufParser} reads
 * the header with: every read checks the bytes left first (a truncated file is said as such, with
 * how many bytes are missing), and a file that shrinks while it is read is said too. Every failure
 * is a {@link GgufException} naming the file.
 */
abstract class GgufCursor {
  private final SeekableByteChannel ch;
  final String name;
  private final ByteBuffer buf;

  /** The file's size in bytes, when the reading began. */
  final long size;

  private long bufStart;

  /** The offset of the next byte read. */
  long pos;

  GgufCursor(SeekableByteChannel ch, String name) throws IOException {
    this.ch = ch;
    this.name = name;
    this.size = ch.size();
    // headers are read in 64 KiB windows; a smaller file needs no more than itself
    int capacity = (int) Math.max(8, Math.min(64 * 1024, size));
    this.buf = ByteBuffer.allocate(capacity).order(ByteOrder.LITTLE_ENDIAN);
    buf.limit(0);
  }

  /** The next {@code len} bytes (checked against the bytes left: {@link #need}). */
  byte[] bytes(int len, String what) throws IOException {
    byte[] bytes = new byte[len];
    if (len <= buf.capacity()) {
      raw(len, what).get(bytes);
    } else {
      need(len, what);
      ByteBuffer dst = ByteBuffer.wrap(bytes);
      ch.position(pos);
      while (dst.hasRemaining()) {
        if (ch.read(dst) <= 0) {
          throw shrunk(what);
        }
      }
      pos += len;
    }
    return bytes;
  }

  long u32(String what) throws IOException {
    return u32(() -> what);
  }

  /** {@code what} names the field in a message; built only when there is one. */
  long u32(Supplier<String> what) throws IOException {
    return Integer.toUnsignedLong(raw(4, what).getInt());
  }

  long u64(String what) throws IOException {
    return u64(() -> what);
  }

  long u64(Supplier<String> what) throws IOException {
    return raw(8, what).getLong();
  }

  void skip(long n, String what) {
    need(n, what);
    pos += n;
  }

  void need(long n, String what) {
    need(n, () -> what);
  }

  void need(long n, Supplier<String> what) {
    if (n > size - pos) {
      throw fail(
          Kind.TRUNCATED,
          "ends at byte "
              + size
              + " inside "
              + what.get()
              + " (needs "
              + (n - (size - pos))
              + " more bytes): the file is truncated; download it again");
    }
  }

  /** The buffer positioned at {@code pos} with n (≤ buffer size) bytes readable; advances pos. */
  ByteBuffer raw(int n, String what) throws IOException {
    return raw(n, () -> what);
  }

  ByteBuffer raw(int n, Supplier<String> what) throws IOException {
    need(n, what);
    if (pos < bufStart || pos + n > bufStart + buf.limit()) {
      buf.clear();
      ch.position(pos);
      while (buf.hasRemaining()) {
        if (ch.read(buf) <= 0) {
          break;
        }
      }
      buf.flip();
      bufStart = pos;
      if (buf.limit() < n) {
        throw shrunk(what.get());
      }
    }
    buf.position((int) (pos - bufStart));
    pos += n;
    return buf;
  }

  GgufException shrunk(String what) {
    return fail(Kind.TRUNCATED, "became shorter while being read (at " + what + "); try again");
  }

  GgufException fail(Kind kind, String detail) {
    return new GgufException(kind, name, detail);
  }
}
