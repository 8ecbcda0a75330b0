package dev.strata.engine.text;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link ByteSize} computes in {@code long}s what {@link BigDecimal} computes: every method against
 * the {@code BigDecimal} formula it replaced, on the edges of each unit and rounding step and on
 * random sizes of every magnitude, negative ones among them. The examples people read: {@code
 * ByteSizeAndWrapTest}.
 */
class ByteSizeTest {
  private static final BigDecimal GIB = BigDecimal.valueOf(1L << 30);
  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

  static String gib(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 2, RoundingMode.HALF_UP).toPlainString();
  }

  static String gibUp(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 1, RoundingMode.CEILING).toPlainString();
  }

  /**
   * The replaced formula, its unit found by magnitude rather than by a loop: the largest power of
   * 1024 not above the size (at most TiB), then the same {@code BigDecimal} division and the same
   * step up when the rounded figure reaches 1024.
   */
  static String iec(long bytes) {
    if (bytes < 0) {
      return "-" + iec(bytes == Long.MIN_VALUE ? Long.MAX_VALUE : -bytes);
    }
    if (bytes < 1024) {
      return bytes + " B";
    }
    int unit = Math.min(UNITS.length - 1, (63 - Long.numberOfLeadingZeros(bytes)) / 10 - 1);
    BigDecimal divisor = BigDecimal.valueOf(2).pow(10 * (unit + 1));
    BigDecimal v =
        BigDecimal.valueOf(bytes).divide(divisor, unit < 2 ? 1 : 2, RoundingMode.HALF_UP);
    boolean stepUp = unit < UNITS.length - 1 && v.compareTo(BigDecimal.valueOf(1024)) >= 0;
    return stepUp ? iec(1L << (10 * (unit + 2))) : v.toPlainString() + " " + UNITS[unit];
  }

  static List<Long> sizes() {
    List<Long> s = new ArrayList<>();
    long[] fixed = {0, 1, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1};
    for (long f : fixed) {
      s.add(f);
    }
    for (int p = 0; p <= 62; p++) {
      long b = 1L << p;
      for (long d = -3; d <= 3; d++) {
        s.add(b + d);
        s.add(-(b + d));
      }
      // the rounding steps near this power: x.x5 / x.xx5 of a unit, ± a byte
      for (long unit : new long[] {1L << 10, 1L << 20, 1L << 30, 1L << 40}) {
        for (long k : new long[] {5, 15, 25, 995, 9995, 1023 * 100 + 95, 1023 * 1000 + 995}) {
          long base = b / unit * unit;
          long step = unit * k / (k >= 1000 ? 1000 : 100);
          for (long d = -1; d <= 1; d++) {
            s.add(base + step + d);
            s.add(-(base + step + d));
          }
        }
      }
    }
    SplittableRandom r = new SplittableRandom(17);
    for (int i = 0; i < 20_000; i++) {
      long v = r.nextLong() >> r.nextInt(64);
      s.add(v);
    }
    return s;
  }

  @Test
  void gibIsBigDecimalsHalfUp() {
    for (long b : sizes()) {
      assertEquals(gib(b), ByteSize.gib(b), "gib(" + b + ")");
    }
  }

  @Test
  void gibUpIsBigDecimalsCeiling() {
    for (long b : sizes()) {
      assertEquals(gibUp(b), ByteSize.gibUp(b), "gibUp(" + b + ")");
    }
  }

  @Test
  void iecIsTheBigDecimalFormula() {
    for (long b : sizes()) {
      assertEquals(iec(b), ByteSize.iec(b), "iec(" + b + ")");
    }
  }
}
