package dev.strata.engine.text;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Byte sizes for people, in ONE unit system: binary, with IEC prefixes (KiB = 1,024 B, MiB, GiB,
 * TiB) — the memory plan's GiB (docs/PLAN.md). Every size a user reads (wizard, plan, probe, model
 * summary, demo-model, host diff) goes through here, so no output mixes decimal GB with GiB; the
 * memory plan's fixed-unit figures are {@link #gib} and {@link #gibUp}.
 */
public final class ByteSize {
  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

  private ByteSize() {}

  private static final BigDecimal GIB = BigDecimal.valueOf(1L << 30);

  /**
   * The number of GiB with two decimals, rounded half-up, no unit: {@code 10.67}. For the memory
   * plan's figures, which are all in GiB (its table has a GiB column; docs/PLAN.md), so that rows
   * compare at a glance; a size on its own is {@link #iec}.
   */
  public static String gib(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 2, RoundingMode.HALF_UP).toPlainString();
  }

  /**
   * {@link #gib} with one decimal, rounded up: a shortfall is never understated (one byte short
   * says 0.1, not 0.0).
   */
  public static String gibUp(long bytes) {
    return BigDecimal.valueOf(bytes).divide(GIB, 1, RoundingMode.CEILING).toPlainString();
  }

  /**
   * Scaled to the largest unit not above the size: {@code 812 B}, {@code 88.0 KiB}, {@code 397.5
   * MiB}, {@code 2.48 GiB}. Bytes as an integer; KiB and MiB with one decimal; GiB and TiB with
   * two; rounded half-up, fixed locale. Negative sizes get a leading minus.
   */
  public static String iec(long bytes) {
    if (bytes < 0) {
      return "-" + iec(bytes == Long.MIN_VALUE ? Long.MAX_VALUE : -bytes);
    }
    if (bytes < 1024) {
      return bytes + " B";
    }
    int unit = 0;
    long scale = 1024;
    while (unit + 1 < UNITS.length && bytes >= scale * 1024) {
      scale *= 1024;
      unit++;
    }
    int decimals = unit >= 2 ? 2 : 1;
    BigDecimal v =
        BigDecimal.valueOf(bytes).divide(BigDecimal.valueOf(scale), decimals, RoundingMode.HALF_UP);
    if (unit + 1 < UNITS.length && v.compareTo(BigDecimal.valueOf(1024)) >= 0) {
      // 1023.96 MiB rounds to 1024.0: say 1.00 GiB instead
      return iec(scale * 1024);
    }
    return v.toPlainString() + " " + UNITS[unit];
  }
}
