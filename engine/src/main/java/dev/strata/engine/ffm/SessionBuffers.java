package dev.strata.engine.ffm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * A {@link Session}'s off-heap buffers, in its own shared arena and reused from call to call (grown
 * when a call needs more, never shrunk): the logits of the last eval ({@code rows × n_vocab}
 * floats), the ids passed to or returned by the engine (int32), the bytes of a token, a key or the
 * stats line, and the sampler's splitmix64 state. Freed with the session ({@link #close}).
 */
final class SessionBuffers implements AutoCloseable {

  /** One call that writes into a buffer: {@code (buffer, capacity) → the count it needs}. */
  @FunctionalInterface
  interface Fill {
    long call(MemorySegment buffer, long capacity) throws Throwable;
  }

  private final Arena arena = Arena.ofShared();
  private MemorySegment logits;
  private MemorySegment ids;
  private MemorySegment bytes;
  private final MemorySegment rng;

  SessionBuffers(int nVocab) {
    this.logits = arena.allocate(ValueLayout.JAVA_FLOAT, Math.max(1, nVocab));
    this.ids = arena.allocate(ValueLayout.JAVA_INT, 512);
    this.bytes = arena.allocate(256);
    this.rng = arena.allocate(ValueLayout.JAVA_LONG);
  }

  /** The logits buffer, with room for {@code floats} at least. */
  MemorySegment logits(long floats) {
    if (floats * Float.BYTES > logits.byteSize()) {
      logits = grow(logits, floats * Float.BYTES);
    }
    return logits;
  }

  /** The logits buffer as the last eval left it. */
  MemorySegment logits() {
    return logits;
  }

  /** The id buffer holding {@code values}. */
  MemorySegment ids(int[] values) {
    if ((long) values.length * Integer.BYTES > ids.byteSize()) {
      ids = grow(ids, (long) values.length * Integer.BYTES);
    }
    MemorySegment.copy(values, 0, ids, ValueLayout.JAVA_INT, 0, values.length);
    return ids;
  }

  /** The RNG state word. */
  MemorySegment rng() {
    return rng;
  }

  /**
   * Calls {@code f} with the byte buffer (capacity in bytes, {@code slack} of it kept for a NUL);
   * when the answer is more than it holds, grows it and calls again. Returns the answer.
   */
  long intoBytes(Fill f, long slack) throws Throwable {
    long n = f.call(bytes, bytes.byteSize());
    if (n + slack > bytes.byteSize()) {
      bytes = grow(bytes, n + slack);
      n = f.call(bytes, bytes.byteSize());
    }
    return n;
  }

  /** {@link #intoBytes} for the id buffer (capacity in ids); -1 when the answer is bad. */
  long intoIds(Fill f) throws Throwable {
    long n = f.call(ids, ids.byteSize() / Integer.BYTES);
    if (n > ids.byteSize() / Integer.BYTES) {
      ids = grow(ids, n * Integer.BYTES);
      n = f.call(ids, ids.byteSize() / Integer.BYTES);
    }
    return n < 0 || n > ids.byteSize() / Integer.BYTES ? -1 : n;
  }

  /** The first {@code n} ids of the id buffer. */
  int[] idsOf(long n) {
    return ids.asSlice(0, n * Integer.BYTES).toArray(ValueLayout.JAVA_INT);
  }

  /** The first {@code n} bytes of the byte buffer. */
  byte[] bytesOf(long n) {
    return bytes.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE);
  }

  /** The first {@code n} bytes (at most the buffer less its NUL) as UTF-8 text; "" for n ≤ 0. */
  String text(long n) {
    return n <= 0
        ? ""
        : new String(bytesOf(Math.min(n, bytes.byteSize() - 1)), StandardCharsets.UTF_8);
  }

  private MemorySegment grow(MemorySegment old, long atLeast) {
    long size = Math.max(atLeast, old.byteSize() * 2);
    return arena.allocate(size, Long.BYTES);
  }

  @Override
  public void close() {
    arena.close();
  }
}
