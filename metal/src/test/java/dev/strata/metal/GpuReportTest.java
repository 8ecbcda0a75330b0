package dev.strata.metal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class GpuReportTest {
  /**
   * What supportsFamily: answers on a GPU of Apple family {@code top} (each supports the older).
   */
  static Set<Integer> families(int top, boolean metal4) {
    Set<Integer> s = new java.util.HashSet<>();
    IntStream.rangeClosed(1001, top).forEach(s::add);
    s.add(2002); // Mac2: every Apple-silicon Mac also reports it
    s.add(3001); // Common1
    s.add(5001); // Metal3
    if (metal4) {
      s.add(5002);
    }
    return s;
  }

  @Test
  void m4IsApple9WithMetal4AndNotK4() {
    GpuReport r = GpuReport.from(families(1009, true)::contains, 38_654_705_664L);
    assertEquals(1009, r.family());
    assertTrue(r.metal4());
    assertFalse(r.k4());
    assertEquals(OptionalLong.of(38_654_705_664L), r.recommendedMaxWorkingSet());
    assertTrue(r.notes().isEmpty());
  }

  @Test
  void m5IsK4() {
    GpuReport r = GpuReport.from(families(1010, true)::contains, 0);
    assertEquals(1010, r.family());
    assertTrue(r.metal4());
    assertTrue(r.k4());
    assertEquals(OptionalLong.empty(), r.recommendedMaxWorkingSet());
  }

  @Test
  void m1OnAnOlderMacOsHasNoMetal4() {
    GpuReport r = GpuReport.from(families(1007, false)::contains, 5L << 30);
    assertEquals(1007, r.family());
    assertFalse(r.metal4());
    assertFalse(r.k4());
  }

  @Test
  void intelMacHasNoAppleFamily() {
    GpuReport r = GpuReport.from(Set.of(2002, 3001, 4001)::contains, 1L << 30);
    assertEquals(0, r.family());
    assertFalse(r.k4());
  }

  @Test
  void testsFromApple10DownAndStopsAtTheFirstYes() {
    List<Integer> asked = new ArrayList<>();
    GpuReport.from(
        f -> {
          asked.add(f);
          return families(1008, true).contains(f);
        },
        0);
    assertEquals(List.of(1010, 1009, 1008, 1010, 5002), asked);
  }

  @Test
  void noneSaysWhy() {
    GpuReport r = GpuReport.none("MTLCreateSystemDefaultDevice returned no device");
    assertEquals(0, r.family());
    assertFalse(r.metal4() || r.k4());
    assertTrue(
        r.notes().getFirst().startsWith("Metal: MTLCreateSystemDefaultDevice returned no device;"));
  }
}
