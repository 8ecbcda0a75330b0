package dev.strata.engine.model;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Seeded tensor data for small test models that an engine really computes ({@link TinyModel}):
 * weights drawn uniform in [-0.1, 0.1), 1-D tensors (norms, biases) near 1, each tensor from its
 * own stream (the seed and its name), so a model's bytes do not depend on how it is split into
 * shards. F32, F16, Q8_0 and Q4_0 are filled; any other type stays zeros.
 */
final class SeededData {
  private SeededData() {}

  /** Largest tensor filled (small test models only). */
  static final long MAX_BYTES = 64L << 20;

  static byte[] of(GgufWriter.Tensor t, long seed) {
    long bytes = t.bytes();
    if (bytes > MAX_BYTES) {
      throw new IllegalArgumentException("a " + bytes + "-byte tensor is not a small test tensor");
    }
    SplittableRandom r = new SplittableRandom(seed ^ ((long) t.name().hashCode() << 32));
    ByteBuffer b = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
    long values = 1;
    for (long d : t.dims()) {
      values *= d;
    }
    boolean vector = t.dims().size() == 1;
    switch (t.type()) {
      case F32 -> {
        for (long i = 0; i < values; i++) {
          b.putFloat(value(r, vector));
        }
      }
      case F16 -> {
        for (long i = 0; i < values; i++) {
          b.putShort(Float.floatToFloat16(value(r, vector)));
        }
      }
      case Q8_0 -> {
        // per block of 32: fp16 d, then 32 int8 codes (value = d × code)
        for (long k = 0; k < values / 32; k++) {
          b.putShort(Float.floatToFloat16(0.1f / 127));
          for (int j = 0; j < 32; j++) {
            b.put((byte) (r.nextInt(255) - 127));
          }
        }
      }
      case Q4_0 -> {
        // per block of 32: fp16 d, then 16 bytes of nibbles (value = d × (nibble - 8))
        for (long k = 0; k < values / 32; k++) {
          b.putShort(Float.floatToFloat16(0.1f / 8));
          for (int j = 0; j < 16; j++) {
            b.put((byte) r.nextInt(256));
          }
        }
      }
      default -> {
        // zeros
      }
    }
    return b.array();
  }

  private static float value(SplittableRandom r, boolean vector) {
    float w = (float) (r.nextDouble() * 0.2 - 0.1);
    return vector ? 1 + w : w;
  }
}
