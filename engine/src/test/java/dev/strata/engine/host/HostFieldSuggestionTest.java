package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The host file's "did you mean": the one field a typo most likely meant (at most 2 edits, or a
 * prefix of 3 or more characters; '-' read as '_', case-blind), none when two fit equally.
 */
class HostFieldSuggestionTest {

  @Test
  void aTypoNamesTheOneFieldItMeant() {
    assertEquals("cpu_cores", HostFactsCodec.suggestion("CPU-CORES"));
    assertEquals("cpu_cores", HostFactsCodec.suggestion("cpu")); // a prefix of 3
    assertEquals("chip", HostFactsCodec.suggestion("chp"));
    assertEquals("chip", HostFactsCodec.suggestion("chipp"));
    assertEquals("gpu_family", HostFactsCodec.suggestion("gpu_famly"));
    assertEquals("memory_bytes", HostFactsCodec.suggestion("memroy_bytes"));
    assertEquals("wired_limit_mb", HostFactsCodec.suggestion("wired_limit"));
    assertEquals("os", HostFactsCodec.suggestion("xs")); // os is 1 edit away, k4 two
    assertEquals("k4", HostFactsCodec.suggestion("k5"));
  }

  @Test
  void noneWhenTwoFitEquallyOrNoneIsNear() {
    assertNull(HostFactsCodec.suggestion("zz")); // os and k4, both 2 edits
    assertNull(HostFactsCodec.suggestion("os_")); // os (1 edit) and os_version (a prefix)
    assertNull(HostFactsCodec.suggestion("cp")); // 2 letters are no prefix: os and k4 tie
    assertNull(HostFactsCodec.suggestion("qqqqqqqq"));
    assertNull(HostFactsCodec.suggestion("x".repeat(100)));
  }

  @Test
  void onlyMacosIsAMac() {
    HostFacts linux =
        new HostFacts("linux", "AMD EPYC", 2, 2, 0, 8L << 30, 0, false, false, "Debian 12", 0);
    assertFalse(linux.isMac());
    HostFacts mac =
        new HostFacts("macos", "Apple M4", 10, 4, 6, 16L << 30, 1009, true, false, "26.1", 0);
    assertTrue(mac.isMac());
  }
}
