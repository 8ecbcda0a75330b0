package dev.strata.engine.plan;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Units#count} writes what {@code String.format(Locale.ROOT, "%,d", n)} writes. */
class UnitsTest {
  @Test
  void countIsTheFormattersGrouping() {
    List<Long> values = new ArrayList<>();
    long p = 1;
    for (int i = 0; i < 19; i++) {
      for (long d : new long[] {-1, 0, 1}) {
        values.add(p + d);
        values.add(-(p + d));
      }
      p *= 10;
    }
    values.addAll(List.of(0L, 999L, 1_000L, 416_858_112L, Long.MAX_VALUE, Long.MIN_VALUE));
    SplittableRandom r = new SplittableRandom(17);
    for (int i = 0; i < 2_000; i++) {
      values.add(r.nextLong() >> r.nextInt(64));
    }
    for (long v : values) {
      assertEquals(String.format(Locale.ROOT, "%,d", v), Units.count(v), "count(" + v + ")");
    }
  }

  @Test
  void countExamples() {
    assertEquals("416,858,112", Units.count(416_858_112L));
    assertEquals("999", Units.count(999));
    assertEquals("-1,000", Units.count(-1_000));
  }
}
