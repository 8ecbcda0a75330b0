package dev.strata.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class Fp16Test {

  private static int bits(float v) {
    return Fp16.fromFloat(v) & 0xffff;
  }

  @Test
  void roundsToNearestEvenIncludingSubnormalsAndOverflow() {
    assertEquals(0x3c00, bits(1.0f));
    assertEquals(0x2e66, bits(0.1f));
    assertEquals(0x7bff, bits(65504f));
    assertEquals(0x7bff, bits(65519.99f));
    assertEquals(0x7c00, bits(65520f)); // the tie above 65504 goes to the even neighbour: infinity
    assertEquals(0x0400, bits(0x1p-14f)); // smallest normal
    assertEquals(0x0001, bits(0x1p-24f)); // smallest subnormal
    assertEquals(0x0000, bits(0x1p-25f)); // tie with zero: even
    assertEquals(0x0001, bits(0x1.8p-25f));
    assertEquals(0x0002, bits(0x1.8p-24f)); // 1.5 ulp: tie, to even (2)
    assertEquals(0x0003, bits(0x1.8p-23f)); // exactly 3 ulp
    assertEquals(0x0002, bits(0x1.4p-23f)); // 2.5 ulp: tie, to even (2)
    assertEquals(0x0005, bits(0x1.4p-22f)); // exactly 5 ulp
    assertEquals(0x8000, bits(-0.0f));
    assertEquals(0x3c00, bits(1.0f + 0x1p-11f)); // tie at 1 + half ulp: even (1.0)
    assertEquals(0x3c02, bits(1.0f + 3 * 0x1p-11f)); // tie at 1 + 1.5 ulp: even (1 + 2 ulp)
  }

  @Test
  void everyHalfRoundTrips() {
    for (int h = 0; h < 0x10000; h++) {
      float f = Fp16.toFloat((short) h);
      if (!Float.isNaN(f)) {
        assertEquals(h, Fp16.fromFloat(f) & 0xffff, "half " + Integer.toHexString(h));
      }
    }
  }
}
