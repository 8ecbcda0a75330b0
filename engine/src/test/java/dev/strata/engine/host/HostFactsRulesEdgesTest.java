package dev.strata.engine.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.strata.engine.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The host file's value rules (HostFactsRules, docs/PROBE.md) at each bound: the limit accepted,
 * one past it refused with the one line that names the file, the value's line and column, and the
 * field. The host JSON is the probe's canonical text (one field a line: os on line 2 …
 * wired_limit_mb on line 12), so each position is the value's own.
 */
class HostFactsRulesEdgesTest {
  private static final HostFacts M4_PRO = HostFactsCodecTest.M4_PRO; // 48 GiB = 49152 MiB
  private static final HostFacts LINUX =
      new HostFacts("linux", "AMD EPYC", 2, 2, 0, 8L << 30, 0, false, false, "Debian 12", 0);

  /** The canonical JSON of {@code facts} with the text {@code from} replaced by {@code to}. */
  private static String edit(HostFacts facts, String from, String to) {
    String json = HostFactsCodec.write(facts);
    assertEquals(1, json.split(java.util.regex.Pattern.quote(from), -1).length - 1, from);
    return json.replace(from, to);
  }

  private static HostFacts reads(String json) {
    return HostFactsCodec.read(json, "h.json");
  }

  private static String refused(String json) {
    HostFileException e = assertThrows(HostFileException.class, () -> reads(json));
    assertEquals(ExitCodes.USAGE, e.exitCode());
    assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    return e.getMessage();
  }

  @Test
  void cpuCoresUpTo8192() {
    assertEquals(8192, reads(edit(M4_PRO, "\"cpu_cores\": 14", "\"cpu_cores\": 8192")).cpuCores());
    assertEquals(
        "h.json:4:16: field 'cpu_cores' must be 1..8192, got 8193",
        refused(edit(M4_PRO, "\"cpu_cores\": 14", "\"cpu_cores\": 8193")));
  }

  /**
   * Apple10 (1010) is the newest family, and needs k4; Apple1 (1001) the oldest, and has no Metal
   * 4: each bound with its neighbours' facts, accepted, and one past it refused.
   */
  @ParameterizedTest(name = "{0} ok, {1} refused")
  @CsvSource({
    "1010, 1011, \"k4\": false, \"k4\": true",
    "1001, 1000, \"metal4\": true, \"metal4\": false"
  })
  void gpuFamilyFromApple1ToApple10(int ok, int bad, String from, String to) {
    String json = edit(M4_PRO, from, to);
    String family = "\"gpu_family\": 1009";
    assertEquals(ok, reads(json.replace(family, "\"gpu_family\": " + ok)).gpuFamily());
    assertEquals(
        "h.json:8:17: field 'gpu_family' must be 0 (no Apple GPU) or an Apple family 1001..1010,"
            + " got "
            + bad,
        refused(json.replace(family, "\"gpu_family\": " + bad)));
  }

  @Test
  void theWiredLimitMayBeTheWholeMemoryAndNoMore() {
    assertEquals(
        49152,
        reads(edit(M4_PRO, "\"wired_limit_mb\": 0", "\"wired_limit_mb\": 49152")).wiredLimitMb());
    assertEquals(
        "h.json:12:21: wired_limit_mb 49153 exceeds memory_bytes (49152 MiB)",
        refused(edit(M4_PRO, "\"wired_limit_mb\": 0", "\"wired_limit_mb\": 49153")));
  }

  @Test
  void theOsVersionIsAShortVisibleText() {
    String v = "\"os_version\": \"27.0.1\"";
    assertEquals(
        "h.json:11:17: field 'os_version' must not be empty",
        refused(edit(M4_PRO, v, "\"os_version\": \" \"")));
    String longest = "9".repeat(256);
    assertEquals(
        longest, reads(edit(M4_PRO, v, "\"os_version\": \"" + longest + "\"")).osVersion());
    assertEquals(
        "h.json:11:17: field 'os_version' is longer than 256 characters",
        refused(edit(M4_PRO, v, "\"os_version\": \"" + longest + "9\"")));
    assertEquals(
        "h.json:11:17: field 'os_version' must not contain control or format characters",
        refused(edit(M4_PRO, v, "\"os_version\": \"27\\u001b[31m\"")));
  }

  @Test
  void aLinuxHostHasNoAppleGpuAndNoWiredLimit() {
    String rule = "os is linux, so gpu_family must be 0, metal4 and k4 false and wired_limit_mb 0";
    assertEquals(
        "h.json:12:21: " + rule,
        refused(edit(LINUX, "\"wired_limit_mb\": 0", "\"wired_limit_mb\": 1024")));
    assertEquals(
        "h.json:8:17: " + rule, refused(edit(LINUX, "\"gpu_family\": 0", "\"gpu_family\": 1009")));
  }

  @Test
  void theProbesCheckNamesItsSource() {
    HostFacts noCpu =
        new HostFacts("linux", "AMD EPYC", 0, 1, 0, 8L << 30, 0, false, false, "Debian 12", 0);
    HostFileException e =
        assertThrows(HostFileException.class, () -> HostFactsRules.check(noCpu, "probe"));
    assertEquals("probe: field 'cpu_cores' must be 1..8192, got 0", e.getMessage());
    assertEquals("cpu_cores", e.field().orElseThrow());
  }
}
