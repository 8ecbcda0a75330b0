package dev.strata.engine.plan;

/**
 * Counts in the plan's text: fixed locale, so the output never varies. Byte figures are {@link
 * dev.strata.engine.text.ByteSize}'s.
 */
final class Units {
  private Units() {}

  /** {@link #count}'s thousands separator... */
  static final char SEPARATOR = ',';

  /** ...between groups of this many digits (rules.def carries both to strata-ref's figures.c). */
  static final int GROUP = 3;

  /**
   * An exact count with thousands separators: {@code 416,858,112}, as {@code String.format(
   * Locale.ROOT, "%,d", n)} (UnitsTest compares them), without the formatter, whose first use costs
   * a short command several milliseconds (docs/PERFORMANCE.md).
   */
  static String count(long n) {
    String digits = Long.toString(n);
    int sign = n < 0 ? 1 : 0;
    int len = digits.length() - sign;
    StringBuilder b = new StringBuilder(digits.length() + len / GROUP);
    b.append(digits, 0, sign);
    for (int i = 0; i < len; i++) {
      if (i > 0 && (len - i) % GROUP == 0) {
        b.append(SEPARATOR);
      }
      b.append(digits.charAt(sign + i));
    }
    return b.toString();
  }
}
