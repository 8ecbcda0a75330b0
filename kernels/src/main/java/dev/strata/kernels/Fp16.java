package dev.strata.kernels;

/**
 * IEEE binary16 conversions: float to half rounds to nearest even, exactly, subnormals included (as
 * Metal's {@code half(x)} and metal_shim.h's {@code half} do); half to float is exact.
 */
public final class Fp16 {

  private Fp16() {}

  /** The binary16 bits of v, round to nearest even. */
  public static short fromFloat(float v) {
    return Float.floatToFloat16(v);
  }

  public static float toFloat(short bits) {
    return Float.float16ToFloat(bits);
  }

  /** Writes the bits little-endian, as every record stores them. */
  static void put(byte[] dst, int off, float v) {
    short h = fromFloat(v);
    dst[off] = (byte) h;
    dst[off + 1] = (byte) (h >> 8);
  }

  static float get(byte[] src, int off) {
    return toFloat((short) ((src[off] & 0xff) | (src[off + 1] << 8)));
  }
}
