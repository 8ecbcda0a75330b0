package dev.strata.engine.plan;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;

/** Formatting of byte figures for the plan's text: fixed locale, so the output never varies. */
final class Units {
  private static final BigDecimal GIB = BigDecimal.valueOf(UsableMemory.GIB);

  private Units() {}

  /** GiB with two decimals, rounded half-up: {@code 10.67}. */
  static String gib(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 2, RoundingMode.HALF_UP).toPlainString();
  }

  /**
   * GiB with one decimal, rounded up: a shortfall is never understated (one byte short says 0.1,
   * not 0.0).
   */
  static String gibUp(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 1, RoundingMode.CEILING).toPlainString();
  }

  /** An exact count with thousands separators: {@code 416,858,112}. */
  static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }
}
