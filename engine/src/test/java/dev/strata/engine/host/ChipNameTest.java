package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChipNameTest {
  /** The brand string as sysctl gives it, and the name shown. */
  @ParameterizedTest(name = "[{0}] -> {1}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          Apple M4 Pro         | Apple M4 Pro
          Apple M1             | Apple M1
          '  Apple  M2 Ultra ' | Apple M2 Ultra
          Apple M5             | Apple M5
          Apple M2 (Virtual)   | Apple M2
          """)
  void appleBrands(String brand, String shown) {
    assertEquals(shown, ChipName.of(brand));
  }

  @Test
  void aTrailingLineBreakIsDropped() {
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

  @Test
  void leadingSpacesOfAnIntelBrandStringAreDropped() {
    // Intel brand strings of that era are right-aligned in their 48 bytes
    assertEquals(
        "Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz",
        ChipName.of("       Intel(R) Xeon(R) CPU E5-2697 v2 @ 2.70GHz"));
  }

  @Test
  void theClipNeverSplitsACharacter() {
    String face = "\uD83D\uDE00"; // U+1F600, two UTF-16 characters
    assertEquals("x".repeat(126) + face, ChipName.clean("x".repeat(126) + face + " tail"));
    assertEquals("x".repeat(127), ChipName.clean("x".repeat(127) + face + " tail"));
  }
}
