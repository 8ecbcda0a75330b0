package dev.strata.metal;

import dev.strata.engine.host.HostFacts;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.IntPredicate;

/**
 * What the Metal device said, reduced to the host facts.
 *
 * @param family the highest Apple GPU family supported (1001–1010), 0 when none
 * @param metal4 {@code supportsFamily(MTLGPUFamilyMetal4 = 5002)}
 * @param k4 {@code supportsFamily(MTLGPUFamilyApple10 = 1010)}: the M5 class with the k4
 *     matrix-unit layout. Apple9 (M3, M4) reports Metal 4 but is not k4.
 * @param recommendedMaxWorkingSet {@code recommendedMaxWorkingSetSize} in bytes, when known
 * @param notes what went wrong, when something did
 */
record GpuReport(
    int family,
    boolean metal4,
    boolean k4,
    OptionalLong recommendedMaxWorkingSet,
    List<String> notes) {
  static final int APPLE_FIRST = 1001;

  GpuReport {
    notes = List.copyOf(notes);
  }

  /**
   * Reduces {@code supportsFamily:} answers to the facts: the highest Apple family tested from
   * Apple10 down (the first "yes" wins, so a GPU that also answers for older families still reports
   * its newest), Metal 4, and k4 as its own question rather than inferred from the family.
   */
  static GpuReport from(IntPredicate supportsFamily, long recommendedMaxWorkingSet) {
    int family = 0;
    for (int f = HostFacts.FAMILY_APPLE10; f >= APPLE_FIRST; f--) {
      if (supportsFamily.test(f)) {
        family = f;
        break;
      }
    }
    boolean k4 = supportsFamily.test(HostFacts.FAMILY_APPLE10);
    boolean metal4 = supportsFamily.test(HostFacts.FAMILY_METAL4);
    return new GpuReport(
        family,
        metal4,
        k4,
        recommendedMaxWorkingSet > 0
            ? OptionalLong.of(recommendedMaxWorkingSet)
            : OptionalLong.empty(),
        List.of());
  }

  /** No usable Metal device: no family, no Metal 4, not k4, and a note saying why. */
  static GpuReport none(String why) {
    return new GpuReport(
        0,
        false,
        false,
        OptionalLong.empty(),
        List.of(
            "Metal: "
                + why
                + "; gpu_family 0, metal4 and k4 reported false (pass --host-file NAME to plan"
                + " for a known Mac)"));
  }
}
