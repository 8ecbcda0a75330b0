package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class GpuFamiliesTest {
  @Test
  void chipNamesGiveApplesFamilies() {
    assertEquals(OptionalInt.of(1007), GpuFamilies.ofChip("Apple M1"));
    assertEquals(OptionalInt.of(1007), GpuFamilies.ofChip("Apple M1 Ultra"));
    assertEquals(OptionalInt.of(1008), GpuFamilies.ofChip("Apple M2 Max"));
    assertEquals(OptionalInt.of(1009), GpuFamilies.ofChip("Apple M3 Pro"));
    assertEquals(OptionalInt.of(1009), GpuFamilies.ofChip("Apple M4"));
    assertEquals(OptionalInt.of(1010), GpuFamilies.ofChip("Apple M5"));
    assertEquals(
        OptionalInt.of(1010), GpuFamilies.ofChip("Apple M7 Max"), "newer: the newest known");
    for (String other :
        new String[] {
          "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz",
          "unknown",
          "Apple M0",
          "Apple M",
          "Apple M4 Duo",
          "Apple M99999",
          "apple m4",
          ""
        }) {
      assertEquals(OptionalInt.empty(), GpuFamilies.ofChip(other), other);
    }
  }

  @Test
  void metal4FromApple7OnMacOs26() {
    assertTrue(GpuFamilies.metal4(1007, "26.0"));
    assertTrue(GpuFamilies.metal4(1010, "27.0.1"));
    assertFalse(GpuFamilies.metal4(1009, "15.7.1"));
    assertFalse(GpuFamilies.metal4(1006, "27.0"));
    assertFalse(GpuFamilies.metal4(0, "27.0"));
    assertFalse(GpuFamilies.metal4(1009, "unknown"));
    assertFalse(GpuFamilies.metal4(1009, "99999999999999999999"));
  }

  @Test
  void withGpuFamilyKeepsTheRulesAndRefusesWhatIsNotAMac() {
    var m4 = dev.strata.engine.host.HostProfiles.load("m4-pro-48");
    var m5ish = HostProbe.withGpuFamily(m4, 1010);
    assertTrue(m5ish.k4());
    dev.strata.engine.host.HostFactsRules.check(m5ish, "test");
    var none = HostProbe.withGpuFamily(m4, 0);
    assertFalse(none.metal4() || none.k4());
    org.junit.jupiter.api.Assertions.assertThrows(
        IllegalArgumentException.class, () -> HostProbe.withGpuFamily(m4, 1011));
  }
}
