package dev.strata.kernels;

/**
 * The Java reference of the KV kernels (docs/ENGINE-CONTRACT.md, KV formats): what kv_kernels.metal
 * computes, written plainly. q4_0 follows llama.cpp's {@code quantize_row_q4_0_ref} after the
 * FWHT-256 rotation; int8 keeps one fp16 scale per 64 values. Records are laid out exactly as the C
 * ABI and the Metal pools hold them.
 */
public final class KvReference {

  private KvReference() {}

  /**
   * Encodes nVectors head vectors of headDim floats (src from offset 0) into records.
   *
   * @throws IllegalArgumentException when headDim does not fit the format or src is too short
   */
  public static byte[] encode(RecordFormat format, float[] src, int nVectors, int headDim) {
    int rec = format.recordBytes(headDim);
    requireLength(src.length, (long) nVectors * headDim, "src");
    byte[] dst = new byte[Math.multiplyExact(nVectors, rec)];
    for (int v = 0; v < nVectors; v++) {
      switch (format) {
        case FP16 -> encodeFp16(src, v * headDim, headDim, dst, v * rec);
        case INT8 -> encodeInt8(src, v * headDim, headDim, dst, v * rec);
        case Q4_0 -> encodeQ4(src, v * headDim, dst, v * rec);
      }
    }
    return dst;
  }

  /** Decodes nVectors records into nVectors × headDim floats. */
  public static float[] decode(RecordFormat format, byte[] src, int nVectors, int headDim) {
    int rec = format.recordBytes(headDim);
    requireLength(src.length, (long) nVectors * rec, "src");
    float[] dst = new float[Math.multiplyExact(nVectors, headDim)];
    for (int v = 0; v < nVectors; v++) {
      switch (format) {
        case FP16 -> decodeFp16(src, v * rec, headDim, dst, v * headDim);
        case INT8 -> decodeInt8(src, v * rec, headDim, dst, v * headDim);
        case Q4_0 -> decodeQ4(src, v * rec, dst, v * headDim);
      }
    }
    return dst;
  }

  // ---- q4_0 --------------------------------------------------------------------------------

  /** One q4_0 record: rotate, then quantize the 8 blocks. */
  public static void encodeQ4(float[] src, int srcOff, byte[] dst, int dstOff) {
    float[] x = new float[Fwht.N];
    System.arraycopy(src, srcOff, x, 0, Fwht.N);
    Fwht.fwht256(x);
    quantizeQ4Blocks(x, 0, Fwht.N, dst, dstOff);
  }

  /** One q4_0 record back: dequantize the 8 blocks, then rotate back. */
  public static void decodeQ4(byte[] src, int srcOff, float[] dst, int dstOff) {
    float[] x = new float[Fwht.N];
    dequantizeQ4Blocks(src, srcOff, x, 0, Fwht.N);
    Fwht.fwht256(x);
    System.arraycopy(x, 0, dst, dstOff, Fwht.N);
  }

  /**
   * llama.cpp {@code quantize_row_q4_0_ref} over n values (a multiple of 32), without any rotation:
   * per block the value m with the largest |x| (first on a tie), d = m / −8 stored as fp16, codes
   * min(15, (int)(x · (1/d) + 8.5)), value j in the low nibble of byte j, value j+16 in the high.
   */
  public static void quantizeQ4Blocks(float[] x, int off, int n, byte[] dst, int dstOff) {
    int bs = RecordFormat.Q4_BLOCK;
    for (int b = 0; b < n / bs; b++) {
      int base = off + b * bs;
      float amax = 0.0f;
      float max = 0.0f;
      for (int j = 0; j < bs; j++) {
        float v = x[base + j];
        if (amax < Math.abs(v)) {
          amax = Math.abs(v);
          max = v;
        }
      }
      float d = max / -8;
      float id = d != 0.0f ? 1.0f / d : 0.0f;
      int out = dstOff + b * RecordFormat.Q4_BLOCK_BYTES;
      Fp16.put(dst, out, d);
      for (int j = 0; j < bs / 2; j++) {
        int q0 = Math.min(15, (int) (x[base + j] * id + 8.5f));
        int q1 = Math.min(15, (int) (x[base + j + bs / 2] * id + 8.5f));
        dst[out + 2 + j] = (byte) (q0 | (q1 << 4));
      }
    }
  }

  /** The inverse of {@link #quantizeQ4Blocks}: (code − 8) · d. */
  public static void dequantizeQ4Blocks(byte[] src, int srcOff, float[] x, int off, int n) {
    int bs = RecordFormat.Q4_BLOCK;
    for (int b = 0; b < n / bs; b++) {
      int in = srcOff + b * RecordFormat.Q4_BLOCK_BYTES;
      float d = Fp16.get(src, in);
      for (int j = 0; j < bs / 2; j++) {
        int q = src[in + 2 + j] & 0xff;
        x[off + b * bs + j] = (float) ((q & 15) - 8) * d;
        x[off + b * bs + j + bs / 2] = (float) ((q >> 4) - 8) * d;
      }
    }
  }

  // ---- int8 --------------------------------------------------------------------------------

  /** headDim codes round(x/d), then headDim/64 fp16 scales d = amax/127. */
  public static void encodeInt8(float[] src, int srcOff, int headDim, byte[] dst, int dstOff) {
    int gs = RecordFormat.INT8_GROUP;
    for (int g = 0; g < headDim / gs; g++) {
      int base = srcOff + g * gs;
      float amax = 0.0f;
      for (int j = 0; j < gs; j++) {
        amax = Math.max(amax, Math.abs(src[base + j]));
      }
      float d = amax / 127.0f;
      for (int j = 0; j < gs; j++) {
        float q = d != 0.0f ? roundHalfAway(src[base + j] / d) : 0.0f;
        dst[dstOff + g * gs + j] = (byte) (int) q;
      }
      Fp16.put(dst, dstOff + headDim + 2 * g, d);
    }
  }

  public static void decodeInt8(byte[] src, int srcOff, int headDim, float[] dst, int dstOff) {
    int gs = RecordFormat.INT8_GROUP;
    for (int g = 0; g < headDim / gs; g++) {
      float d = Fp16.get(src, srcOff + headDim + 2 * g);
      for (int j = 0; j < gs; j++) {
        dst[dstOff + g * gs + j] = (float) src[srcOff + g * gs + j] * d;
      }
    }
  }

  /** C's roundf: halves away from zero. */
  static float roundHalfAway(float v) {
    float t = v < 0 ? (float) Math.ceil(v) : (float) Math.floor(v);
    float r = v - t;
    if (r >= 0.5f) {
      t += 1.0f;
    }
    if (r <= -0.5f) {
      t -= 1.0f;
    }
    return t;
  }

  // ---- fp16 --------------------------------------------------------------------------------

  public static void encodeFp16(float[] src, int srcOff, int headDim, byte[] dst, int dstOff) {
    for (int i = 0; i < headDim; i++) {
      Fp16.put(dst, dstOff + 2 * i, src[srcOff + i]);
    }
  }

  public static void decodeFp16(byte[] src, int srcOff, int headDim, float[] dst, int dstOff) {
    for (int i = 0; i < headDim; i++) {
      dst[dstOff + i] = Fp16.get(src, srcOff + 2 * i);
    }
  }

  private static void requireLength(int have, long need, String what) {
    if (have < need) {
      throw new IllegalArgumentException(what + " holds " + have + " values, needs " + need);
    }
  }
}
