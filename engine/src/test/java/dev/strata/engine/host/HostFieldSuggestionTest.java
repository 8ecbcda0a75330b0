package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.strata.engine.flags.Suggest;
import org.junit.jupiter.api.Test;

/**
 * The host file's "did you mean" is the toolkit's one rule ({@link Suggest#nearest}): the one field
 * a word of 3 or more characters begins, else the nearest within 2 edits (1 for short words); '-'
 * read as '_', case-blind.
 */
class HostFieldSuggestionTest {

  @Test
  void aTypoNamesTheOneFieldItMeant() {
    assertEquals("cpu_cores", Suggest.nearest("CPU-CORES", HostFactsCodec.FIELDS));
    assertEquals("cpu_cores", Suggest.nearest("cpu", HostFactsCodec.FIELDS)); // a prefix of 3
    assertEquals("chip", Suggest.nearest("chp", HostFactsCodec.FIELDS));
    assertEquals("chip", Suggest.nearest("chipp", HostFactsCodec.FIELDS));
    assertEquals("gpu_family", Suggest.nearest("gpu_famly", HostFactsCodec.FIELDS));
    assertEquals("memory_bytes", Suggest.nearest("memroy_bytes", HostFactsCodec.FIELDS));
    assertEquals("wired_limit_mb", Suggest.nearest("wired_limit", HostFactsCodec.FIELDS));
    assertEquals("os", Suggest.nearest("xs", HostFactsCodec.FIELDS)); // os is 1 edit away, k4 two
    assertEquals("k4", Suggest.nearest("k5", HostFactsCodec.FIELDS));
  }

  @Test
  void noneWhenNoneIsNear() {
    assertNull(Suggest.nearest("zz", HostFactsCodec.FIELDS)); // os and k4, both 2 edits
    // a word begun: the one field it begins wins over a field one edit away (os)
    assertEquals("os_version", Suggest.nearest("os_", HostFactsCodec.FIELDS));
    assertNull(
        Suggest.nearest("cp", HostFactsCodec.FIELDS)); // 2 letters are no prefix: os and k4 tie
    assertNull(Suggest.nearest("qqqqqqqq", HostFactsCodec.FIELDS));
    assertNull(Suggest.nearest("x".repeat(100), HostFactsCodec.FIELDS));
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
