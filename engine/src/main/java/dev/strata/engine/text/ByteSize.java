package dev.strata.engine.text;

import java.math.BigDecimal;
import java.math.RoundingMode;

/**
 * Byte sizes for people, in ONE unit system: binary, with IEC prefixes (KiB = 1,024 B, MiB, GiB,
 * TiB) — the memory plan's GiB (docs/PLAN.md). Every size a user reads (wizard, plan, probe, model
 * summary, demo-model) goes through here, so no output mixes decimal GB with GiB.
 */
public final class ByteSize {
  private static final String[] UNITS = {"KiB", "MiB", "GiB", "TiB"};

  private ByteSize() {}

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
