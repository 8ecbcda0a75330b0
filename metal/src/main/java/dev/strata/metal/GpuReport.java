package dev.strata.metal;

import dev.strata.engine.host.GpuFamily;
import dev.strata.engine.host.HostFacts;
import java.util.ArrayList;
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
 * @param deviceName the device's {@code name} ("Apple M4 Pro"), cleaned; empty when not read
 * @param fromMetal whether these facts are Metal's answer (including "no usable device"): false
 *     when the query was skipped on purpose, crashed in an earlier run or timed out (then the first
 *     three are placeholders and the probe fills them from the chip name)
 * @param notes what went wrong, when something did
 */
record GpuReport(
    int family,
    boolean metal4,
    boolean k4,
    OptionalLong recommendedMaxWorkingSet,
    String deviceName,
    boolean fromMetal,
    List<String> notes) {
  static final int APPLE_FIRST = GpuFamily.FIRST_APPLE;

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
        "",
        true,
        List.of());
  }

  /** No usable Metal device: no family, no Metal 4, not k4, and a note saying why. */
  static GpuReport none(String why) {
    return new GpuReport(
        0,
        false,
        false,
        OptionalLong.empty(),
        "",
        true,
        List.of(
            "Metal: "
                + why
                + "; gpu_family 0, metal4 and k4 reported false (pass --host-file NAME to plan"
                + " for a known Mac)"));
  }

  /**
   * Metal was not asked, or did not answer in time: no facts. The probe takes the GPU facts from
   * the chip name ({@link GpuFamilies}) and makes one line of {@code why}, what it took, and {@code
   * advice} (which may be empty); the notes hold those two.
   */
  static GpuReport skipped(String why, String advice) {
    return new GpuReport(0, false, false, OptionalLong.empty(), "", false, List.of(why, advice));
  }

  GpuReport named(String name) {
    return new GpuReport(family, metal4, k4, recommendedMaxWorkingSet, name, fromMetal, notes);
  }

  GpuReport noted(String note) {
    List<String> all = new ArrayList<>(notes);
    all.add(note);
    return new GpuReport(family, metal4, k4, recommendedMaxWorkingSet, deviceName, fromMetal, all);
  }
}
