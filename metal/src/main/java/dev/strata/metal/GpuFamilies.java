package dev.strata.metal;

import dev.strata.engine.host.ChipName;
import dev.strata.engine.host.GpuFamily;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Apple GPU family of an Apple-silicon Mac from its chip name, for when Metal is not asked (the
 * GPU probe skipped on purpose, crashed in an earlier run or timed out). Pure.
 *
 * <p>The families and their chips are {@link GpuFamily}'s table.
 */
final class GpuFamilies {
  private static final Pattern APPLE_M = Pattern.compile("^Apple M(\\d+)(?: (?:Pro|Max|Ultra))?$");

  /** macOS 26 is the first with MTLGPUFamilyMetal4 (Apple7 and later). */
  static final int METAL4_FIRST_MACOS = 26;

  private GpuFamilies() {}

  /** 1007–1010 for "Apple M1" … "Apple M5 Max" (as {@link ChipName#of} gives them), else empty. */
  static OptionalInt ofChip(String chip) {
    Matcher m = APPLE_M.matcher(chip);
    if (!m.matches() || m.group(1).length() > 3) {
      return OptionalInt.empty();
    }
    int generation = Integer.parseInt(m.group(1));
    if (generation < 1) {
      return OptionalInt.empty();
    }
    return OptionalInt.of(GpuFamily.ofGeneration(generation).id);
  }

  /**
   * Whether a Mac with GPU family {@code family} on macOS {@code osVersion} has Metal 4: Apple7 or
   * later on macOS 26 or later. False when the version does not start with a number.
   */
  static boolean metal4(int family, String osVersion) {
    if (family < GpuFamily.APPLE7.id) {
      return false;
    }
    Matcher m = Pattern.compile("^(\\d{1,4})(?:\\.|$)").matcher(osVersion);
    return m.find() && Integer.parseInt(m.group(1)) >= METAL4_FIRST_MACOS;
  }
}
