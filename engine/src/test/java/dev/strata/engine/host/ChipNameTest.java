package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ChipNameTest {
  @Test
  void appleBrands() {
    assertEquals("Apple M4 Pro", ChipName.of("Apple M4 Pro"));
    assertEquals("Apple M1", ChipName.of("Apple M1"));
    assertEquals("Apple M2 Ultra", ChipName.of("  Apple  M2 Ultra "));
    assertEquals("Apple M5", ChipName.of("Apple M5"));
    assertEquals("Apple M2", ChipName.of("Apple M2 (Virtual)"));
    assertEquals("Apple M3 Max", ChipName.of("Apple M3 Max\n"));
  }

  @Test
  void otherBrandsAreCleanedNotRewritten() {
    assertEquals(
        "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz",
        ChipName.of("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz"));
    assertEquals("AMD EPYC", ChipName.of("AMD EPYC\t"));
    assertEquals("a b", ChipName.of("a\u001b[31m b".replace("[31m", "")));
    assertEquals("unknown", ChipName.of(""));
    assertEquals(ChipName.MAX, ChipName.of("x".repeat(500)).length());
  }
}
