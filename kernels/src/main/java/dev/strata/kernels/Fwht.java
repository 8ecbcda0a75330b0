package dev.strata.kernels;

/**
 * FWHT-256: the Sylvester-ordered Walsh–Hadamard transform over one 256-value head vector, scaled
 * by 1/16 so that it is orthonormal and its own inverse (docs/ENGINE-CONTRACT.md, KV formats).
 *
 * <p>The float version performs exactly the kernel's operations in the kernel's order (radix-4
 * passes over strides 1·2, 4·8, 16·32, 64·128, the 1/16 folded into the last pass), so a CPU build
 * of kv_kernels.metal matches it bit for bit. The double version is the mathematical reference.
 */
public final class Fwht {

  public static final int N = 256;

  private Fwht() {}

  /** In place, double precision. */
  public static void fwht256(double[] x) {
    check(x.length);
    for (int h = 1; h < N; h <<= 1) {
      for (int i = 0; i < N; i += 2 * h) {
        for (int j = i; j < i + h; j++) {
          double a = x[j];
          double b = x[j + h];
          x[j] = a + b;
          x[j + h] = a - b;
        }
      }
    }
    for (int i = 0; i < N; i++) {
      x[i] /= 16.0;
    }
  }

  /** In place, float, operation for operation as kv_kernels.metal's fwht256. */
  public static void fwht256(float[] x) {
    check(x.length);
    pass(x, 1, 1.0f);
    pass(x, 4, 1.0f);
    pass(x, 16, 1.0f);
    pass(x, 64, 0.0625f);
  }

  private static void pass(float[] x, int h, float scale) {
    for (int i = 0; i < N; i += 4 * h) {
      for (int j = i; j < i + h; j++) {
        float a = x[j];
        float b = x[j + h];
        float c = x[j + 2 * h];
        float d = x[j + 3 * h];
        float ab = a + b;
        float amb = a - b;
        float cd = c + d;
        float cmd = c - d;
        x[j] = (ab + cd) * scale;
        x[j + h] = (amb + cmd) * scale;
        x[j + 2 * h] = (ab - cd) * scale;
        x[j + 3 * h] = (amb - cmd) * scale;
      }
    }
  }

  private static void check(int length) {
    if (length != N) {
      throw new IllegalArgumentException("FWHT-256 needs 256 values, got " + length);
    }
  }
}
