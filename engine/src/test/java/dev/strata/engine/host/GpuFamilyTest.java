package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GpuFamilyTest {
  @Test
  void chipGenerationsMapAsApplesTablesHaveThem() {
    assertEquals(GpuFamily.APPLE7, GpuFamily.ofGeneration(1));
    assertEquals(GpuFamily.APPLE8, GpuFamily.ofGeneration(2));
    assertEquals(GpuFamily.APPLE9, GpuFamily.ofGeneration(3));
    assertEquals(GpuFamily.APPLE9, GpuFamily.ofGeneration(4));
    assertEquals(GpuFamily.APPLE10, GpuFamily.ofGeneration(5));
    assertEquals(GpuFamily.APPLE10, GpuFamily.ofGeneration(9), "a newer chip is the newest family");
  }

  @Test
  void numbersKeywordsAndTheListSetupShows() {
    assertEquals(
        List.of(1007, 1008, 1009, 1010),
        List.of(GpuFamily.values()).stream().map(f -> f.id).toList());
    assertEquals(HostFacts.FAMILY_APPLE10, GpuFamily.APPLE10.id);
    assertEquals(List.of("apple7", "apple8", "apple9", "apple10"), GpuFamily.keywords());
    assertEquals("apple7 (M1), apple8 (M2), apple9 (M3, M4), apple10 (M5)", GpuFamily.listed());
    assertEquals(Optional.of(GpuFamily.APPLE9), GpuFamily.of(1009));
    assertTrue(GpuFamily.of(1006).isEmpty());
    assertTrue(GpuFamily.of(0).isEmpty());
    assertEquals("M3/M4 class", GpuFamily.APPLE9.meaning);
  }
}
