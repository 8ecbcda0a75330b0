package dev.strata.engine.plan;

import java.math.BigDecimal;
import java.math.RoundingMode;

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

  /**
   * An exact count with thousands separators: {@code 416,858,112}, as {@code String.format(
   * Locale.ROOT, "%,d", n)} (UnitsTest compares them), without the formatter, whose first use costs
   * a short command several milliseconds (docs/PERFORMANCE.md).
   */
  static String count(long n) {
    String digits = Long.toString(n);
    int sign = n < 0 ? 1 : 0;
    int len = digits.length() - sign;
    StringBuilder b = new StringBuilder(digits.length() + len / 3);
    b.append(digits, 0, sign);
    for (int i = 0; i < len; i++) {
      if (i > 0 && (len - i) % 3 == 0) {
        b.append(',');
      }
      b.append(digits.charAt(sign + i));
    }
    return b.toString();
  }
}
