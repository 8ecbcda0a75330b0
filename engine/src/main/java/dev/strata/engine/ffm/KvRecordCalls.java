package dev.strata.engine.ffm;

import dev.strata.engine.kv.KvFormat;
import dev.strata.engine.libc.NativeCalls;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The ABI's KV record functions ({@code strata_kv_cell_bytes}, {@code strata_kv_encode}, {@code
 * strata_kv_decode}; docs/ENGINE-ABI.md) bound for {@link NativeEngine}: the vector records the
 * engine's pools hold, encoded and decoded by the engine's own code (strata-ref: the kernels').
 */
final class KvRecordCalls {
  /**
   * {@code int f(int format, const void *src, size_t n_vectors, int head_dim, void *dst)}:
   * strata_kv_encode and strata_kv_decode.
   */
  private static final FunctionDescriptor KV_FN =
      FunctionDescriptor.of(
          ValueLayout.JAVA_INT,
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS,
          NativeEngine.SIZE_T,
          ValueLayout.JAVA_INT,
          ValueLayout.ADDRESS);

  /**
   * Bytes of one cell: K and V records of every KV head of one layer (docs/ENGINE-CONTRACT.md, KV
   * formats).
   */
  long cellBytes(KvFormat format, int kvHeads, int headDim) {
    long n;
    try {
      n = (long) cellBytes.invokeExact(format.id(), kvHeads, headDim);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
    if (n == 0) {
      throw new IllegalArgumentException(
          "the engine has no "
              + format.flagName()
              + " cell for "
              + kvHeads
              + " heads of "
              + headDim);
    }
    return n;
  }

  /**
   * Encodes {@code src.length / headDim} head vectors into vector records ({@code
   * strata_kv_encode}).
   */
  byte[] encode(KvFormat format, float[] src, int headDim) {
    long rec = recordBytes(format, headDim);
    long n = whole(src.length, headDim, "value", "vectors");
    try (Arena a = Arena.ofConfined()) {
      MemorySegment in = a.allocateFrom(ValueLayout.JAVA_FLOAT, src);
      return kv(encode, "strata_kv_encode", format, headDim, a, in, n, n * rec)
          .toArray(ValueLayout.JAVA_BYTE);
    }
  }

  /** Decodes whole vector records back to floats ({@code strata_kv_decode}). */
  float[] decode(KvFormat format, byte[] src, int headDim) {
    long rec = recordBytes(format, headDim);
    long n = whole(src.length, rec, "byte", "records");
    try (Arena a = Arena.ofConfined()) {
      MemorySegment in = a.allocateFrom(ValueLayout.JAVA_BYTE, src);
      return kv(decode, "strata_kv_decode", format, headDim, a, in, n, n * headDim * Float.BYTES)
          .toArray(ValueLayout.JAVA_FLOAT);
    }
  }

  /**
   * One {@code strata_kv_encode} or {@code strata_kv_decode} call over n vectors: {@code outBytes}
   * of output in {@code a}, returned.
   */
  private static MemorySegment kv(
      MethodHandle fn,
      String fnName,
      KvFormat format,
      int headDim,
      Arena a,
      MemorySegment in,
      long n,
      long outBytes) {
    MemorySegment out = a.allocate(Math.max(1, outBytes), Float.BYTES);
    int rc;
    try {
      rc = (int) fn.invokeExact(format.id(), in, n, headDim, out);
    } catch (Throwable t) {
      throw NativeCalls.rethrow(t);
    }
    check(rc, fnName, format, headDim);
    return out.asSlice(0, outBytes);
  }

  /**
   * How many {@code per}-{@code unit} {@code items} {@code length} units hold ("512 values are a
   * whole number of 256-value vectors").
   *
   * @throws IllegalArgumentException when they are not a whole number
   */
  private static long whole(long length, long per, String unit, String items) {
    if (length % per != 0) {
      throw new IllegalArgumentException(
          length + " " + unit + "s are not a whole number of " + per + "-" + unit + " " + items);
    }
    return length / per;
  }

  private static long recordBytes(KvFormat format, int headDim) {
    if (format == KvFormat.K8V4) {
      throw new IllegalArgumentException("k8v4 has no single vector record (K is int8, V q4_0)");
    }
    return format.kRecordBytes(headDim);
  }

  private static void check(int rc, String fn, KvFormat format, int headDim) {
    if (rc != 0) {
      throw new IllegalArgumentException(
          fn
              + " refused "
              + format.flagName()
              + " with head_dim "
              + headDim
              + " (error "
              + rc
              + ")");
    }
  }

  private final MethodHandle cellBytes;
  private final MethodHandle encode;
  private final MethodHandle decode;

  KvRecordCalls(LibraryLoader.Loaded lib) {
    this.cellBytes =
        lib.downcall(
            "strata_kv_cell_bytes",
            FunctionDescriptor.of(
                NativeEngine.SIZE_T,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT,
                ValueLayout.JAVA_INT));
    this.encode = lib.downcall("strata_kv_encode", KV_FN);
    this.decode = lib.downcall("strata_kv_decode", KV_FN);
  }
}
