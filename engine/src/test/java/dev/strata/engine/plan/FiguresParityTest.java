package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.strata.engine.text.ByteSize;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * strata-ref formats a refused plan's figures with the parameters rules.def carries ({@link
 * ByteSize.Figure}, {@link ByteSize#IEC_UNITS}, {@link Units#count}) but its own integer steps
 * (engine/native/src/figures.c): the compiled engine's formatter ({@code ref_selftest --figures})
 * and Java's must write the same text for the same size, at every rounding edge (the half and the
 * ceiling of each hundredth and tenth of a GiB, whole GiB, digit-group boundaries, the step from
 * one IEC unit to the next) and on random sizes up to 2^63 − 1.
 */
class FiguresParityTest {
  static List<Long> sizes() {
    List<Long> v = new ArrayList<>();
    long gib = 1L << 30;
    for (long whole : new long[] {0, 1, 9, 10, 99, 1023, 1024, 123_456}) {
      for (int k = 0; k <= 100; k++) {
        long base = whole * gib + k * gib / 100; // each hundredth (floor), and its half-way point
        long half = whole * gib + (2L * k + 1) * gib / 200;
        for (long d = -1; d <= 1; d++) {
          v.add(Math.max(0, base + d));
          v.add(Math.max(0, half + d));
        }
      }
    }
    long p = 1;
    for (int i = 0; i < 19; i++) {
      v.add(p - 1);
      v.add(p);
      p *= 10;
    }
    for (int i = 0; i < 63; i++) {
      v.add((1L << i) - 1);
      v.add(1L << i);
      // just below the next IEC unit, where 1023.96 MiB must read 1.00 GiB
      v.add(Math.max(0, (1L << i) - (1L << i) / 2048));
      v.add(Math.max(0, (1L << i) - (1L << i) / 2048 - 1));
    }
    v.add(Long.MAX_VALUE);
    SplittableRandom r = new SplittableRandom(33);
    for (int i = 0; i < 2_000; i++) {
      v.add((r.nextLong() >>> 1) >>> r.nextInt(63));
    }
    return v;
  }

  @Test
  void theEnginesFiguresAreJavas() throws Exception {
    List<Long> sizes = sizes();
    List<String> lines = SelfTestProbe.ask("figures", sizes.stream().map(String::valueOf).toList());
    for (int i = 0; i < sizes.size(); i++) {
      long s = sizes.get(i);
      String java =
          String.join("\t", ByteSize.gib(s), ByteSize.gibUp(s), Units.count(s), ByteSize.iec(s));
      assertEquals(java, lines.get(i), "size " + s + ": Java gib, gibUp, count, iec; strata-ref's");
    }
  }
}
