package dev.strata.engine.text;

import java.util.List;

/**
 * Byte sizes for people, in ONE unit system: binary, with IEC prefixes (KiB = 1,024 B, MiB, GiB,
 * TiB) — the memory plan's GiB (docs/PLAN.md). Every size a user reads (wizard, plan, probe, model
 * summary, demo-model, host diff) goes through here, so no output mixes decimal GB with GiB; the
 * memory plan's fixed-unit figures are {@link #gib} and {@link #gibUp}.
 *
 * <p>Exact decimal rounding in {@code long} arithmetic (the units are powers of two, so the integer
 * part, the remainder and the decimals are exact), with {@link java.math.BigDecimal}'s rounding
 * modes HALF_UP and CEILING and its plain strings: {@code ByteSizeTest} checks every method against
 * {@code BigDecimal.divide(…).toPlainString()} on edge and random sizes. Not {@code BigDecimal}
 * itself: its static initializer (JDK 25 builds big-integer tables, interpreted) cost {@code
 * strata-launch --dry-run}, which uses no other {@code BigDecimal}, tens of milliseconds of
 * start-up (docs/PERFORMANCE.md §2).
 */
public final class ByteSize {
  private static final long GIB = 1L << 30;

  /**
   * A figure in one fixed unit, with no unit written: {@code bytes / unit} with {@code decimals}
   * decimals, rounded half-up (away from zero) or, with {@code up}, up (towards +infinity). The
   * rule strata-ref formats its refusals by: {@code RulesDef} renders {@link #GIB_FIGURE} and
   * {@link #GIB_UP_FIGURE} and {@link #IEC_UNITS} into rules.def, and engine/native/src/figures.c
   * reads only those (FiguresParityTest formats the same sizes through both).
   *
   * @param unit bytes per unit, a power of two from 2 to 2^40
   * @param decimals 1 or 2
   */
  public record Figure(long unit, int decimals, boolean up) {
    public Figure {
      if (unit < 2 || unit > 1L << 40 || Long.bitCount(unit) != 1 || decimals < 1 || decimals > 2) {
        throw new IllegalArgumentException("unit a power of two to 2^40, 1 or 2 decimals: " + unit);
      }
    }

    /** {@code bytes} in this figure: {@code 10.67}. */
    public String format(long bytes) {
      return decimal(bytes, unit, decimals, up);
    }
  }

  /** {@link #gib}'s figure: GiB, two decimals, half-up. */
  public static final Figure GIB_FIGURE = new Figure(GIB, 2, false);

  /** {@link #gibUp}'s figure: GiB, one decimal, rounded up. */
  public static final Figure GIB_UP_FIGURE = new Figure(GIB, 1, true);

  /** A unit of {@link #iec}: its name and its figure. */
  public record IecUnit(String name, Figure figure) {}

  /**
   * {@link #iec}'s units, smallest first: KiB and MiB with one decimal, GiB and TiB with two, all
   * half-up; each is 1,024 of the one before. Sizes below the first are whole {@link #BYTES}.
   */
  public static final List<IecUnit> IEC_UNITS =
      List.of(
          new IecUnit("KiB", new Figure(1L << 10, 1, false)),
          new IecUnit("MiB", new Figure(1L << 20, 1, false)),
          new IecUnit("GiB", new Figure(GIB, 2, false)),
          new IecUnit("TiB", new Figure(1L << 40, 2, false)));

  /** {@link #iec}'s name of a size below a KiB. */
  public static final String BYTES = "B";

  private ByteSize() {}

  /**
   * The number of GiB with two decimals, rounded half-up, no unit: {@code 10.67}. For the memory
   * plan's figures, which are all in GiB (its table has a GiB column; docs/PLAN.md), so that rows
   * compare at a glance; a size on its own is {@link #iec}.
   */
  public static String gib(long bytes) {
    return GIB_FIGURE.format(bytes);
  }

  /**
   * {@link #gib} with one decimal, rounded up: a shortfall is never understated (one byte short
   * says 0.1, not 0.0).
   */
  public static String gibUp(long bytes) {
    return GIB_UP_FIGURE.format(bytes);
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
    if (bytes < IEC_UNITS.getFirst().figure().unit()) {
      return bytes + " " + BYTES;
    }
    int unit = 0;
    while (unit + 1 < IEC_UNITS.size() && bytes >= IEC_UNITS.get(unit + 1).figure().unit()) {
      unit++;
    }
    Figure f = IEC_UNITS.get(unit).figure();
    String v = f.format(bytes);
    if (unit + 1 < IEC_UNITS.size()) {
      long next = IEC_UNITS.get(unit + 1).figure().unit();
      if (Long.parseLong(v, 0, v.indexOf('.'), 10) >= next / f.unit()) {
        // 1023.96 MiB rounds to 1024.0: say 1.00 GiB instead
        return iec(next);
      }
    }
    return v + " " + IEC_UNITS.get(unit).name();
  }

  /**
   * {@code value / scale} with {@code decimals} decimals (1 or 2) as {@code
   * BigDecimal.valueOf(value).divide(BigDecimal.valueOf(scale), decimals, mode).toPlainString()}
   * prints it, mode HALF_UP or ({@code ceiling}) CEILING.
   *
   * @param scale a power of two, at most 2^40
   */
  private static String decimal(long value, long scale, int decimals, boolean ceiling) {
    boolean negative = value < 0;
    long magnitude = negative ? -value : value; // Long.MIN_VALUE stays 2^63 read unsigned
    long whole = Long.divideUnsigned(magnitude, scale);
    long rest = Long.remainderUnsigned(magnitude, scale);
    long tenths = decimals == 1 ? 10 : 100;
    long digits = rest * tenths / scale; // rest < 2^40: no overflow
    long left = rest * tenths % scale;
    boolean up = ceiling ? !negative && left > 0 : 2 * left >= scale; // HALF_UP: away from zero
    if (up && ++digits == tenths) {
      digits = 0;
      whole++;
    }
    String frac = Long.toString(digits);
    if (frac.length() < decimals) {
      frac = "0" + frac;
    }
    String sign = negative && (whole != 0 || digits != 0) ? "-" : "";
    return sign + Long.toUnsignedString(whole) + "." + frac;
  }
}
