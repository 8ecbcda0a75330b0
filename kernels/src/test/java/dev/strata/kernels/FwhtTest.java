package dev.strata.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FwhtTest {

  @Test
  void matrixIsOrthonormal() {
    double[][] h = new double[Fwht.N][];
    for (int i = 0; i < Fwht.N; i++) {
      h[i] = new double[Fwht.N];
      h[i][i] = 1.0;
      Fwht.fwht256(h[i]);
    }
    for (int i = 0; i < Fwht.N; i++) {
      for (int k = 0; k < Fwht.N; k++) {
        double dot = 0;
        for (int j = 0; j < Fwht.N; j++) {
          dot += h[i][j] * h[k][j];
        }
        assertEquals(i == k ? 1.0 : 0.0, dot, 1e-12, "row " + i + " · row " + k);
      }
    }
  }

  @Test
  void sylvesterOrder() {
    // H[i][j] = (-1)^popcount(i & j) / 16: the natural (Sylvester) ordering
    for (int i = 0; i < Fwht.N; i += 37) {
      double[] e = new double[Fwht.N];
      e[i] = 1.0;
      Fwht.fwht256(e);
      for (int j = 0; j < Fwht.N; j++) {
        assertEquals((Integer.bitCount(i & j) % 2 == 0 ? 1 : -1) / 16.0, e[j], 0.0);
      }
    }
  }

  @Test
  void floatVersionIsItsOwnInverseAndMatchesDouble() {
    Random rnd = new Random(7);
    for (int t = 0; t < 50; t++) {
      float[] x = new float[Fwht.N];
      double[] xd = new double[Fwht.N];
      double norm = 0;
      for (int i = 0; i < Fwht.N; i++) {
        x[i] = (float) (rnd.nextGaussian() * Math.pow(10, t % 7 - 3));
        xd[i] = x[i];
        norm = Math.max(norm, Math.abs(x[i]));
      }
      float[] y = x.clone();
      Fwht.fwht256(y);
      Fwht.fwht256(xd);
      for (int i = 0; i < Fwht.N; i++) {
        assertEquals(xd[i], y[i], 1e-6 * norm, "rotation vs double at " + i);
      }
      Fwht.fwht256(y);
      for (int i = 0; i < Fwht.N; i++) {
        assertEquals(x[i], y[i], 1e-6 * norm, "twice is identity at " + i);
      }
    }
  }

  @Test
  void rejectsOtherLengths() {
    assertThrows(IllegalArgumentException.class, () -> Fwht.fwht256(new float[128]));
  }
}
