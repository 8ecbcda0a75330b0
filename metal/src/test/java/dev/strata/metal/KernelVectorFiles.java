package dev.strata.metal;

import dev.strata.kernels.Fwht;
import dev.strata.testsupport.RepoRoot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared kernel vectors (kernels/src/test/resources/vectors, written by the Java reference) and
 * the parity rules the C++ harness applies: scales identical, codes identical except at a near-tie
 * (±1 code where the quantity being truncated or rounded lies within 1e-6 of the code range of a
 * boundary), decoded values within 1e-6 of the vector's largest value.
 */
final class KernelVectorFiles {

  static final int DIM = 256;

  final Path dir;
  final int cases;
  final float[] input;

  KernelVectorFiles(Path dir) throws IOException {
    this.dir = dir;
    this.input = floats(Files.readAllBytes(dir.resolve("input.f32")));
    this.cases = input.length / DIM;
  }

  static Path defaultDir() {
    return RepoRoot.resolve("kernels/src/test/resources/vectors");
  }

  byte[] records(String label) throws IOException {
    return Files.readAllBytes(dir.resolve(label + ".rec"));
  }

  float[] decoded(String label) throws IOException {
    return floats(Files.readAllBytes(dir.resolve(label + ".dec")));
  }

  static float[] floats(byte[] b) {
    float[] v = new float[b.length / 4];
    ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(v);
    return v;
  }

  static byte[] bytes(float[] v) {
    ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asFloatBuffer().put(v);
    return b.array();
  }

  /** What a comparison found. */
  record Result(long codes, long tieDifferences, long hardDifferences, long scaleDifferences) {
    boolean passes() {
      return hardDifferences == 0 && scaleDifferences == 0 && tieDifferences * 1000 <= codes;
    }
  }

  private static float fp16(byte[] r, int off) {
    return Float.float16ToFloat((short) ((r[off] & 0xff) | (r[off + 1] << 8)));
  }

  private static boolean nearTie(double t, double range, boolean truncating) {
    if (truncating) {
      double frac = t - Math.floor(t);
      return Math.min(frac, 1 - frac) <= 1e-6 * range;
    }
    double a = Math.abs(t);
    return Math.abs(a - Math.floor(a) - 0.5) <= 1e-6 * range;
  }

  /** Compares produced records of one format with the expected ones. */
  Result compareRecords(String label, byte[] got, byte[] want) {
    long codes = 0;
    long ties = 0;
    long hard = 0;
    long scales = 0;
    for (int c = 0; c < cases; c++) {
      switch (label) {
        case "q4_0" -> {
          double[] x = new double[DIM];
          for (int i = 0; i < DIM; i++) {
            x[i] = input[c * DIM + i];
          }
          Fwht.fwht256(x); // double precision: locates near-ties, never decides a code
          for (int b = 0; b < 8; b++) {
            int off = c * 144 + 18 * b;
            if (got[off] != want[off] || got[off + 1] != want[off + 1]) {
              scales++;
            }
            double m = 0;
            for (int j = 0; j < 32; j++) {
              if (Math.abs(x[b * 32 + j]) > Math.abs(m)) {
                m = x[b * 32 + j];
              }
            }
            double id = m != 0 ? -8 / m : 0;
            for (int j = 0; j < 32; j++) {
              int shift = j < 16 ? 0 : 4;
              int cg = (got[off + 2 + (j & 15)] >> shift) & 15;
              int cw = (want[off + 2 + (j & 15)] >> shift) & 15;
              codes++;
              if (cg != cw) {
                boolean tie = nearTie(x[b * 32 + j] * id + 8.5, 16, true) && Math.abs(cg - cw) == 1;
                if (tie) {
                  ties++;
                } else {
                  hard++;
                }
              }
            }
          }
        }
        case "int8" -> {
          int rec = DIM + 8;
          for (int g = 0; g < 4; g++) {
            int s = c * rec + DIM + 2 * g;
            if (got[s] != want[s] || got[s + 1] != want[s + 1]) {
              scales++;
            }
            float amax = 0;
            for (int j = 0; j < 64; j++) {
              amax = Math.max(amax, Math.abs(input[c * DIM + 64 * g + j]));
            }
            float d = amax / 127f;
            for (int j = 0; j < 64; j++) {
              int k = c * rec + 64 * g + j;
              codes++;
              if (got[k] != want[k]) {
                double t = d != 0 ? input[c * DIM + 64 * g + j] / (double) d : 0;
                if (nearTie(t, 127, false) && Math.abs(got[k] - want[k]) == 1) {
                  ties++;
                } else {
                  hard++;
                }
              }
            }
          }
        }
        default -> {
          for (int i = 0; i < 2 * DIM; i += 2) {
            codes++;
            int k = c * 2 * DIM + i;
            if (got[k] != want[k] || got[k + 1] != want[k + 1]) {
              hard++;
            }
          }
        }
      }
    }
    return new Result(codes, ties, hard, scales);
  }

  /** Decoded values: within 1e-6 of each vector's largest expected value; returns the failures. */
  long compareDecoded(float[] got, float[] want) {
    long bad = 0;
    for (int c = 0; c < cases; c++) {
      double max = 0;
      for (int i = 0; i < DIM; i++) {
        max = Math.max(max, Math.abs(want[c * DIM + i]));
      }
      for (int i = 0; i < DIM; i++) {
        if (Math.abs((double) got[c * DIM + i] - want[c * DIM + i]) > 1e-6 * max) {
          bad++;
        }
      }
    }
    return bad;
  }
}
